// Fault injection for the fault-*.test.ts suites: a `git` on PATH that stops
// at one chosen git command (so a Grove process can be killed with SIGKILL at
// an exact step of its work), Grove processes that run the real service code
// (the built binary, or a bundled harness for work that has no headless
// command), and the checks a test makes after the restart.
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, join } from 'node:path';
import { build } from 'esbuild';
import { openInfra, type Infra } from '../../src/compose.js';
import type { Session } from '../../src/domain/session.js';
import { startGroveApp, type GroveApp } from './grove-app.js';
import { ROOT, git, type GroveWorld } from './grove-env.js';
import { withStore } from './seed.js';

const REAL_GIT = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();

/**
 * Installs a `git` in `world.bin` (first on the PATH Grove gets) that runs
 * the real git, except for the first command matching the pause pattern in
 * GROVE_TEST_GIT_PAUSE: that one writes its pid and command line to the file
 * named by GROVE_TEST_GIT_PAUSED and waits, without running git, until it is
 * killed or released (releasePause: it then runs git as asked). The pattern
 * is a shell glob over "<working folder>|<arguments>" (the arguments
 * after the leading `-c key=value` pairs).
 */
export function installGitPause(world: GroveWorld): void {
  // The arguments are matched without the `-c key=value` pairs Grove puts first on every command.
  const script = `#!/bin/sh
strip() { while [ "$1" = "-c" ]; do shift 2; done; command_line="$*"; }
strip "$@"
if [ -n "$GROVE_TEST_GIT_PAUSE" ] && [ ! -e "$GROVE_TEST_GIT_PAUSED" ]; then
  case "$PWD|$command_line" in
    $GROVE_TEST_GIT_PAUSE)
      echo "$$ $PWD|$command_line" > "$GROVE_TEST_GIT_PAUSED.tmp"
      mv "$GROVE_TEST_GIT_PAUSED.tmp" "$GROVE_TEST_GIT_PAUSED"
      while [ ! -e "$GROVE_TEST_GIT_PAUSED.go" ]; do sleep 0.05; done ;;
  esac
fi
exec ${REAL_GIT} "$@"
`;
  writeFileSync(join(world.bin, 'git'), script, { mode: 0o755 });
}

/** The environment that makes the wrapper pause at `pattern`, and the file it reports to. */
export function pauseAt(
  world: GroveWorld,
  pattern: string,
): { env: Record<string, string>; marker: string } {
  const marker = join(world.dir, `paused-${Math.random().toString(36).slice(2, 8)}`);
  return { env: { GROVE_TEST_GIT_PAUSE: pattern, GROVE_TEST_GIT_PAUSED: marker }, marker };
}

/** Polls until `check` holds; fails naming `what` after `timeoutMs`. */
export async function until<T>(
  what: string,
  check: () => T | null | undefined | false | Promise<T | null | undefined | false>,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== null && value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A Grove process the test will kill. */
export interface Victim {
  readonly child: ChildProcess;
  output(): string;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function startVictim(args: readonly string[], cwd: string, env: Record<string, string>): Victim {
  const child = spawn(process.execPath, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.setEncoding('utf8').on('data', (d: string) => (output += d));
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (output += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal })),
  );
  return { child, output: () => output, exited };
}

/** `node dist/grove.js ...args`. */
export function startGrove(
  args: readonly string[],
  cwd: string,
  env: Record<string, string>,
): Victim {
  return startVictim([join(ROOT, 'dist', 'grove.js'), ...args], cwd, env);
}

/**
 * Waits until the wrapper paused at its step (failing with the victim's
 * output if the victim ended first), then kills the Grove process with
 * SIGKILL and the paused git with it (as a crash of the machine's session
 * would). Returns the paused command line.
 */
export async function killAtPause(victim: Victim, marker: string): Promise<string> {
  const line = await pauseLine(victim, marker);
  victim.child.kill('SIGKILL');
  const result = await victim.exited;
  if (result.signal !== 'SIGKILL')
    throw new Error(
      `the Grove process was not killed (${JSON.stringify(result)}):\n${victim.output()}`,
    );
  try {
    process.kill(Number(line.split(' ')[0]), 'SIGKILL');
  } catch {
    // already gone
  }
  return line.slice(line.indexOf(' ') + 1);
}

/** Waits for the wrapper to pause; returns the paused command line ("<folder>|<arguments>"). */
export async function paused(victim: Victim, marker: string): Promise<string> {
  const line = await pauseLine(victim, marker);
  return line.slice(line.indexOf(' ') + 1);
}

async function pauseLine(victim: Victim, marker: string): Promise<string> {
  let ended = false;
  void victim.exited.then(() => (ended = true));
  return until(`the pause at ${marker}`, () => {
    if (existsSync(marker)) return readFileSync(marker, 'utf8').trim();
    if (ended) throw new Error(`the Grove process ended before the pause:\n${victim.output()}`);
    return null;
  });
}

/** Lets the paused git command run. */
export function releasePause(marker: string): void {
  writeFileSync(`${marker}.go`, '');
}

/**
 * Bundles test/helpers/fault-harness.ts (Grove's app core driven without a
 * screen) into `dir` and returns its path. Native and file-relative
 * packages stay where they are installed; the migrations are linked next to
 * the bundle's folder, where src/compose.ts looks for them.
 */
export async function bundleHarness(dir: string): Promise<string> {
  mkdirSync(join(dir, 'bundle'), { recursive: true });
  if (!existsSync(join(dir, 'migrations')))
    symlinkSync(join(ROOT, 'migrations'), join(dir, 'migrations'));
  const out = join(dir, 'bundle', 'fault-harness.mjs');
  const require = createRequire(join(ROOT, 'package.json'));
  await build({
    entryPoints: [join(ROOT, 'test', 'helpers', 'fault-harness.ts')],
    outfile: out,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22.19',
    jsx: 'automatic',
    logLevel: 'error',
    banner: {
      js: "import { createRequire as __c } from 'node:module'; const require = __c(import.meta.url);",
    },
    plugins: [
      {
        name: 'installed-packages',
        setup(b) {
          b.onResolve({ filter: /^(better-sqlite3|clipboardy)$/ }, (args) => ({
            path: require.resolve(args.path),
            external: true,
          }));
        },
      },
    ],
  });
  return out;
}

/** Runs the bundled harness (`action` as fault-harness.ts reads it). */
export function startHarness(
  bundle: string,
  action: string,
  repo: string,
  env: Record<string, string>,
): Victim {
  return startVictim([bundle, action, repo], repo, env);
}

/** What a checkout looks like after recovery. */
export interface CheckoutState {
  readonly porcelain: string;
  readonly head: string;
  /** Empty on a detached HEAD. */
  readonly branch: string;
  readonly rebasing: boolean;
  readonly merging: boolean;
  readonly staged: string;
}

export function checkoutState(dir: string): CheckoutState {
  const gitDir = git(dir, 'rev-parse', '--absolute-git-dir');
  return {
    porcelain: git(dir, 'status', '--porcelain', '--untracked-files=all'),
    head: git(dir, 'rev-parse', 'HEAD'),
    branch: spawnSync('git', ['symbolic-ref', '--quiet', '--short', 'HEAD'], {
      cwd: dir,
      encoding: 'utf8',
    }).stdout.trim(),
    rebasing: existsSync(join(gitDir, 'rebase-merge')) || existsSync(join(gitDir, 'rebase-apply')),
    merging: existsSync(join(gitDir, 'MERGE_HEAD')) || existsSync(join(gitDir, 'SQUASH_MSG')),
    staged: git(dir, 'diff', '--cached', '--name-only'),
  };
}

/**
 * A session an earlier Grove run left in Review: its worktree under
 * GROVE_HOME/wt on a grove/ branch with one commit holding `files`, and
 * `uncommitted` written but not committed (as an agent leaves them).
 */
export async function seedReviewSession(
  world: GroveWorld,
  repo: string,
  options: { files: Record<string, string>; message: string; uncommitted?: Record<string, string> },
): Promise<Session> {
  const id = `${Math.random().toString(16).slice(2, 10).padEnd(8, '0')}-aaaa-bbbb-cccc-000000000001`;
  const short = id.slice(0, 8);
  const worktree = join(world.groveHome, 'wt', `${basename(repo)}-${short}`);
  const branch = `grove/${short}`;
  mkdirSync(join(world.groveHome, 'wt'), { recursive: true });
  git(repo, 'worktree', 'add', '-q', '-b', branch, worktree, 'main');
  commitFiles(world, worktree, options.files, options.message);
  for (const [path, content] of Object.entries(options.uncommitted ?? {}))
    writeFile(worktree, path, content);
  const head = git(worktree, 'rev-parse', 'HEAD');
  return withStore(world.groveHome, async (store) => {
    const project = await store.projects.upsert(repo, basename(repo), Date.now());
    const now = Date.now();
    await store.sessions.insert({
      id,
      projectId: project.id,
      title: options.message.split('\n')[0] ?? '',
      status: 'Draft',
      baseBranch: 'main',
      branch,
      worktreePath: worktree,
      agent: 'claude',
      model: 'sonnet',
      reasoning: 'high',
      createdAt: now,
      prompt: options.message,
      titleProvisional: false,
    });
    await store.sessions.setStatus(id, 'InProgress', now);
    await store.sessions.update(id, { commitMessage: options.message, headCommit: head }, now);
    await store.sessions.setStatus(id, 'Review', now);
    const session = await store.sessions.get(id);
    if (!session) throw new Error('seeded session missing');
    return session;
  });
}

/** Writes `files` in `dir` and commits them (as the test's git user); returns the commit. */
export function commitFiles(
  world: GroveWorld,
  dir: string,
  files: Record<string, string>,
  message: string,
): string {
  for (const [path, content] of Object.entries(files)) writeFile(dir, path, content);
  const env = { ...process.env, HOME: world.home };
  execFileSync('git', ['add', '-A'], { cwd: dir, env });
  execFileSync('git', ['commit', '-q', '-F', '-'], { cwd: dir, input: message, env });
  return git(dir, 'rev-parse', 'HEAD');
}

/** A clone of `origin` elsewhere commits `files` and pushes them to main. */
export function pushFromElsewhere(
  world: GroveWorld,
  origin: string,
  files: Record<string, string>,
  message: string,
): string {
  const other = join(world.dir, `elsewhere-${Math.random().toString(36).slice(2, 8)}`);
  execFileSync('git', ['clone', '-q', origin, other]);
  const commit = commitFiles(world, other, files, message);
  git(other, 'push', '-q', 'origin', 'main');
  return commit;
}

/** Statuses no session may be left in once recovery ran: something would be working on it. */
export const WORKING_STATUSES = ['InProgress', 'AgentReview', 'Rebasing', 'Merging'] as const;

export function writeFile(dir: string, path: string, content: string): void {
  const full = join(dir, path);
  mkdirSync(join(full, '..'), { recursive: true });
  writeFileSync(full, content);
}

/** A restarted Grove (this process): recovery runs first, as at start-up. */
export interface Restarted extends GroveApp {
  readonly infra: Infra;
  session(id: string): Promise<Session>;
  notices(id: string): Promise<string[]>;
  close(): Promise<void>;
}

export async function restartGrove(world: GroveWorld, repo: string): Promise<Restarted> {
  const infra = openInfra({ ...process.env, HOME: world.home, GROVE_HOME: world.groveHome });
  const started = await startGroveApp(infra, repo);
  return {
    ...started,
    infra,
    async session(id) {
      const session = await infra.store.sessions.get(id);
      if (!session) throw new Error(`no session ${id}`);
      return session;
    },
    async notices(id) {
      return (await infra.store.transcript.list(id))
        .filter((e) => e.kind === 'notice')
        .map((e) => e.content);
    },
    async close() {
      await started.controller.shutdown();
      await infra.db.close();
    },
  };
}
