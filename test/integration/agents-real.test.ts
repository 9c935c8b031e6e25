import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { agentResponseJsonSchema } from '../../src/domain/protocol.js';
import type { BuiltinProviderId } from '../../src/domain/providers.js';
import {
  type AgentChannel,
  type TurnEvent,
  type TurnRequest,
} from '../../src/infra/agent/channel.js';
import { AgentError } from '../../src/infra/agent/agent-error.js';
import { createClaudeChannel } from '../../src/infra/agent/claude/claude.js';
import { createCodexChannel } from '../../src/infra/agent/codex/codex.js';
import { createGeminiChannel } from '../../src/infra/agent/gemini/gemini.js';
import { runProtocolTurn } from '../../src/infra/agent/protocol-turn.js';
import { agentEnv } from '../helpers/agent-env.js';
import {
  startFakeModelServer,
  type ApiName,
  type FakeModelServer,
} from '../helpers/fake-model/server.js';
import { realCliPath } from '../helpers/real-clis.js';
import { waitUntil } from '../helpers/wait.js';

// The real, pinned agent CLIs (test/fixtures/real-clis) driven by Grove's
// channels against the fake model server on 127.0.0.1.

interface Case {
  readonly provider: BuiltinProviderId;
  readonly api: ApiName;
  readonly model: string;
  readonly nativeSchema: boolean;
  make(env: Record<string, string>, binary: string): AgentChannel;
}

const CASES: readonly Case[] = [
  {
    provider: 'claude',
    api: 'anthropic',
    model: 'sonnet',
    nativeSchema: true,
    make: (env, bin) => createClaudeChannel({ env, turnTimeoutMs: 60_000 }, bin),
  },
  {
    provider: 'codex',
    api: 'openai',
    model: 'gpt-5.5',
    nativeSchema: true,
    make: (env, bin) => createCodexChannel({ env, turnTimeoutMs: 60_000 }, bin),
  },
  {
    provider: 'gemini',
    api: 'gemini',
    model: 'gemini-test',
    nativeSchema: false,
    make: (env, bin) => createGeminiChannel({ env, turnTimeoutMs: 60_000 }, bin),
  },
];

const REPLY = (answer: string) =>
  JSON.stringify({
    answer,
    questions: [],
    summary: { turn: `did: ${answer}`, session: 'the session so far' },
  });

let server: FakeModelServer;
let dir: string;
let repo: string;
let channel: AgentChannel | null = null;

beforeEach(async () => {
  server = await startFakeModelServer();
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'grove-agents-')));
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

function request(
  c: Case,
  prompt: string,
  providerConversationId: string | null = null,
): TurnRequest {
  return {
    sessionId: 'session-1',
    cwd: repo,
    mainCheckout: join(dir, 'main-checkout'),
    prompt,
    kind: providerConversationId ? 'session_resume' : 'session_start',
    model: c.model,
    reasoning: c.provider === 'gemini' ? 'default' : 'high',
    permissionMode: 'auto_edit',
    providerConversationId,
    outputSchema: c.nativeSchema ? agentResponseJsonSchema(c.provider === 'codex') : null,
  };
}

describe.each(CASES)('$provider, the real CLI against the fake model server', (c) => {
  const binary = realCliPath(c.provider);
  it('runs a turn that writes a file in the worktree and answers in the protocol', async () => {
    server.script(c.api, [
      { toolCall: { kind: 'write_file', path: 'hello.txt', content: 'hi\n' } },
      { text: REPLY('Wrote hello.txt') },
    ]);
    channel = c.make(agentEnv(server, join(dir, 'home')), binary);
    const events: TurnEvent[] = [];

    const turn = await runProtocolTurn(
      channel,
      request(c, 'Create hello.txt'),
      (e) => events.push(e),
      new AbortController().signal,
    );

    expect(readFileSync(join(repo, 'hello.txt'), 'utf8')).toBe('hi\n');
    expect(turn.response.answer).toBe('Wrote hello.txt');
    expect(turn.response.summary).toEqual({
      turn: 'did: Wrote hello.txt',
      session: 'the session so far',
    });
    expect(turn.result.inputTokens).toBeGreaterThan(0);
    expect(turn.result.outputTokens).toBeGreaterThan(0);
    expect(turn.result.providerConversationId).toBeTruthy();
    expect(events.some((e) => e.type === 'progress')).toBe(true);
  });

  it('continues the same conversation on the next turn', async () => {
    server.script(c.api, [{ text: REPLY('first') }, { text: REPLY('second') }]);
    channel = c.make(agentEnv(server, join(dir, 'home')), binary);
    const first = await runProtocolTurn(
      channel,
      request(c, 'remember the word PELICAN'),
      () => {},
      new AbortController().signal,
    );

    const second = await runProtocolTurn(
      channel,
      request(c, 'which word?', first.result.providerConversationId),
      () => {},
      new AbortController().signal,
    );

    expect(second.response.answer).toBe('second');
    const last = server.modelRequests(c.api).at(-1);
    expect(JSON.stringify(last?.body)).toContain('PELICAN');
  });

  it('asks once for a repair when the reply is not JSON, then succeeds', async () => {
    server.script(c.api, [{ text: 'Sure! I did it.' }, { text: REPLY('restated') }]);
    channel = c.make(agentEnv(server, join(dir, 'home')), binary);

    const turn = await runProtocolTurn(
      channel,
      request(c, 'do it'),
      () => {},
      new AbortController().signal,
    );

    expect(turn.response.answer).toBe('restated');
    expect(server.modelRequests(c.api)).toHaveLength(2);
    // Claude Code enforces --json-schema itself and asks its model again; the others get Grove's repair prompt.
    expect(turn.repaired).toBe(c.provider !== 'claude');
  });

  it('fails with a readable error when the model service rejects the key', async () => {
    server.script(c.api, [
      {
        error: {
          status: 401,
          body:
            c.api === 'anthropic'
              ? {
                  type: 'error',
                  error: { type: 'authentication_error', message: 'invalid x-api-key' },
                }
              : { error: { message: 'Incorrect API key provided', code: 401 } },
        },
      },
    ]);
    channel = c.make(agentEnv(server, join(dir, 'home')), binary);

    const failure = await runProtocolTurn(
      channel,
      request(c, 'hello'),
      () => {},
      new AbortController().signal,
    ).catch((e: unknown) => e);

    expect(failure).toBeInstanceOf(AgentError);
    expect((failure as AgentError).provider).toBe(c.provider);
    expect((failure as AgentError).message.length).toBeGreaterThan(10);
    expect(existsSync(join(repo, 'hello.txt'))).toBe(false);
  });

  it('stops the turn when aborted', async () => {
    server.script(c.api, [{ delayMs: 20_000, then: { text: REPLY('too late') } }]);
    channel = c.make(agentEnv(server, join(dir, 'home')), binary);
    const controller = new AbortController();
    const turn = channel
      .runTurn(request(c, 'slow'), () => {}, controller.signal)
      .catch((e: unknown) => e);
    // Mid-turn: the model has the request and holds its answer for 20 s.
    await waitUntil('the model has the turn', () => server.modelRequests(c.api).length > 0, 60_000);
    const aborted = Date.now();
    controller.abort();

    const failure = await turn;

    expect(failure).toBeInstanceOf(AgentError);
    expect((failure as AgentError).reason).toBe('canceled');
    expect(Date.now() - aborted).toBeLessThan(15_000);
  });
});

describe('a missing agent CLI', () => {
  it.each(CASES)('$provider says it is not installed', async (c) => {
    channel = c.make({ PATH: '/nonexistent', HOME: dir }, `grove-no-such-${c.provider}`);

    const failure = await channel
      .runTurn(request(c, 'hi'), () => {}, new AbortController().signal)
      .catch((e: unknown) => e);

    expect(failure).toBeInstanceOf(AgentError);
    expect((failure as AgentError).reason).toBe('missing_cli');
    expect((failure as AgentError).message).toMatch(/not installed/);
  });
});
