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
import { createLauncher } from '../../src/infra/agent/confine/launcher.js';
import { agentEnv } from '../helpers/agent-env.js';
import {
  startFakeModelServer,
  type ApiName,
  type FakeModelServer,
} from '../helpers/fake-model/server.js';
import { realCliPath } from '../helpers/real-clis.js';

// The agent writes only what is its own (docs/reliability.md, "What each
// agent can write"): each real CLI, with its own permission checks and
// sandbox off, runs a hostile shell command as a tool call of the scripted
// model, through Grove's launcher. Of the shared git folder only its admin
// folder, the object store and its own branch are writable; of the CLI's
// home only its session store; protected paths stay read-only whether or
// not they existed.

interface Cli {
  readonly provider: BuiltinProviderId;
  readonly api: ApiName;
  /** The CLI run once with every permission check of its own off. */
  args(prompt: string): string[];
}

const CLAUDE: Cli = {
  provider: 'claude',
  api: 'anthropic',
  args: (prompt) => [
    '-p',
    prompt,
    '--output-format',
    'stream-json',
    '--verbose',
    '--dangerously-skip-permissions',
    '--model',
    'sonnet',
  ],
};
const CODEX: Cli = {
  provider: 'codex',
  api: 'openai',
  args: (prompt) => [
    'exec',
    '--json',
    '-m',
    'gpt-5.5',
    '--dangerously-bypass-approvals-and-sandbox',
    '--skip-git-repo-check',
    prompt,
  ],
};
const GEMINI: Cli = {
  provider: 'gemini',
  api: 'gemini',
  args: (prompt) => ['-p', prompt, '-o', 'stream-json', '--yolo', '-m', 'gemini-test'],
};

const IDENTITY = {
  GIT_AUTHOR_NAME: 't',
  GIT_AUTHOR_EMAIL: 't@t',
  GIT_COMMITTER_NAME: 't',
  GIT_COMMITTER_EMAIL: 't@t',
};

let server: FakeModelServer;
let dir: string;
let main: string;
let common: string;
let worktree: string;
let home: string;
let initial: string;

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, HOME: home },
  }).trim();
}

beforeEach(async () => {
  server = await startFakeModelServer();
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'grove-own-paths-')));
  main = join(dir, 'project');
  common = join(main, '.git');
  worktree = join(dir, 'wt');
  home = join(dir, 'home');
  mkdirSync(home);
  writeFileSync(join(home, '.gitconfig'), '[user]\n\tname = t\n\temail = t@t\n');
  mkdirSync(main);
  git(main, 'init', '-q', '-b', 'main');
  writeFileSync(join(main, 'README.md'), '# project\n');
  git(main, 'add', '-A');
  git(main, 'commit', '-q', '-m', 'init');
  initial = git(main, 'rev-parse', 'main');
  git(main, 'worktree', 'add', '-q', '-b', 'grove/s1', worktree);
  git(main, 'worktree', 'add', '-q', '-b', 'grove/s2', join(dir, 'other'));
  server.setWorkdir(worktree);
});

afterEach(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
});

/** The CLI runs `command` as its one tool call, confined; resolves when it has exited. */
async function agentRuns(cli: Cli, command: string): Promise<void> {
  // The marker proves the command ran (a refusal is not the CLI skipping it).
  const marked = `${command}; echo ran > ran.txt`;
  server.script(cli.api, [{ toolCall: { kind: 'shell', command: marked } }, { text: 'done' }]);
  const launcher = createLauncher({ runDir: null, allowUnconfined: () => Promise.resolve(false) });
  const proc = await launcher.launch({
    provider: cli.provider,
    command: realCliPath(cli.provider),
    args: cli.args('Run the command'),
    cwd: worktree,
    mainCheckout: main,
    // Gemini CLI's shell ignores ~/.gitconfig (GIT_CONFIG_GLOBAL=/dev/null): the identity as variables.
    env: agentEnv(server, home, { IS_SANDBOX: '1', ...IDENTITY }),
  });
  proc.child.stdin.end();
  proc.child.stdout.resume();
  const exit = await proc.exited;
  expect(exit.code, proc.stderrTail()).toBe(0);
  expect(server.modelRequests(cli.api).length).toBeGreaterThanOrEqual(2);
  expect(read(join(worktree, 'ran.txt'))).toBe('ran\n');
}

const read = (path: string): string | null =>
  existsSync(path) ? readFileSync(path, 'utf8') : null;

/** Commits the agent's own change, then runs `then` (a hostile write). */
const afterCommit = (then: string): string =>
  `echo evil > evil.txt && git add evil.txt && git commit -q -m evil; ${then}; true`;

describe.each([CLAUDE, CODEX, GEMINI])('$provider, confined', (cli) => {
  it('commits on its own branch; Grove commits there after it', async () => {
    await agentRuns(cli, 'echo mine > mine.txt && git add mine.txt && git commit -q -m mine');

    expect(git(main, 'log', '-1', '--format=%s', 'grove/s1')).toBe('mine');
    expect(git(main, 'log', '-1', '--format=%H', 'main')).toBe(initial);
    writeFileSync(join(worktree, 'grove.txt'), 'grove\n');
    git(worktree, 'add', 'grove.txt');
    git(worktree, 'commit', '-q', '-m', 'grove');
    expect(git(main, 'log', '-1', '--format=%s', 'grove/s1')).toBe('grove');
  });
});

describe('the shared git folder, written by a hostile agent', () => {
  const routes: readonly {
    readonly what: string;
    readonly cli: Cli;
    readonly before?: () => void;
    readonly command: () => string;
    readonly check: () => void;
  }[] = [
    {
      what: 'moves main to its own commit with git update-ref',
      cli: CLAUDE,
      command: () => afterCommit('git update-ref refs/heads/main HEAD'),
      check: () => {
        expect(git(main, 'rev-parse', 'main')).toBe(initial);
        expect(git(main, 'log', '-1', '--format=%s', 'grove/s1')).toBe('evil');
      },
    },
    {
      what: 'writes the ref file of main',
      cli: CODEX,
      command: () => afterCommit(`git rev-parse HEAD > '${common}/refs/heads/main'`),
      check: () => expect(git(main, 'rev-parse', 'main')).toBe(initial),
    },
    {
      what: 'writes packed-refs',
      cli: CLAUDE,
      command: () =>
        afterCommit(`echo "$(git rev-parse HEAD) refs/tags/v1" >> '${common}/packed-refs'`),
      check: () => expect(read(join(common, 'packed-refs')) ?? '').not.toContain('refs/tags/v1'),
    },
    {
      what: 'writes info/attributes',
      cli: GEMINI,
      command: () => `mkdir -p '${common}/info'; echo '* -diff' > '${common}/info/attributes'`,
      check: () => expect(read(join(common, 'info', 'attributes'))).toBeNull(),
    },
    {
      what: "writes the main checkout's index",
      cli: CODEX,
      command: () => `printf broken > '${common}/index'`,
      check: () => expect(git(main, 'status', '--porcelain')).toBe(''),
    },
    {
      what: "writes another session's admin folder",
      cli: GEMINI,
      command: () => `echo ${'0'.repeat(40)} > '${common}/worktrees/other/HEAD'`,
      check: () => expect(git(join(dir, 'other'), 'rev-parse', 'HEAD')).toBe(initial),
    },
    {
      what: 'creates a pre-commit hook in a repository that has no hooks folder',
      cli: CLAUDE,
      before: () => rmSync(join(common, 'hooks'), { recursive: true, force: true }),
      command: () =>
        `mkdir -p '${common}/hooks'; printf '#!/bin/sh\\ntouch pwned\\n' > '${common}/hooks/pre-commit'; chmod +x '${common}/hooks/pre-commit'`,
      check: () => expect(existsSync(join(common, 'hooks', 'pre-commit'))).toBe(false),
    },
    {
      what: "rewrites its own admin folder's commondir",
      cli: CODEX,
      command: () => `echo '${dir}' > '${common}/worktrees/wt/commondir'`,
      check: () => expect(read(join(common, 'worktrees', 'wt', 'commondir'))).toBe('../..\n'),
    },
  ];

  it.each(routes)('$what: refused ($cli.provider)', async (route) => {
    route.before?.();

    await agentRuns(route.cli, route.command());

    route.check();
    expect(existsSync(join(worktree, 'pwned'))).toBe(false);
  });
});

describe("the CLIs' user config, written by a hostile agent", () => {
  it('Claude Code: cannot create ~/.claude/settings.json in a fresh HOME', async () => {
    await agentRuns(
      CLAUDE,
      `mkdir -p '${home}/.claude'; echo '{"hooks":{}}' > '${home}/.claude/settings.json'`,
    );

    expect(existsSync(join(home, '.claude', 'settings.json'))).toBe(false);
  });

  it('Claude Code: an mcpServers entry written to ~/.claude.json leaves the real file unchanged', async () => {
    const before = JSON.stringify({ numStartups: 1 });
    writeFileSync(join(home, '.claude.json'), before);

    await agentRuns(
      CLAUDE,
      `echo '{"mcpServers":{"evil":{"command":"touch","args":["pwned"]}}}' > '${home}/.claude.json' && cp '${home}/.claude.json' seen.json`,
    );

    expect(read(join(home, '.claude.json'))).toBe(before);
    // The agent wrote its own copy, which Claude Code reads and writes during the launch.
    expect(read(join(worktree, 'seen.json'))).toContain('mcpServers');
  });

  it('Codex: cannot change config.toml or add instructions, rules or hooks', async () => {
    const codex = join(home, '.codex');
    const command = [
      `echo 'notify = ["touch", "pwned"]' >> '${codex}/config.toml'`,
      `echo evil > '${codex}/AGENTS.md'`,
      `echo '{}' > '${codex}/hooks.json'`,
      `mkdir -p '${codex}/rules'; echo evil > '${codex}/rules/evil.rules'`,
    ].join('; ');

    await agentRuns(CODEX, command);

    expect(read(join(codex, 'config.toml'))).not.toContain('notify');
    for (const name of ['AGENTS.md', 'hooks.json', 'rules'])
      expect(existsSync(join(codex, name)), name).toBe(false);
    expect(existsSync(join(codex, 'sessions'))).toBe(true);
  });

  it('Gemini CLI: cannot add a .env, an extension or settings', async () => {
    const gemini = join(home, '.gemini');
    const command = [
      `echo NODE_OPTIONS=--require=/tmp/evil.js > '${gemini}/.env'`,
      `mkdir -p '${gemini}/extensions/evil'`,
      `echo '{}' > '${gemini}/settings.json'`,
    ].join('; ');

    await agentRuns(GEMINI, command);

    expect(existsSync(join(gemini, '.env'))).toBe(false);
    expect(existsSync(join(gemini, 'extensions'))).toBe(false);
    expect(read(join(gemini, 'settings.json'))).not.toBe('{}\n');
    expect(existsSync(join(gemini, 'projects.json'))).toBe(true);
  });
});
