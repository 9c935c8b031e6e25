import type { Session } from './session.js';
import type { SessionStatus } from './session-status.js';

/** Why a session waits for the person. */
export type AttentionReason = 'question' | 'review' | 'mergeFailed' | 'prMerged' | 'prClosed';

const WORKING_BEFORE: ReadonlySet<SessionStatus> = new Set<SessionStatus>([
  'InProgress',
  'AgentReview',
  'Rebasing',
]);

/**
 * Whether the change from `before` to `after` means the session now needs
 * the person: the agent asks questions, a turn ended in Review, a merge
 * failed (Merging back to Review), or its pull request was merged or closed.
 * Null when nothing changed that they must act on.
 */
export function attentionReason(
  before: Pick<Session, 'status' | 'reviewRequest'> | undefined,
  after: Pick<Session, 'status' | 'reviewRequest'>,
): AttentionReason | null {
  if (!before) return null;
  const pr = after.reviewRequest?.state;
  if (pr && pr !== 'open' && before.reviewRequest?.state === 'open')
    return pr === 'merged' ? 'prMerged' : 'prClosed';
  if (before.status === after.status) return null;
  if (after.status === 'Question') return 'question';
  if (before.status === 'Merging' && (after.status === 'Review' || after.status === 'AgentReview'))
    return 'mergeFailed';
  if (after.status === 'Review' && WORKING_BEFORE.has(before.status)) return 'review';
  return null;
}

/** The notification's words for a reason, about the session titled `title`. */
export function attentionText(reason: AttentionReason, title: string): string {
  const name = title.trim() === '' ? 'A session' : `"${title}"`;
  switch (reason) {
    case 'question':
      return `${name} has questions for you`;
    case 'review':
      return `${name} is ready for review`;
    case 'mergeFailed':
      return `${name}: the merge failed`;
    case 'prMerged':
      return `${name}: the pull request was merged`;
    case 'prClosed':
      return `${name}: the pull request was closed`;
    default:
      return reason satisfies never;
  }
}

/** Notification limits: at most one per session per 10 s, and one every 2 s overall. */
export const NOTIFY_PER_SESSION_MS = 10_000;
export const NOTIFY_GLOBAL_MS = 2_000;

/**
 * Whether a notification for `sessionId` may go out at `now`, given when the
 * last ones went (per session, and overall). Pure: the caller records sends.
 */
export function notifyAllowed(
  now: number,
  sessionId: string,
  last: { readonly any: number | null; readonly bySession: ReadonlyMap<string, number> },
): boolean {
  if (last.any !== null && now - last.any < NOTIFY_GLOBAL_MS) return false;
  const mine = last.bySession.get(sessionId);
  return mine === undefined || now - mine >= NOTIFY_PER_SESSION_MS;
}
