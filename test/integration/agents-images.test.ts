import { execFileSync } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { agentResponseJsonSchema } from '../../src/domain/protocol.js';
import type { BuiltinProviderId } from '../../src/domain/providers.js';
import type { AgentChannel, TurnRequest } from '../../src/infra/agent/channel.js';
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

// An image attached in the composer reaches the model through each real CLI.

/** A 1×1 PNG. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

interface Case {
  readonly provider: BuiltinProviderId;
  readonly api: ApiName;
  readonly model: string;
  make(env: Record<string, string>, binary: string): AgentChannel;
}

const CASES: readonly Case[] = [
  {
    provider: 'claude',
    api: 'anthropic',
    model: 'sonnet',
    make: (env, bin) => createClaudeChannel({ env, turnTimeoutMs: 60_000 }, bin),
  },
  {
    provider: 'codex',
    api: 'openai',
    model: 'gpt-5.5',
    make: (env, bin) => createCodexChannel({ env, turnTimeoutMs: 60_000 }, bin),
  },
  {
    provider: 'gemini',
    api: 'gemini',
    model: 'gemini-test',
    make: (env, bin) => createGeminiChannel({ env, turnTimeoutMs: 60_000 }, bin),
  },
];

const REPLY = JSON.stringify({
  answer: 'A single pixel.',
  questions: [],
  summary: { turn: 'looked', session: 'looked' },
});

let server: FakeModelServer;
let dir: string;
let repo: string;
let image: string;
let channel: AgentChannel | null = null;

beforeEach(async () => {
  server = await startFakeModelServer();
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'grove-images-')));
  repo = join(dir, 'repo');
  execFileSync('git', ['init', '-q', '-b', 'main', repo]);
  server.setWorkdir(repo);
  image = join(dir, 'pixel.png');
  writeFileSync(image, PNG);
});

afterEach(async () => {
  await channel?.shutdown();
  channel = null;
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe.each(CASES)('$provider', (c) => {
  it('sends an attached image to the model', async () => {
    server.script(c.api, [{ text: REPLY }, { text: REPLY }]);
    channel = c.make(agentEnv(server, join(dir, 'home')), realCliPath(c.provider));
    const request: TurnRequest = {
      sessionId: 'session-1',
      cwd: repo,
      mainCheckout: join(dir, 'main-checkout'),
      prompt: 'What is in this picture?',
      kind: 'session_start',
      model: c.model,
      reasoning: c.provider === 'gemini' ? 'default' : 'high',
      permissionMode: 'read_only',
      providerConversationId: null,
      outputSchema:
        c.provider === 'gemini' ? null : agentResponseJsonSchema(c.provider === 'codex'),
      images: [image],
    };

    const turn = await runProtocolTurn(channel, request, () => {}, new AbortController().signal);

    expect(turn.response.answer).toBe('A single pixel.');
    const bodies = server.modelRequests(c.api).map((r) => JSON.stringify(r.body));
    expect(bodies.some((body) => body.includes(PNG.toString('base64').slice(0, 40)))).toBe(true);
  });
});
