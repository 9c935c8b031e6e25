import { existsSync } from 'node:fs';
import type { SimpleGit } from 'simple-git';
import { sanitizeText } from '../../domain/sanitize.js';
import { runGit, subcommand } from './simple.js';

/** A git command that failed, in words (sanitized: git quotes file names, hooks and remotes). */
export class GitError extends Error {
  readonly kind = 'git' as const;
  readonly stderr: string;
  constructor(
    readonly args: readonly string[],
    readonly exitCode: number | null,
    stderr: string,
    message: string,
  ) {
    super(sanitizeText(message));
    this.stderr = sanitizeText(stderr);
    this.name = 'GitError';
  }
}

export interface RunOptions {
  readonly cwd: string;
  readonly env?: Readonly<Record<string, string>>;
  readonly signal?: AbortSignal;
  /** Exit codes that are answers, not failures (e.g. 1 for merge-tree conflicts). */
  readonly okCodes?: readonly number[];
  readonly input?: string;
  readonly timeoutMs?: number;
}

export interface RunResult {
  readonly stdout: string;
  readonly stderr: string;
  readonly exitCode: number;
}

const MAX_STDERR = 4000;

function summarize(args: readonly string[], stderr: string, exitCode: number | null): string {
  const lines = stderr
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('hint:'));
  const reason =
    lines.find((l) => /^(fatal|error|!|remote:)/.test(l)) ??
    lines[lines.length - 1] ??
    `exit code ${exitCode ?? 'unknown'}`;
  return `git ${subcommand(args)} failed: ${reason.replace(/^(fatal|error): /, '')}`;
}

/**
 * Runs git with an argument array (never a shell string), through simple-git
 * (see simple.ts): the client's environment under GIT_ENV, a stop signal, a
 * timeout without output (default 2 minutes), and the Grove-wide limit on git
 * processes. A failing exit code throws a GitError in words unless `okCodes`
 * lists it as an answer.
 */
export async function git(args: readonly string[], options: RunOptions): Promise<RunResult> {
  const result = await run(args, options, (sg) => sg.raw([...args]));
  return { stdout: result.value, stderr: result.stderr, exitCode: result.exitCode };
}

/**
 * Runs one of simple-git's typed commands (`args` names what it runs, for the
 * process limit and the error's words) and returns its parsed result.
 */
export async function gitTask<T>(
  args: readonly string[],
  options: RunOptions,
  task: (git: SimpleGit) => Promise<T>,
): Promise<T> {
  return (await run(args, options, task)).value;
}

async function run<T>(
  args: readonly string[],
  options: RunOptions,
  task: (git: SimpleGit) => Promise<T>,
): Promise<{ value: T; stderr: string; exitCode: number }> {
  const outcome = await runGit(
    args,
    {
      cwd: options.cwd,
      env: options.env,
      signal: options.signal,
      input: options.input,
      timeoutMs: options.timeoutMs ?? 120_000,
    },
    task,
  );
  const name = subcommand(args);
  switch (outcome.kind) {
    case 'stopped':
      throw new GitError(
        args,
        null,
        '',
        outcome.reason === 'signal'
          ? `git ${name} was stopped.`
          : outcome.reason === 'timeout'
            ? `git ${name} was stopped after ${Math.round((options.timeoutMs ?? 120_000) / 1000)} s without output.`
            : `git ${name} was killed.`,
      );
    case 'not-started':
      if (!existsSync(options.cwd))
        throw new GitError(args, null, '', `The folder ${options.cwd} no longer exists.`);
      throw new GitError(args, null, '', 'git is not installed (not found on PATH).');
    case 'exited': {
      const { exitCode, stderr } = outcome;
      if (exitCode !== 0 && !(options.okCodes ?? []).includes(exitCode)) {
        const tail = stderr.length > MAX_STDERR ? stderr.slice(-MAX_STDERR) : stderr;
        throw new GitError(
          args,
          exitCode,
          tail,
          summarize(
            args,
            stderr || (typeof outcome.value === 'string' ? outcome.value : ''),
            exitCode,
          ),
        );
      }
      return outcome;
    }
  }
}

export async function gitOut(args: readonly string[], options: RunOptions): Promise<string> {
  return (await git(args, options)).stdout.trim();
}
