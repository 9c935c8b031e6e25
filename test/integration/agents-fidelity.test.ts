import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { agentResponseJsonSchema } from '../../src/domain/protocol.js';
import type { ProviderId } from '../../src/domain/providers.js';
import {
  type AgentChannel,
  type TurnEvent,
  type TurnRequest,
} from '../../src/infra/agent/channel.js';
import { AgentError } from '../../src/infra/agent/agent-error.js';
import { createClaudeChannel } from '../../src/infra/agent/claude/claude.js';
import { createCodexChannel } from '../../src/infra/agent/codex/codex.js';
import { createGeminiChannel } from '../../src/infra/agent/gemini/gemini.js';
import { agentEnv } from '../helpers/agent-env.js';
import { startFakeModelServer, type FakeModelServer } from '../helpers/fake-model/server.js';
import { realCliPath } from '../helpers/real-clis.js';

// Fidelity of Grove's channels to what the real, pinned CLIs report: usage
// that matches what the model service billed, and API errors in words.

const REPLY = (answer: string) => JSON.stringify({ answer, questions: [], summary: null });

let server: FakeModelServer;
let dir: string;
let repo: string;
const channels: AgentChannel[] = [];

beforeEach(async () => {
  server = await startFakeModelServer();
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'grove-fidelity-')));
  repo = join(dir, 'repo');
  execFileSync('git', ['init', '-q', '-b', 'main', repo]);
  server.setWorkdir(repo);
});

afterEach(async () => {
  await Promise.all(channels.splice(0).map((c) => c.shutdown()));
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

function request(
  provider: ProviderId,
  model: string,
  prompt: string,
  providerConversationId: string | null = null,
): TurnRequest {
  return {
    sessionId: 'session-1',
    cwd: repo,
    mainCheckout: join(dir, 'main-checkout'),
    prompt,
    kind: providerConversationId ? 'session_resume' : 'session_start',
    model,
    reasoning: 'default',
    permissionMode: 'auto_edit',
    providerConversationId,
    outputSchema: provider === 'gemini' ? null : agentResponseJsonSchema(provider === 'codex'),
  };
}

/** Input tokens the fake model server billed for the requests from `from` on. */
function billedInput(from: number): number {
  return server.modelRequests('openai').slice(from).length * 100;
}

describe('Codex usage after a resume', () => {
  it('records exactly the input tokens the model service billed for the resumed turn', async () => {
    server.script('openai', [{ text: REPLY('first') }, { text: REPLY('second') }]);
    const env = agentEnv(server, join(dir, 'home'));
    const first = createCodexChannel({ env, turnTimeoutMs: 60_000 }, realCliPath('codex'));
    channels.push(first);
    const one = await first.runTurn(
      request('codex', 'gpt-5.5', 'remember PELICAN'),
      () => {},
      new AbortController().signal,
    );
    await first.shutdown();
    const before = server.modelRequests('openai').length;
    const resumed = createCodexChannel({ env, turnTimeoutMs: 60_000 }, realCliPath('codex'));
    channels.push(resumed);

    const two = await resumed.runTurn(
      request('codex', 'gpt-5.5', 'which word?', one.providerConversationId),
      () => {},
      new AbortController().signal,
    );

    expect(two.providerConversationId).toBe(one.providerConversationId);
    expect(two.inputTokens).toBe(billedInput(before));
    expect(two.outputTokens).toBe(20 * (server.modelRequests('openai').length - before));
  });
});

interface ErrorCase {
  readonly provider: ProviderId;
  readonly api: 'anthropic' | 'openai' | 'gemini';
  readonly model: string;
  readonly body: unknown;
  make(env: Record<string, string>): AgentChannel;
}

const ERROR_CASES: readonly ErrorCase[] = [
  {
    provider: 'claude',
    api: 'anthropic',
    model: 'sonnet',
    body: {
      type: 'error',
      error: {
        type: 'invalid_request_error',
        message: 'request rejected by the organization policy (code 7781)',
      },
    },
    make: (env) => createClaudeChannel({ env, turnTimeoutMs: 60_000 }, realCliPath('claude')),
  },
  {
    provider: 'codex',
    api: 'openai',
    model: 'gpt-5.5',
    body: {
      error: {
        message: 'request rejected by the organization policy (code 7781)',
        type: 'invalid_request_error',
        param: 'max_output_tokens',
        code: 'invalid_value',
      },
    },
    make: (env) => createCodexChannel({ env, turnTimeoutMs: 60_000 }, realCliPath('codex')),
  },
  {
    provider: 'gemini',
    api: 'gemini',
    model: 'gemini-test',
    body: {
      error: {
        code: 400,
        message: 'request rejected by the organization policy (code 7781)',
        status: 'INVALID_ARGUMENT',
      },
    },
    make: (env) => createGeminiChannel({ env, turnTimeoutMs: 60_000 }, realCliPath('gemini')),
  },
];

describe.each(ERROR_CASES)('$provider, a model API error', (c) => {
  it("shows the API's message in words and keeps the raw body for the log", async () => {
    // Claude Code sends a request that got a 400 again a few times: every try fails alike.
    server.script(
      c.api,
      [1, 2, 3, 4, 5, 6, 7, 8].map(() => ({ error: { status: 400, body: c.body } })),
    );
    const channel = c.make(agentEnv(server, join(dir, 'home')));
    channels.push(channel);

    const failure = await channel
      .runTurn(request(c.provider, c.model, 'hello'), () => {}, new AbortController().signal)
      .catch((e: unknown) => e);

    expect(failure).toBeInstanceOf(AgentError);
    const error = failure as AgentError;
    expect(error.reason).toBe('api');
    expect(error.message).toContain('request rejected by the organization policy (code 7781)');
    expect(error.message).not.toMatch(/[{}]/);
    expect(error.diagnostics).not.toContain('invalid_request_error');
    expect(error.message).not.toContain('API Error');
    expect(error.raw).toContain('request rejected by the organization policy');
  });
});

/** Gemini CLI's settings with its own retry limit raised from the tests' 1 (no retries) to `attempts`. */
function geminiEnv(attempts: number): Record<string, string> {
  const home = join(dir, 'home');
  const env = agentEnv(server, home);
  writeFileSync(
    join(home, '.gemini', 'settings.json'),
    JSON.stringify({
      security: { auth: { selectedType: 'gemini-api-key' }, folderTrust: { enabled: false } },
      privacy: { usageStatisticsEnabled: false },
      general: { maxAttempts: attempts },
      telemetry: { enabled: false },
    }),
  );
  return env;
}

describe('Gemini CLI retrying a failing model request', () => {
  it('shows each retry with its reason while it waits', async () => {
    server.script('gemini', [
      { error: { status: 500 } },
      {
        error: {
          status: 503,
          body: {
            error: { code: 503, message: 'The model is overloaded.', status: 'UNAVAILABLE' },
          },
        },
      },
      { text: REPLY('done') },
    ]);
    const channel = createGeminiChannel(
      { env: geminiEnv(3), turnTimeoutMs: 60_000 },
      realCliPath('gemini'),
    );
    channels.push(channel);
    const progress: string[] = [];

    const result = await channel.runTurn(
      request('gemini', 'gemini-test', 'hello'),
      (e) => e.type === 'progress' && progress.push(e.text),
      new AbortController().signal,
    );

    expect(result.message).toContain('done');
    const retries = progress.filter((line) => line.startsWith('Gemini CLI: model request failed'));
    expect(retries).toEqual([
      'Gemini CLI: model request failed (scripted 500); retrying, attempt 2…',
      'Gemini CLI: model request failed (503: The model is overloaded.); retrying, attempt 3…',
    ]);
  });

  it('stops the turn once the retry budget is spent', async () => {
    server.script('gemini', [
      { error: { status: 500 } },
      { error: { status: 500 } },
      { error: { status: 500 } },
    ]);
    const channel = createGeminiChannel(
      { env: geminiEnv(10), turnTimeoutMs: 60_000 },
      realCliPath('gemini'),
    );
    channels.push(channel);

    const failure = await channel
      .runTurn(
        { ...request('gemini', 'gemini-test', 'hello'), modelRetries: 1 },
        () => {},
        new AbortController().signal,
      )
      .catch((e: unknown) => e);

    expect(failure).toBeInstanceOf(AgentError);
    expect((failure as AgentError).message).toBe(
      "Gemini CLI's model request still failed after 1 retry (HTTP 500: scripted 500); Grove stopped the turn.",
    );
    expect(server.modelRequests('gemini')).toHaveLength(2);
  });
});

describe('Gemini CLI after its process restarts in the minute the session began', () => {
  it('gets the earlier conversation replayed from the transcript, and says so', async () => {
    // The reload Gemini CLI cannot do happens within one wall-clock minute: start well inside one.
    await until(() => Date.now() % 60_000 < 40_000);
    server.script('gemini', [
      { text: REPLY('I will remember PELICAN') },
      { text: REPLY('The word was PELICAN') },
    ]);
    const env = agentEnv(server, join(dir, 'home'));
    const first = createGeminiChannel({ env, turnTimeoutMs: 60_000 }, realCliPath('gemini'));
    channels.push(first);
    const one = await first.runTurn(
      request('gemini', 'gemini-test', 'remember the word PELICAN'),
      () => {},
      new AbortController().signal,
    );
    await first.shutdown();
    const restarted = createGeminiChannel({ env, turnTimeoutMs: 60_000 }, realCliPath('gemini'));
    channels.push(restarted);
    const events: TurnEvent[] = [];
    const history = [
      { role: 'user' as const, text: 'remember the word PELICAN' },
      { role: 'agent' as const, text: 'I will remember PELICAN' },
    ];

    await restarted.runTurn(
      { ...request('gemini', 'gemini-test', 'which word?', one.providerConversationId), history },
      (e) => events.push(e),
      new AbortController().signal,
    );

    const last = JSON.stringify(server.modelRequests('gemini').at(-1)?.body);
    expect(last).toContain('remember the word PELICAN');
    expect(last).toContain('I will remember PELICAN');
    expect(events).toContainEqual({
      type: 'notice',
      text: '[Resume] Gemini could not reload its session; Grove replayed the conversation (1 turn).',
    });
  });
});

const TOOL_CASES = ERROR_CASES.map((c) => ({
  provider: c.provider,
  api: c.api,
  model: c.model,
  make: (env: Record<string, string>) => c.make(env),
}));

describe.each(TOOL_CASES)('$provider, a command the agent ran', (c) => {
  it('comes back as one tool line with the command and how it ended, then its output', async () => {
    server.script(c.api, [
      { toolCall: { kind: 'shell', command: 'echo grove-tool-line' } },
      { text: REPLY('ran it') },
    ]);
    const channel = c.make(agentEnv(server, join(dir, 'home')));
    channels.push(channel);
    const tools: string[] = [];

    await channel.runTurn(
      request(c.provider, c.model, 'run it'),
      (e) => e.type === 'tool' && tools.push(e.text),
      new AbortController().signal,
    );

    expect(tools).toHaveLength(1);
    const [summary, ...detail] = (tools[0] ?? '').split('\n');
    expect(summary).toMatch(/^Ran: .*echo grove-tool-line/);
    // Gemini CLI's ACP says neither the exit code nor the output of a shell command (its display is not text).
    if (c.provider !== 'gemini') {
      expect(summary).toMatch(/\(exit 0\)$/);
      expect(detail.join('\n')).toContain('grove-tool-line');
    }
  });
});

describe.each(TOOL_CASES)('$provider, a file the agent wrote', (c) => {
  it("shows the file relative to the session's worktree, without the worktree's path", async () => {
    mkdirSync(join(repo, 'src'));
    server.script(c.api, [
      { toolCall: { kind: 'write_file', path: 'src/hello.txt', content: 'hi\n' } },
      { text: REPLY('wrote it') },
    ]);
    const channel = c.make(agentEnv(server, join(dir, 'home')));
    channels.push(channel);
    const shown: string[] = [];

    await channel.runTurn(
      request(c.provider, c.model, 'write it'),
      (e) => (e.type === 'tool' || e.type === 'progress') && shown.push(e.text),
      new AbortController().signal,
    );

    const tool = shown.find((line) => line.includes('hello.txt') && /^(Wrote|Edited)/.test(line));
    expect(tool).toMatch(/^(Wrote|Edited:?) (Writing to )?src\/hello\.txt/);
    expect(shown.join('\n')).not.toContain(dir);
    expect(shown.join('\n')).not.toContain('repo/');
  });
});

/** Polls until `check` holds (the clock, here). */
async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 200));
}

describe('Claude Code, the structured answer', () => {
  it('shows as writing the answer, never as its internal StructuredOutput tool', async () => {
    server.script('anthropic', [{ text: REPLY('done') }]);
    const channel = createClaudeChannel(
      { env: agentEnv(server, join(dir, 'home')), turnTimeoutMs: 60_000 },
      realCliPath('claude'),
    );
    channels.push(channel);
    const events: TurnEvent[] = [];

    const result = await channel.runTurn(
      request('claude', 'sonnet', 'hello'),
      (e) => events.push(e),
      new AbortController().signal,
    );

    expect(result.structured).toMatchObject({ answer: 'done' });
    const shown = events.flatMap((e) => ('text' in e ? [e.text] : []));
    expect(shown).toContain('Writing the answer');
    expect(shown.join('\n')).not.toContain('StructuredOutput');
  });
});
