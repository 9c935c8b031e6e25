// Reads the inbox (domain/inbox.ts) from the store: every project's live
// sessions, their operations, review threads and budget holds. The TUI reads
// it on its refresh timer; `grove inbox` reads it once.
import type { BudgetStop } from '../../domain/budget.js';
import { deriveInbox, type InboxItem } from '../../domain/inbox.js';
import type { Operation } from '../../domain/operation.js';
import type { ReviewThread } from '../../domain/review-thread.js';
import type { Runtime, Store } from '../ports.js';
import { budgetStatus } from './budget.js';
import { askerAlive } from './confirmations.js';

export async function loadInbox(deps: {
  readonly store: Store;
  readonly runtime: Runtime;
}): Promise<InboxItem[]> {
  const { store, runtime } = deps;
  const projects = await store.projects.list();
  const sessions = (await Promise.all(projects.map((p) => store.sessions.listLive(p.id)))).flat();
  const [unfinished, newest] = await Promise.all([
    store.operations.listUnfinished(),
    store.operations.newestFinished(
      ['start_prompt', 'reply', 'rebase', 'merge', 'publish'],
      sessions.map((s) => s.id),
    ),
  ]);
  const operations: Operation[] = [...unfinished, ...newest];
  const reviewThreads: ReviewThread[] = (
    await Promise.all(
      sessions.filter((s) => s.reviewRequest !== null).map((s) => store.reviewThreads.list(s.id)),
    )
  ).flat();
  // Budgets are priced only for sessions with a prompt waiting to run, as the worker's gate does.
  const budgetStops = new Map<string, BudgetStop>();
  const waiting = new Set(
    unfinished
      .filter((op) => op.status === 'queued' && (op.kind === 'start_prompt' || op.kind === 'reply'))
      .map((op) => op.sessionId),
  );
  const running = new Set(
    unfinished.filter((op) => op.status === 'running').map((op) => op.sessionId),
  );
  for (const sessionId of waiting) {
    if (running.has(sessionId)) continue;
    const stop = (await budgetStatus({ store, runtime }, sessionId).catch(() => undefined))?.stop;
    if (stop) budgetStops.set(sessionId, stop);
  }
  const ciFixerStops = new Map<string, { reason: string; at: number }>();
  for (const session of sessions.filter((s) => s.reviewRequest !== null)) {
    const stopped = (await store.ciFixer.get(session.id)).stopped;
    if (stopped) ciFixerStops.set(session.id, stopped);
  }
  const approvals = await store.approvals.listWaiting(runtime.clock.now());
  // A request whose grove mcp is gone would be performed by nobody: it is not shown.
  const confirmations = (await store.confirmations.listWaiting(runtime.clock.now())).filter((c) =>
    askerAlive({ store, runtime }, c),
  );
  return deriveInbox(
    {
      projects,
      sessions,
      operations,
      reviewThreads,
      budgetStops,
      approvals,
      confirmations,
      ciFixerStops,
    },
    runtime.clock.now(),
  );
}
