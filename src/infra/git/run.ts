import { existsSync } from 'node:fs';
import { loadExeca } from '../exec.js';
import { GIT_ENV } from './env.js';

/** A git command that failed, in words. */
export class GitError extends Error {
  readonly kind = 'git' as const;
  constructor(
    readonly args: readonly string[],
    readonly exitCode: number | null,
    readonly stderr: string,
    message: string,
  ) {
    super(message);
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
  const lines = stderr.split('\n').map((l) => l.trim()).filter((l) => l !== '' && !l.startsWith('hint:'));
  const reason = lines.find((l) => /^(fatal|error|!|remote:)/.test(l)) ?? lines[lines.length - 1] ?? `exit code ${exitCode ?? 'unknown'}`;
  return `git ${args[0] ?? ''} failed: ${reason.replace(/^(fatal|error): /, '')}`;
}

/** Runs git with an argument array (never a shell string). */
export async function git(args: readonly string[], options: RunOptions): Promise<RunResult> {
  const { execa } = await loadExeca();
  const result = await execa('git', [...args], {
    cwd: options.cwd,
    env: { ...GIT_ENV, ...options.env },
    reject: false,
    stripFinalNewline: false,
    ...(options.input !== undefined ? { input: options.input } : { stdin: 'ignore' as const }),
    ...(options.signal ? { cancelSignal: options.signal } : {}),
    timeout: options.timeoutMs ?? 120_000,
  });
  const exitCode = result.exitCode ?? -1;
  const stdout = typeof result.stdout === 'string' ? result.stdout : '';
  const stderr = typeof result.stderr === 'string' ? result.stderr : '';
  if (result.isCanceled) throw new GitError(args, null, '', `git ${args[0] ?? ''} was stopped.`);
  if (exitCode !== 0 && !(options.okCodes ?? []).includes(exitCode)) {
    if (result.code === 'ENOENT' || /spawn git ENOENT/.test(String(result.message))) {
      // A spawn with a missing working folder also reports ENOENT.
      if (!existsSync(options.cwd)) throw new GitError(args, null, '', `The folder ${options.cwd} no longer exists.`);
      throw new GitError(args, null, '', 'git is not installed (not found on PATH).');
    }
    const tail = stderr.length > MAX_STDERR ? stderr.slice(-MAX_STDERR) : stderr;
    throw new GitError(args, exitCode, tail, summarize(args, stderr || stdout, exitCode));
  }
  return { stdout, stderr, exitCode };
}

export async function gitOut(args: readonly string[], options: RunOptions): Promise<string> {
  return (await git(args, options)).stdout.trim();
}
