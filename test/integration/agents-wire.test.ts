import { execFileSync } from 'node:child_process';
import {
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { agentResponseJsonSchema } from '../../src/domain/protocol.js';
import type { BuiltinProviderId } from '../../src/domain/providers.js';
import type { AgentChannel, ChannelOptions, TurnRequest } from '../../src/infra/agent/channel.js';
import { createClaudeChannel } from '../../src/infra/agent/claude/claude.js';
import { createCodexChannel } from '../../src/infra/agent/codex/codex.js';
import { createGeminiChannel } from '../../src/infra/agent/gemini/gemini.js';
import { runProtocolTurn } from '../../src/infra/agent/protocol-turn.js';
import type { WireVerdict, WireWatch } from '../../src/infra/agent/wire-check.js';
import { agentEnv } from '../helpers/agent-env.js';
import {
  startFakeModelServer,
  type ApiName,
  type FakeModelServer,
} from '../helpers/fake-model/server.js';
import { realCliPath } from '../helpers/real-clis.js';

// The drift check: one real turn per pinned CLI (test/fixtures/real-clis)
// against the fake model server, with a tool call and a resumed follow-up.
// Every message Grove received must be one its protocol schemas describe and
// match: after upgrading a pinned CLI, this fails and lists what changed.

interface Case {
  readonly provider: BuiltinProviderId;
  readonly api: ApiName;
  readonly model: string;
  make(options: ChannelOptions, binary: string): AgentChannel;
}

const CASES: readonly Case[] = [
  {
    provider: 'claude',
    api: 'anthropic',
    model: 'sonnet',
    make: (o, bin) => createClaudeChannel(o, bin),
  },
  {
    provider: 'codex',
    api: 'openai',
    model: 'gpt-5.5',
    make: (o, bin) => createCodexChannel(o, bin),
  },
  {
    provider: 'gemini',
    api: 'gemini',
    model: 'gemini-test',
    make: (o, bin) => createGeminiChannel(o, bin),
  },
];

const REPLY = (answer: string) =>
  JSON.stringify({ answer, questions: [], summary: { turn: answer, session: answer } });

interface Received {
  readonly message: string;
  readonly verdict: WireVerdict;
  readonly detail: string | undefined;
}

function recorder(): WireWatch & { readonly received: Received[] } {
  const received: Received[] = [];
  return {
    received,
    record: (_provider, message, verdict, detail) => received.push({ message, verdict, detail }),
  };
}

/** The pids of the processes whose working folder is `dir`. */
function processesIn(dir: string): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        return readlinkSync(`/proc/${pid}/cwd`) === dir;
      } catch {
        return false; // gone, or not ours
      }
    })
    .map(Number);
}

let server: FakeModelServer;
let dir: string;
let repo: string;
let channel: AgentChannel | null = null;

beforeEach(async () => {
  server = await startFakeModelServer();
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'grove-wire-')));
  repo = join(dir, 'repo');
  execFileSync('git', ['init', '-q', '-b', 'main', repo]);
  server.setWorkdir(repo);
});

afterEach(async () => {
  await channel?.shutdown();
  channel = null;
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

function request(c: Case, prompt: string, providerConversationId: string | null): TurnRequest {
  const native = c.provider !== 'gemini';
  return {
    sessionId: 'session-1',
    cwd: repo,
    mainCheckout: join(dir, 'main-checkout'),
    prompt,
    kind: providerConversationId ? 'session_resume' : 'session_start',
    model: c.model,
    reasoning: 'default',
    permissionMode: 'auto_edit',
    providerConversationId,
    outputSchema: native ? agentResponseJsonSchema(c.provider === 'codex') : null,
  };
}

describe.each(CASES)('$provider, the wire format of the pinned CLI', (c) => {
  it('sends only messages that its protocol schemas describe and that match them', async () => {
    server.script(c.api, [
      { toolCall: { kind: 'write_file', path: 'hello.txt', content: 'hi\n' } },
      { text: REPLY('wrote it') },
      { text: REPLY('again') },
    ]);
    const watch = recorder();
    channel = c.make(
      { env: agentEnv(server, join(dir, 'home')), turnTimeoutMs: 60_000, wire: watch },
      realCliPath(c.provider),
    );
    const first = await runProtocolTurn(
      channel,
      request(c, 'Create hello.txt', null),
      () => {},
      new AbortController().signal,
    );
    // A new process for the follow-up, so the resume messages are checked too.
    // The old one is gone once shutdown resolves: a new one started beside it
    // could meet its files (Codex's state database) still open.
    await channel.shutdown();
    expect(processesIn(repo)).toEqual([]);

    await runProtocolTurn(
      channel,
      request(c, 'And again', first.result.providerConversationId),
      () => {},
      new AbortController().signal,
    );

    expect(readFileSync(join(repo, 'hello.txt'), 'utf8')).toBe('hi\n');
    const drift = watch.received
      .filter((r) => r.verdict === 'unknown' || r.verdict === 'invalid')
      .map((r) => `${r.verdict} ${r.message}${r.detail ? `: ${r.detail}` : ''}`);
    expect(drift).toEqual([]);
    expect(watch.received.filter((r) => r.verdict === 'valid').length).toBeGreaterThan(3);
  });
});
