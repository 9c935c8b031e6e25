// The checks of a published session's pull request (issue 28, item 2): the
// check runs and commit statuses of its head commit, what the list's badge
// says about them, and the tail of a failing job's log. Pure data and text;
// the forge adapter fills it in. A job log is written by CI, which runs the
// agent's code: its tail reaches the screen without terminal escapes,
// sanitized and capped.
import { sanitizeLine, sanitizeText } from './sanitize.js';

/** What one check says, as the badge counts it. */
export type CheckState = 'pending' | 'failing' | 'passing';

/** One check of the head commit: a check run (GitHub Actions and apps) or a commit status. */
export interface CheckInfo {
  readonly kind: 'check_run' | 'status';
  /** The check run's name, or the status's context. Sanitized, one line. */
  readonly name: string;
  readonly state: CheckState;
  /**
   * GitHub's word for how it ended: a check run's conclusion (success,
   * failure, timed_out, …), a status's state (success, failure, error,
   * pending); null while a check run has not completed.
   */
  readonly conclusion: string | null;
  /** Where GitHub shows it (the run's page, the status's target URL); null when none. */
  readonly url: string | null;
  /** The GitHub Actions job behind a check run, whose log can be read; null for other checks. */
  readonly jobId: number | null;
  /** The last lines of a failing job's log, sanitized and capped; null when not read. */
  readonly logTail: string | null;
  /** Why the log could not be read, in words; null when it was, or was not asked for. */
  readonly logError: string | null;
}

/** The checks Grove keeps for a session, with what makes the next request conditional. */
export interface PullRequestChecks {
  /** The commit they are of (the pull request's head when they were read). */
  readonly headSha: string;
  /** GitHub's ETags of the check runs and the combined status of that commit. */
  readonly runsEtag: string | null;
  readonly statusesEtag: string | null;
  readonly checks: readonly CheckInfo[];
  /** The badge: null when the commit has no checks. */
  readonly state: CheckState | null;
  /** The last refresh failed (in words); the checks are the ones read before. */
  readonly error: string | null;
  /** Epoch ms of the last answer from GitHub (a 304 included). */
  readonly fetchedAt: number;
}

const PASSED = new Set(['success', 'neutral', 'skipped']);

/** A check run's state from its status and conclusion. */
export function checkRunState(status: string | null, conclusion: string | null): CheckState {
  if (status !== 'completed') return 'pending';
  return PASSED.has(conclusion ?? '') ? 'passing' : 'failing';
}

/** A commit status's state (pending, success, failure, error). */
export function commitStatusState(state: string): CheckState {
  if (state === 'success') return 'passing';
  if (state === 'pending') return 'pending';
  return 'failing';
}

/** The badge of a set of checks: failing if any fails, else pending if any runs, else passing; null with none. */
export function checksState(checks: readonly Pick<CheckInfo, 'state'>[]): CheckState | null {
  if (checks.length === 0) return null;
  if (checks.some((c) => c.state === 'failing')) return 'failing';
  if (checks.some((c) => c.state === 'pending')) return 'pending';
  return 'passing';
}

/** "3 passed, 1 failed, 1 pending", or null with no checks. */
export function checksSummary(checks: readonly Pick<CheckInfo, 'state'>[]): string | null {
  if (checks.length === 0) return null;
  const count = (state: CheckState) => checks.filter((c) => c.state === state).length;
  return [
    [count('passing'), 'passed'],
    [count('failing'), 'failed'],
    [count('pending'), 'pending'],
  ]
    .filter(([n]) => Number(n) > 0)
    .map(([n, word]) => `${n} ${word}`)
    .join(', ');
}

/** The badge's words on the session list. */
export function checksBadgeText(state: CheckState): string {
  return state === 'failing'
    ? 'checks failing'
    : state === 'pending'
      ? 'checks pending'
      : 'checks passed';
}

/** How much of a failing job's log Grove keeps and shows. */
export const LOG_TAIL_LINES = 40;
export const LOG_TAIL_BYTES = 4096;

// CSI (ESC [ … final byte), OSC (ESC ] … BEL or ST), the other string
// sequences (DCS, SOS, PM, APC: ESC P/X/^/_ … ST) and two-character escapes,
// and their 8-bit forms. What is left of anything else the sanitizer shows.
const ESCAPES =
  // eslint-disable-next-line no-control-regex
  /\u001b\[[0-?]*[ -/]*[@-~]|\u009b[0-?]*[ -/]*[@-~]|(?:\u001b\]|\u009d)[^\u0007\u001b\u009c]*(?:\u0007|\u001b\\|\u009c)?|(?:\u001b[PX^_]|[\u0090\u0098\u009e\u009f])[^\u001b\u009c]*(?:\u001b\\|\u009c)?|\u001b[ -~]/g;
/** The timestamp GitHub Actions puts before every line of a job log. */
const ACTIONS_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z ?/;

/**
 * The last lines of a job log as Grove shows them: terminal escapes (colours,
 * cursor moves, titles, hyperlinks) taken out, a line redrawn with CR kept as
 * its last drawing, Actions' timestamps dropped, whatever else the sanitizer
 * makes visible; then the last LOG_TAIL_LINES lines, within LOG_TAIL_BYTES
 * bytes of UTF-8 (a longer last line keeps its end).
 */
export function logTail(log: string, maxLines = LOG_TAIL_LINES, maxBytes = LOG_TAIL_BYTES): string {
  // Only the end is shown: a huge log is cut before it is cleaned.
  const end = log.length > maxBytes * 16 ? log.slice(-maxBytes * 16) : log;
  const lines = end
    .replace(ESCAPES, '')
    .split(/\r?\n/)
    .map((line) => {
      const drawn = line.split('\r').filter((part) => part !== '');
      return sanitizeLine((drawn.at(-1) ?? '').replace(ACTIONS_TIME, ''));
    });
  while (lines.length > 0 && lines.at(-1)?.trim() === '') lines.pop();
  const kept: string[] = [];
  let bytes = 0;
  for (let i = lines.length - 1; i >= 0 && kept.length < maxLines; i--) {
    const line = lines[i] ?? '';
    const size = utf8Length(line) + (kept.length > 0 ? 1 : 0);
    if (bytes + size > maxBytes) {
      if (kept.length === 0) kept.unshift(tailBytes(line, maxBytes));
      break;
    }
    kept.unshift(line);
    bytes += size;
  }
  return sanitizeText(kept.join('\n'));
}

const encoder = new TextEncoder();
const utf8Length = (text: string): number => encoder.encode(text).length;

/** The end of `text` within `maxBytes` bytes of UTF-8, never cutting a character. */
function tailBytes(text: string, maxBytes: number): string {
  const chars = [...text];
  let bytes = 0;
  let start = chars.length;
  while (start > 0) {
    const size = utf8Length(chars[start - 1] ?? '');
    if (bytes + size > maxBytes) break;
    bytes += size;
    start--;
  }
  return chars.slice(start).join('');
}
