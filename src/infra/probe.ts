// Runs a short command to ask a tool about itself (`git --version`,
// `bwrap --version`): never throws, never inherits stdin, and gives up after
// a timeout or when the signal aborts.
import { execFile } from 'node:child_process';

export interface ProbeRun {
  /** The exit code; null when the command could not start, timed out or was stopped. */
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** Why there is no exit code ("timed out after 3s", "spawn x ENOENT"), else null. */
  readonly error: string | null;
}

export interface ProbeOptions {
  readonly env: NodeJS.ProcessEnv;
  readonly signal: AbortSignal;
  readonly timeoutMs?: number;
}

export function runProbe(
  file: string,
  args: readonly string[],
  options: ProbeOptions,
): Promise<ProbeRun> {
  const timeout = options.timeoutMs ?? 5000;
  return new Promise((resolve) => {
    const child = execFile(
      file,
      [...args],
      { env: options.env, signal: options.signal, timeout, encoding: 'utf8', maxBuffer: 1 << 20 },
      (error, stdout, stderr) => {
        if (!error) {
          resolve({ code: 0, stdout, stderr, error: null });
          return;
        }
        const code = typeof error.code === 'number' ? error.code : null;
        const why = options.signal.aborted
          ? 'stopped'
          : error.killed
            ? `timed out after ${timeout / 1000}s`
            : code === null
              ? error.message
              : null;
        resolve({ code: why === null ? code : null, stdout, stderr, error: why });
      },
    );
    child.stdin?.end();
  });
}

/** The first non-empty line of `text`, trimmed. */
export function firstLine(text: string): string {
  return text.trim().split('\n')[0]?.trim() ?? '';
}
