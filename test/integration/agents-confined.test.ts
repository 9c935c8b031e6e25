import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BuiltinProviderId } from '../../src/domain/providers.js';
import type { AgentChannel, TurnRequest } from '../../src/infra/agent/channel.js';
import { createClaudeChannel } from '../../src/infra/agent/claude/claude.js';
import { createCodexChannel } from '../../src/infra/agent/codex/codex.js';
import { createGeminiChannel } from '../../src/infra/agent/gemini/gemini.js';
import { createLauncher } from '../../src/infra/agent/confine/launcher.js';
import { agentEnv } from '../helpers/agent-env.js';
import {
  startFakeModelServer,
  type ApiName,
  type FakeModelServer,
} from '../helpers/fake-model/server.js';
import { realCliPath } from '../helpers/real-clis.js';

// Operating-system confinement with each real agent CLI (bubblewrap here):
// the scripted model runs a shell command that writes inside the session's
// worktree, into the main checkout and into $HOME. Only the first write
// lands — through Grove's channels, and with the CLI's own permission
// checks and sandbox turned off, so the operating system is what stops it.

interface Case {
  readonly provider: BuiltinProviderId;
  readonly api: ApiName;
  readonly model: string;
  channel(env: Record<string, string>, binary: string): AgentChannel;
  /** The CLI run once, every permission check of its own off. */
  permissive(prompt: string): string[];
}

const CASES: readonly Case[] = [
  {
    provider: 'claude',
    api: 'anthropic',
    model: 'sonnet',
    channel: (env, bin) => createClaudeChannel({ env, turnTimeoutMs: 60_000 }, bin),
    permissive: (prompt) => [
      '-p',
      prompt,
      '--output-format',
      'stream-json',
      '--verbose',
      '--dangerously-skip-permissions',
      '--model',
      'sonnet',
    ],
  },
  {
    provider: 'codex',
    api: 'openai',
    model: 'gpt-5.5',
    channel: (env, bin) => createCodexChannel({ env, turnTimeoutMs: 60_000 }, bin),
    permissive: (prompt) => [
      'exec',
      '--json',
      '-m',
      'gpt-5.5',
      '--dangerously-bypass-approvals-and-sandbox',
      '--skip-git-repo-check',
      prompt,
    ],
  },
  {
    provider: 'gemini',
    api: 'gemini',
    model: 'gemini-test',
    channel: (env, bin) => createGeminiChannel({ env, turnTimeoutMs: 60_000 }, bin),
    permissive: (prompt) => ['-p', prompt, '-o', 'stream-json', '--yolo', '-m', 'gemini-test'],
  },
];

const REPLY = JSON.stringify({ answer: 'done', questions: [], summary: null });

let server: FakeModelServer;
let dir: string;
let main: string;
let worktree: string;
let home: string;
let channel: AgentChannel | null = null;

function git(cwd: string, ...args: string[]): void {
  execFileSync('git', args, {
    cwd,
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@t',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@t',
    },
  });
}

beforeEach(async () => {
  server = await startFakeModelServer();
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'grove-confined-')));
  main = join(dir, 'project');
  worktree = join(dir, 'wt');
  home = join(dir, 'home');
  mkdirSync(main);
  git(main, 'init', '-q', '-b', 'main');
  writeFileSync(join(main, 'README.md'), '# project\n');
  git(main, 'add', '-A');
  git(main, 'commit', '-q', '-m', 'init');
  git(main, 'worktree', 'add', '-q', '-b', 'grove/s1', worktree);
  server.setWorkdir(worktree);
});

afterEach(async () => {
  await channel?.shutdown();
  channel = null;
  await server.close();
  rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
});

/** A shell command that writes into the main checkout and into $HOME. */
function escapes(): string {
  return `echo out > '${main}/escaped.txt'; echo out > '${home}/escaped.txt'; true`;
}

/** One shell command: a write inside the worktree, then the escapes. */
function writes(): string {
  return `echo in > inside.txt; ${escapes()}`;
}

function request(c: Case): TurnRequest {
  return {
    sessionId: 'session-1',
    cwd: worktree,
    mainCheckout: main,
    prompt: 'Run the command',
    kind: 'session_start',
    model: c.model,
    reasoning: c.provider === 'gemini' ? 'default' : 'high',
    permissionMode: 'auto_edit',
    providerConversationId: null,
    outputSchema: null,
  };
}

function expectConfined(): void {
  expect(readFileSync(join(worktree, 'inside.txt'), 'utf8')).toBe('in\n');
  expect(existsSync(join(main, 'escaped.txt'))).toBe(false);
  expect(existsSync(join(home, 'escaped.txt'))).toBe(false);
}

describe.each(CASES)('$provider, confined by the operating system', (c) => {
  const binary = realCliPath(c.provider);

  it("runs shell commands through Grove's channel: the write in the worktree lands, the writes outside do not", async () => {
    server.script(c.api, [
      { toolCall: { kind: 'shell', command: 'echo in > inside.txt' } },
      { toolCall: { kind: 'shell', command: escapes() } },
      { text: REPLY },
    ]);
    channel = c.channel(agentEnv(server, home), binary);

    await channel.runTurn(request(c), () => {}, new AbortController().signal);

    expect(server.modelRequests(c.api).length).toBeGreaterThanOrEqual(3);
    expectConfined();
  });

  it('with its own permission checks and sandbox off, still cannot write outside the worktree', async () => {
    server.script(c.api, [{ toolCall: { kind: 'shell', command: writes() } }, { text: 'done' }]);
    const launcher = createLauncher({
      runDir: null,
      allowUnconfined: () => Promise.resolve(false),
    });
    const proc = await launcher.launch({
      provider: c.provider,
      command: binary,
      args: c.permissive('Run the command'),
      cwd: worktree,
      env: agentEnv(server, home, { IS_SANDBOX: '1' }),
    });
    proc.child.stdin.end();
    proc.child.stdout.resume();

    const exit = await proc.exited;

    expect(exit.code, proc.stderrTail()).toBe(0);
    expectConfined();
  });
});
