// The engine under Grove's git layer: simple-git.
//
// Every git command runs through `runGit`, in a simple-git instance made for
// that one command: its folder, environment, stop signal, timeout and stdin
// belong to it alone (a shared instance's `.cwd()` and `.env()` would leak
// between concurrent callers). What is shared is the limit: at most
// GIT_PROCESS_LIMITS git processes run at once across all of Grove, however
// many sessions, pollers and clients ask at the same moment.
import { AsyncLocalStorage } from 'node:async_hooks';
import type * as simpleGitModule from 'simple-git';
import type { SimpleGit, SimpleGitOptions } from 'simple-git';
import { GIT_ENV } from './env.js';
import type { GitLocator } from './location.js';

type SimpleGitModule = typeof simpleGitModule;

let loading: Promise<SimpleGitModule> | undefined;

/** simple-git, imported on first use: nothing before the first frame runs git through it. */
function loadSimpleGit(): Promise<SimpleGitModule> {
  loading ??= import('simple-git');
  return loading;
}

/**
 * How many git processes Grove runs at once, per lane. Quick commands (status,
 * rev-parse, diff, for-each-ref, merge-tree…) never wait behind slow ones
 * (hooks, the network, checkouts), so a burst of commits or a hanging fetch
 * cannot stall the pollers.
 */
export const GIT_PROCESS_LIMITS = { quick: 4, slow: 4 } as const;

export type GitLane = keyof typeof GIT_PROCESS_LIMITS;

const SLOW_COMMANDS = new Set([
  'checkout',
  'cherry-pick',
  'clone',
  'commit',
  'fetch',
  'gc',
  'merge',
  'pull',
  'push',
  'rebase',
  'revert',
  'submodule',
  'worktree',
]);

/** The sub-command of `args`, after any leading `-c key=value` pairs. */
export function subcommand(args: readonly string[]): string {
  let i = 0;
  while (args[i] === '-c') i += 2;
  return args[i] ?? '';
}

export function laneOf(args: readonly string[]): GitLane {
  return SLOW_COMMANDS.has(subcommand(args)) ? 'slow' : 'quick';
}

/** Thrown by `Limiter.acquire` when the caller's signal fires while it waits for a turn. */
class StoppedWhileWaiting extends Error {}

/** A counting semaphore: at most `limit` holders; the rest wait in order. */
class Limiter {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly limit: number) {}

  acquire(signal: AbortSignal | undefined): Promise<void> {
    if (signal?.aborted) return Promise.reject(new StoppedWhileWaiting());
    if (this.active < this.limit) {
      this.active++;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const grant = (): void => {
        signal?.removeEventListener('abort', stop);
        this.active++;
        resolve();
      };
      const stop = (): void => {
        const at = this.waiting.indexOf(grant);
        if (at >= 0) this.waiting.splice(at, 1);
        reject(new StoppedWhileWaiting());
      };
      this.waiting.push(grant);
      signal?.addEventListener('abort', stop, { once: true });
    });
  }

  release(): void {
    this.active--;
    this.waiting.shift()?.();
  }
}

const limiters: Record<GitLane, Limiter> = {
  quick: new Limiter(GIT_PROCESS_LIMITS.quick),
  slow: new Limiter(GIT_PROCESS_LIMITS.slow),
};

/** What a GitClient gives every command it starts. */
export interface GitContext {
  /** The environment (GIT_ENV and a command's own variables go on top); absent: `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>> | undefined;
  /** Where a known worktree's git folders are (location.ts); absent: git finds them. */
  readonly locator?: GitLocator | undefined;
}

const clientContext = new AsyncLocalStorage<GitContext>();

/**
 * Runs `fn` with `context` for every git command it starts.
 * `createGitClient` wraps each of its methods in this; outside it git gets
 * `process.env` and finds its folders itself. The environment object is
 * read at each command, as `process.env` would be.
 */
export function withGitContext<T>(context: GitContext, fn: () => T): T {
  return clientContext.run(context, fn);
}

/**
 * Settings on every git command Grove runs, whatever the repository's
 * config says. An agent writes files that git reads: a tracked hooks folder
 * (husky, `core.hooksPath=.githooks`), hooks it could create, a program named
 * for `core.fsmonitor`. Grove's git runs as the person, outside the sandbox,
 * so it runs none of them: no hooks (`/dev/null/<hook>` is never found) and
 * no file-system monitor. `-c` reaches the git processes git itself starts.
 */
export const SAFE_GIT_CONFIG: readonly string[] = [
  'core.hooksPath=/dev/null',
  'core.fsmonitor=false',
];

/** Variables that would send git to other folders than Grove chose, or run other programs. */
const LOCATION_VARIABLES = [
  'GIT_DIR',
  'GIT_COMMON_DIR',
  'GIT_WORK_TREE',
  'GIT_INDEX_FILE',
  'GIT_OBJECT_DIRECTORY',
  'GIT_ALTERNATE_OBJECT_DIRECTORIES',
  'GIT_EXTERNAL_DIFF',
];

async function environment(
  cwd: string,
  extra: Readonly<Record<string, string>> | undefined,
): Promise<Record<string, string>> {
  const context = clientContext.getStore();
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(context?.env ?? process.env))
    if (value !== undefined) env[key] = value;
  for (const key of LOCATION_VARIABLES) delete env[key];
  const location = context?.locator ? await context.locator.locate(cwd) : null;
  return Object.assign(env, GIT_ENV, location, extra);
}

// simple-git guards against hostile arguments and environments, for apps that
// pass input from outside into git. Grove passes only argument arrays it builds
// itself, in the person's own environment (their EDITOR, GIT_SSH_COMMAND,
// credential helpers and hooks must keep working), so every guard is off; the
// type lists each one, so a new simple-git guard shows up as a type error here.
const UNGUARDED: Required<NonNullable<SimpleGitOptions['unsafe']>> = {
  allowAbbreviatedOptions: true,
  allowUnsafeAlias: true,
  allowUnsafeAskPass: true,
  allowUnsafeCommandBinaries: true,
  allowUnsafeConfigEnvCount: true,
  allowUnsafeConfigPaths: true,
  allowUnsafeCredentialHelper: true,
  allowUnsafeCustomBinary: false,
  allowUnsafeDiffExternal: true,
  allowUnsafeDiffTextConv: true,
  allowUnsafeEditor: true,
  allowUnsafeExec: true,
  allowUnsafeFilter: true,
  allowUnsafeFsMonitor: true,
  allowUnsafeGitProxy: true,
  allowUnsafeGpgProgram: true,
  allowUnsafeHooksPath: true,
  allowUnsafeInclude: true,
  allowUnsafeMergeDriver: true,
  allowUnsafePack: true,
  allowUnsafePager: true,
  allowUnsafeProtocolOverride: true,
  allowUnsafeSshCommand: true,
  allowUnsafeSubmodule: true,
  allowUnsafeTemplateDir: true,
  allowUnsafeUrlRewrite: true,
};

/** Closes stdin at once when a command has no input, as `stdin: 'ignore'` would (a hook reading stdin gets EOF). */
const NO_INPUT = Buffer.alloc(0);

/**
 * simple-git waits 50 ms more after a command that printed nothing (a guard
 * for platforms that report the exit before the output). Grove runs many
 * silent commands (`--quiet` checks, `add`, `commit -q`, a clean `status`);
 * an empty chunk when stdout ends tells it the output is complete, before the
 * process's `close` event it waits for anyway.
 */
function outputIsComplete(_command: string, stdout: NodeJS.ReadableStream): void {
  stdout.once('end', () => stdout.emit('data', NO_INPUT));
}

export interface GitRunOptions {
  readonly cwd: string;
  /** Variables for this command only, over the client's environment and GIT_ENV. */
  readonly env?: Readonly<Record<string, string>> | undefined;
  readonly signal?: AbortSignal | undefined;
  readonly input?: string | undefined;
  /** The command is stopped after this long without output (stdout or stderr). */
  readonly timeoutMs: number;
}

/** How a git command ended. `value` is what the simple-git task returned (parsed even when git failed). */
export type GitOutcome<T> =
  | {
      readonly kind: 'exited';
      readonly value: T;
      readonly exitCode: number;
      readonly stderr: string;
    }
  /** By the caller's signal, the timeout, or a signal from outside Grove. */
  | { readonly kind: 'stopped'; readonly reason: 'signal' | 'timeout' | 'killed' }
  /** git could not be started: no such folder, or no git on PATH. */
  | { readonly kind: 'not-started' };

/**
 * Runs one git command through simple-git in `options.cwd`, once its lane
 * (from `args`, which must name the command `task` runs) has a free slot.
 * Exit codes are reported, not thrown: the caller decides which are answers.
 */
export async function runGit<T>(
  args: readonly string[],
  options: GitRunOptions,
  task: (git: SimpleGit) => Promise<T>,
): Promise<GitOutcome<T>> {
  const { simpleGit, GitConstructError, GitPluginError } = await loadSimpleGit();
  const lane = limiters[laneOf(args)];
  try {
    await lane.acquire(options.signal);
  } catch (error) {
    if (error instanceof StoppedWhileWaiting) return { kind: 'stopped', reason: 'signal' };
    throw error;
  }
  try {
    const env = await environment(options.cwd, options.env);
    // Filled in by simple-git's `errors` hook, which sees every command's end.
    let exitCode: number | null = null;
    let stderr = '';
    let stoppedBy: string | undefined;
    let instance: SimpleGit;
    try {
      instance = simpleGit({
        baseDir: options.cwd,
        config: [...SAFE_GIT_CONFIG],
        maxConcurrentProcesses: 1,
        allowEnvironment: Object.keys(env),
        unsafe: UNGUARDED,
        timeout: { block: options.timeoutMs },
        ...(options.signal ? { abort: options.signal } : {}),
        input: () => options.input ?? NO_INPUT,
        errors: (error, result) => {
          // null: killed by a signal (the abort and timeout plugins send SIGINT).
          exitCode = result.exitCode;
          if (error instanceof GitPluginError) stoppedBy = error.plugin;
          stderr = Buffer.concat(result.stdErr).toString('utf8');
          return undefined; // every ending is an answer; the caller reads the code
        },
      })
        .env(env)
        .outputHandler(outputIsComplete);
    } catch (error) {
      if (error instanceof GitConstructError) return { kind: 'not-started' }; // baseDir does not exist
      throw error;
    }
    const value = await task(instance);
    const code = exitCode as number | null;
    if (code === 0) return { kind: 'exited', value, exitCode: code, stderr };
    if (options.signal?.aborted) return { kind: 'stopped', reason: 'signal' };
    if (stoppedBy === 'timeout') return { kind: 'stopped', reason: 'timeout' };
    if (code === null) return { kind: 'stopped', reason: 'killed' };
    // A spawn that failed (no git on PATH, or the folder went away since) ends with -ENOENT.
    if (code === -2 || /spawn \S+ ENOENT/.test(stderr)) return { kind: 'not-started' };
    return { kind: 'exited', value, exitCode: code, stderr };
  } finally {
    lane.release();
  }
}
