// Running a tool and collecting its output, through execa. execa is loaded on
// first use: nothing before the first frame needs it, and leaving it out of
// the start-up path keeps Grove's start fast.
import type * as execaModule from 'execa';

type Execa = typeof execaModule;

let loading: Promise<Execa> | undefined;

/** The execa module, imported once. */
export function loadExeca(): Promise<Execa> {
  loading ??= import('execa');
  return loading;
}

export interface ToolRun {
  /** The exit code; null when the tool could not start, timed out, was stopped or killed. */
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** Why there is no exit code ("timed out after 3s", "spawn x ENOENT", "stopped"), else null. */
  readonly error: string | null;
}

export interface ToolOptions {
  /** The tool's whole environment (Grove's own is not added); Grove's when absent. */
  readonly env?: NodeJS.ProcessEnv;
  readonly cwd?: string;
  readonly signal?: AbortSignal;
  readonly timeoutMs: number;
  /** Written to its stdin; without it stdin is empty (never Grove's terminal). */
  readonly input?: string;
}

/**
 * Runs `file args` (no shell) to ask a tool something or hand it a small
 * job (`git --version`, `gh auth token`, `notify-send`): never throws, and
 * gives up after the timeout (SIGTERM) or when the signal aborts. Output is
 * kept as written, up to 1 MiB per stream.
 */
export async function runTool(
  file: string,
  args: readonly string[],
  options: ToolOptions,
): Promise<ToolRun> {
  const { execa } = await loadExeca();
  const result = await execa(file, [...args], {
    ...(options.env ? { env: options.env, extendEnv: false } : {}),
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    ...(options.signal ? { cancelSignal: options.signal } : {}),
    ...(options.input === undefined ? { stdin: 'ignore' as const } : { input: options.input }),
    timeout: options.timeoutMs,
    maxBuffer: 1 << 20,
    stripFinalNewline: false,
    reject: false,
  });
  const stdout = String(result.stdout ?? '');
  const stderr = String(result.stderr ?? '');
  if (result.exitCode !== undefined && !result.isCanceled && !result.timedOut)
    return { code: result.exitCode, stdout, stderr, error: null };
  const error = result.isCanceled
    ? 'stopped'
    : result.timedOut
      ? `timed out after ${options.timeoutMs / 1000}s`
      : (result.originalMessage ?? firstLine(result.shortMessage ?? 'failed'));
  return { code: null, stdout, stderr, error };
}

/** The first non-empty line of `text`, trimmed. */
export function firstLine(text: string): string {
  return text.trim().split('\n')[0]?.trim() ?? '';
}

/** Why a run did not succeed, in words: its error, else the first line of stderr, else its exit code. */
export function failureOf(run: ToolRun): string {
  return run.error ?? (firstLine(run.stderr) || `exit ${String(run.code)}`);
}
