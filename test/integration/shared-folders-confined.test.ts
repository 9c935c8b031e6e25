import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLauncher } from '../../src/infra/agent/confine/launcher.js';
import { agentEnv } from '../helpers/agent-env.js';
import { startFakeModelServer, type FakeModelServer } from '../helpers/fake-model/server.js';
import { realCliPath } from '../helpers/real-clis.js';

// A worktree's shared folder linked into the main checkout (worktree.shared
// in symlink mode) stays read-only to a real agent CLI run by the confined
// launcher, even where the main checkout lies inside a folder the agent may
// write (here HOME/.cache, which the CLIs share): the agent, with every
// permission check of its own off, writes through the link and is stopped
// by the operating system.

let server: FakeModelServer;
let dir: string;
let home: string;
let main: string;
let worktree: string;

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
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'grove-shared-confined-')));
  home = join(dir, 'home');
  main = join(home, '.cache', 'project');
  worktree = join(dir, 'wt');
  mkdirSync(main, { recursive: true });
  git(main, 'init', '-q', '-b', 'main');
  writeFileSync(join(main, '.gitignore'), 'node_modules\n');
  git(main, 'add', '-A');
  git(main, 'commit', '-q', '-m', 'init');
  mkdirSync(join(main, 'node_modules', 'left-pad'), { recursive: true });
  writeFileSync(join(main, 'node_modules', 'left-pad', 'index.js'), 'module.exports = 1;\n');
  git(main, 'worktree', 'add', '-q', '-b', 'grove/s1', worktree);
  symlinkSync(join(main, 'node_modules'), join(worktree, 'node_modules'), 'dir');
  server.setWorkdir(worktree);
});

afterEach(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
});

/** The real Claude Code CLI, its own checks off, runs `command` in the worktree through the launcher. */
async function runAgent(shared: readonly string[]): Promise<void> {
  const command = [
    'echo in > inside.txt',
    'echo hacked > node_modules/left-pad/index.js',
    'echo new > node_modules/added.js',
    'rm -rf node_modules/left-pad',
    'true',
  ].join('; ');
  server.script('anthropic', [{ toolCall: { kind: 'shell', command } }, { text: 'done' }]);
  const launcher = createLauncher({
    runDir: null,
    allowUnconfined: () => Promise.resolve(false),
    sharedFolders: (checkout) => Promise.resolve(checkout === main ? shared : []),
  });
  const proc = await launcher.launch({
    provider: 'claude',
    command: realCliPath('claude'),
    args: [
      '-p',
      'Run the command',
      '--output-format',
      'stream-json',
      '--verbose',
      '--dangerously-skip-permissions',
      '--model',
      'sonnet',
    ],
    cwd: worktree,
    mainCheckout: main,
    env: agentEnv(server, home, { IS_SANDBOX: '1' }),
  });
  proc.child.stdin.end();
  proc.child.stdout.resume();
  const exit = await proc.exited;
  expect(exit.code, proc.stderrTail()).toBe(0);
  expect(readFileSync(join(worktree, 'inside.txt'), 'utf8')).toBe('in\n');
}

describe('a shared folder linked into the main checkout', () => {
  it('is read-only to the agent: writes through the link do not reach the main checkout', async () => {
    await runAgent(['node_modules']);

    expect(readFileSync(join(main, 'node_modules', 'left-pad', 'index.js'), 'utf8')).toBe(
      'module.exports = 1;\n',
    );
    expect(existsSync(join(main, 'node_modules', 'added.js'))).toBe(false);
  });

  // The control: the same setup without the setting leaks, so the test above proves the protection.
  it('is writable through the link when the folder is not listed in the setting', async () => {
    await runAgent([]);

    expect(readFileSync(join(main, 'node_modules', 'added.js'), 'utf8')).toBe('new\n');
    expect(existsSync(join(main, 'node_modules', 'left-pad'))).toBe(false);
  });
});
