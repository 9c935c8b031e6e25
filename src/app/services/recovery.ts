import type { Store } from '../ports.js';

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
