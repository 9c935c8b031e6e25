import type { Store } from '../ports.js';

/** The transcript notice of a session whose work a Grove process left unfinished. */
export const INTERRUPTED_NOTICE =
  '[Restart] The Grove process running or queueing work for this session stopped before it finished. That work did not complete; the session is back in Review with its worktree as it was.';

/**
 * Operations left queued or running by Grove processes that are gone are
 * failed, their sessions return to Review, and each such session's
 * transcript says so. Returns the ids of those sessions.
 */
export async function recoverInterruptedOperations(store: Store, now: number, isOwnerAlive: (owner: string | null) => boolean): Promise<string[]> {
  const sessions = await store.operations.failInterrupted(now, isOwnerAlive);
  for (const sessionId of sessions) await store.transcript.append(sessionId, 'notice', INTERRUPTED_NOTICE, now);
  return sessions;
}

/**
 * After a restart, a focused review that was running is gone (it is not a
 * durable operation): its session steps back to Review so `f` can run it again.
 */
export async function recoverInterruptedReviews(store: Store, now: number): Promise<string[]> {
  const recovered: string[] = [];
  for (const session of await store.sessions.listFocusedReviewRunning()) {
    await store.sessions.update(session.id, { focusedReviewStatus: null, focusedReviewText: null }, now);
    if (session.status === 'AgentReview') await store.sessions.setStatus(session.id, 'Review', now);
    recovered.push(session.id);
  }
  return recovered;
}
