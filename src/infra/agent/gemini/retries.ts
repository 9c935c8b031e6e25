import { randomBytes } from 'node:crypto';
import { closeSync, mkdirSync, openSync, readSync, rmSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { readApiError } from '../api-error.js';

// Gemini CLI retries a failing model request up to ten times with a growing
// pause (5 s to 30 s), and over ACP it says nothing meanwhile: stderr is
// silenced and no session/update tells of it. Its debug logger does write
// each retry ("Attempt 1 failed with status 500. Retrying with backoff...
// ApiError: {…}") to the file named by GEMINI_DEBUG_LOG_FILE, so Grove
// points that at a file of its own and reads the retries from it.

/** One failed model request that Gemini CLI is about to retry. */
export interface GeminiRetry {
  /** The attempt that failed (1 for the first request). */
  readonly attempt: number;
  readonly status: number | null;
  /** The API's message, in words. */
  readonly reason: string;
}

const RETRY_LINE =
  /\[WARN\] Attempt (\d+) failed(?: with status (\d{3}))?(?: with (?:429|5xx) error[^.]*)?(?::\s*(.*?))?\.\s*Retrying (?:with backoff|after \d+ms)\.{0,3}\s*(.*)$/;

/** A retry, from one line of Gemini CLI's debug log; null for any other line. */
export function parseRetryLine(line: string): GeminiRetry | null {
  const match = RETRY_LINE.exec(line);
  if (!match) return null;
  const status = match[2] ? Number(match[2]) : null;
  const said = (match[4] ?? '').replace(/^[\w$]*Error:\s*/, '') || (match[3] ?? '');
  const read = said ? readApiError(said) : null;
  return {
    attempt: Number(match[1]),
    status: status ?? read?.status ?? null,
    reason: read?.message || (status ? `HTTP ${status}` : 'the request failed'),
  };
}

/** The progress line for a retry. */
export function retryProgress(retry: GeminiRetry): string {
  const why =
    retry.status && !retry.reason.includes(String(retry.status))
      ? `${retry.status}: ${retry.reason}`
      : retry.reason;
  return `Gemini CLI: model request failed (${why}); retrying, attempt ${retry.attempt + 1}…`;
}

export interface RetryWatch {
  /** The agent's environment, with GEMINI_DEBUG_LOG_FILE set. */
  readonly env: NodeJS.ProcessEnv;
  stop(): void;
}

const POLL_MS = 250;

/**
 * Points Gemini CLI's debug log at a fresh file in its own state folder (the
 * one place besides the worktree it may write, also when confined) and
 * reports each retry written there until stopped. The file is removed then.
 */
export function watchGeminiRetries(
  env: NodeJS.ProcessEnv,
  onRetry: (retry: GeminiRetry) => void,
): RetryWatch {
  const folder = join(
    env['GEMINI_CLI_HOME'] || env['HOME'] || homedir(),
    '.gemini',
    'tmp',
    'grove',
  );
  const path = join(folder, `debug-${process.pid}-${randomBytes(4).toString('hex')}.log`);
  try {
    mkdirSync(folder, { recursive: true });
  } catch {
    // No folder, no log: Gemini CLI reports a failed open on stderr and runs on.
  }
  let offset = 0;
  let partial = '';
  const read = (): void => {
    let buffer: Buffer;
    try {
      const size = statSync(path).size;
      if (size <= offset) return;
      buffer = Buffer.alloc(size - offset);
      const fd = openSync(path, 'r');
      try {
        offset += readSync(fd, buffer, 0, buffer.length, offset);
      } finally {
        closeSync(fd);
      }
    } catch {
      return; // not written yet, or already gone
    }
    const lines = (partial + buffer.toString('utf8')).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      const retry = parseRetryLine(line);
      if (retry) onRetry(retry);
    }
  };
  const timer = setInterval(read, POLL_MS);
  timer.unref();
  return {
    env: { ...env, GEMINI_DEBUG_LOG_FILE: path },
    stop() {
      clearInterval(timer);
      read();
      rmSync(path, { force: true });
    },
  };
}
