import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { processesWithEnv, type ProcessInfo } from './processes.js';
import { TmuxTerminal } from './tmux.js';
import { REAL_CLI_BIN } from './real-clis.js';

export const ROOT = resolve(import.meta.dirname, '..', '..');
export const GROVE_BIN = join(ROOT, 'dist', 'grove.js');

/** Sleeps without giving the event loop back (a test's synchronous clean-up). */
function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * Removes a test's world once nothing of it runs. A Grove ended by its
 * terminal finishes its shutdown (the log, the database, its agents' ends)
 * on its own time, and an ending agent CLI flushes its state into HOME: on
 * a loaded machine that can outlast the terminal by seconds, and a folder
 * that gains a file while it is removed fails the removal. So wait (at most
 * 15 s) for every process of this world to end, stop any left, then remove.
 */
function removeWorld(dir: string, markers: readonly string[]): void {
  endWorldProcesses(markers);
  rmSync(dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 50 });
}

function endWorldProcesses(markers: readonly string[]): void {
  const running = (): ProcessInfo[] => markers.flatMap((marker) => processesWithEnv(marker));
  const deadline = Date.now() + 15_000;
  while (running().length > 0 && Date.now() < deadline) pause(100);
  for (const p of running()) {
    try {
      process.kill(p.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

/**
 * A copy of the world's folder as it is now, for a file whose tests all start
 * from the same costly state (a session after a real agent's turn): made once,
 * then `restore()` before each test puts the folder back exactly so, at the
 * same path (git's worktrees, the database and the agent CLIs' state in HOME
 * name absolute paths), once nothing of the previous test runs in it. No test
 * sees what another changed.
 */
export function snapshotWorld(world: GroveWorld): { restore(): void; drop(): void } {
  const markers = [`GROVE_HOME=${world.groveHome}`, `HOME=${world.home}`];
  endWorldProcesses(markers);
  const archive = join(mkdtempSync(join(tmpdir(), 'grove-snapshot-')), 'world.tar');
  execFileSync('tar', ['-C', world.dir, '-cf', archive, '.']);
  return {
    restore: () => {
      removeWorld(world.dir, markers);
      mkdirSync(world.dir);
      execFileSync('tar', ['-C', world.dir, '-xf', archive]);
    },
    drop: () => rmSync(join(archive, '..'), { recursive: true, force: true }),
  };
}

/** A private world for one test: HOME, GROVE_HOME and a folder for repositories. */
export interface GroveWorld {
  readonly dir: string;
  readonly home: string;
  readonly groveHome: string;
  readonly bin: string;
  env(extra?: Record<string, string>): Record<string, string>;
  cleanup(): void;
}

export function makeWorld(): GroveWorld {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'grove-e2e-')));
  const home = join(dir, 'home');
  const groveHome = join(dir, 'grove-home');
  const bin = join(dir, 'bin');
  mkdirSync(home, { recursive: true });
  mkdirSync(bin, { recursive: true });
  writeFileSync(
    join(home, '.gitconfig'),
    '[user]\n\tname = Grove Test\n\temail = test@grove.invalid\n[init]\n\tdefaultBranch = main\n',
  );
  return {
    dir,
    home,
    groveHome,
    bin,
    env: (extra = {}) => ({
      PATH: `${bin}:${process.env['PATH'] ?? '/usr/bin:/bin'}`,
      HOME: home,
      GROVE_HOME: groveHome,
      TERM: 'xterm-256color',
      LANG: 'C.UTF-8',
      ...extra,
    }),
    cleanup: () => removeWorld(dir, [`GROVE_HOME=${groveHome}`, `HOME=${home}`]),
  };
}

/** A git repository with one commit on main (and optionally a bare origin). */
export function makeRepo(world: GroveWorld, name = 'project', withOrigin = false): string {
  const repo = join(world.dir, name);
  mkdirSync(repo, { recursive: true });
  const git = (...args: string[]): string =>
    execFileSync('git', args, {
      cwd: repo,
      env: { ...process.env, HOME: world.home },
      encoding: 'utf8',
    });
  git('init', '-q', '-b', 'main');
  writeFileSync(join(repo, 'README.md'), `# ${name}\n`);
  git('add', '-A');
  git('commit', '-q', '-m', 'Initial commit');
  if (withOrigin) {
    const origin = join(world.dir, `${name}-origin.git`);
    execFileSync('git', ['init', '-q', '--bare', '-b', 'main', origin]);
    git('remote', 'add', 'origin', origin);
    git('push', '-q', '-u', 'origin', 'main');
  }
  return repo;
}

export async function startGrove(
  world: GroveWorld,
  cwd: string,
  options: { args?: string[]; env?: Record<string, string>; columns?: number; rows?: number } = {},
): Promise<TmuxTerminal> {
  return TmuxTerminal.start({
    command: [process.execPath, GROVE_BIN, ...(options.args ?? [])],
    cwd,
    env: world.env(options.env),
    columns: options.columns ?? 110,
    rows: options.rows ?? 30,
  });
}

/** Env for a Grove whose agents are the real CLIs talking to the fake model server. */
export function agentWorldEnv(
  world: GroveWorld,
  agentVars: Record<string, string>,
): Record<string, string> {
  return {
    ...agentVars,
    PATH: `${REAL_CLI_BIN}:${world.bin}:${process.env['PATH'] ?? '/usr/bin:/bin'}`,
    GROVE_HOME: world.groveHome,
    TERM: 'xterm-256color',
  };
}

export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();
}

/** Starts a session the way a person does: `a`, the task, Enter. */
export async function newSession(t: TmuxTerminal, prompt: string): Promise<void> {
  await t.keys('a');
  await t.waitFor('Task for the agent');
  await t.type(prompt);
  await t.keys('Enter');
}

/** What a headless `grove` run printed, and how it ended. */
export interface GroveRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** stdout and stderr in the order they came (for failure messages). */
  readonly out: string;
}

/** Runs `node dist/grove.js ...args` in `cwd` with `env` to the end (stdin closed). */
export function runGrove(
  env: Record<string, string>,
  cwd: string,
  args: readonly string[],
): Promise<GroveRun> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [GROVE_BIN, ...args], {
      cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => ((stdout += d), (out += d)));
    child.stderr.setEncoding('utf8').on('data', (d: string) => ((stderr += d), (out += d)));
    child.on('close', (code) => resolve({ code, stdout, stderr, out }));
  });
}
