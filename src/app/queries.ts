import type { SessionGroup } from '../domain/best-of.js';
import type { Session } from '../domain/session.js';
import type { Controller } from './controller.js';
import type { WorkAtRisk } from './events.js';
import { workAtRisk } from './services/review/cancel.js';
import type { HeldTurn, OperationOutcome } from './services/worker.js';
import type { InboxItem } from '../domain/inbox.js';
import { loadInbox } from './services/inbox.js';
import type { Runtime, Store } from './ports.js';
import type { WatchEvent } from '../domain/watch.js';
import { watchStore } from './services/watch.js';

/**
 * What a headless command may read of the app, and wait for: none of these
 * changes anything (what changes something is an intent: AppIntents, or
 * AwaitedIntents for a caller that waits). The TUI reads its snapshot
 * (AppState) instead.
 */
export interface AppQueries {
  /** Resolves when the session's worktree is usable; rejects with why it could not be made. */
  whenReady(sessionId: string): Promise<void>;
  /** Sees every operation this process's workers finish. */
  onOutcome(listener: (outcome: OperationOutcome) => void): void;
  /** Sees every queued turn a budget limit keeps from starting in this process. */
  onHeld(listener: (held: HeldTurn) => void): void;
  /** The id of the operation this process's worker runs for the session, or null. */
  running(sessionId: string): string | null;
  /** Resolves when this process's worker of the session has nothing left to do. */
  idle(sessionId: string): Promise<void>;
  /**
   * As idle, and no turn of the session waits in this process's admission
   * queue (for a slot here, on its host, or for a place): its turns are over.
   */
  turnsOver(sessionId: string): Promise<void>;
  /** Resolves when the detached work of turns in this process (title generation) is over. */
  turnsSettled(): Promise<void>;
  /** What canceling the session would put at risk (uncommitted files, commits not on the base). */
  workAtRisk(session: Session): Promise<WorkAtRisk>;
  /** Whether every variant of the best-of-N group is over. */
  groupSettled(group: SessionGroup): Promise<boolean>;
  /** Everything waiting on the person, across every project, oldest first. */
  inbox(): Promise<InboxItem[]>;
}

/**
 * The inbox read straight from the store, for a command that needs no
 * project and no controller (`grove inbox`): the same read as AppQueries.inbox.
 */
export function readInbox(deps: {
  readonly store: Store;
  readonly runtime: Runtime;
}): Promise<InboxItem[]> {
  return loadInbox(deps);
}

/**
 * Follows the store for `grove watch` (no project, no controller): the items
 * waiting now, then each change any process makes, until `signal` aborts.
 */
export function watchGrove(
  deps: { readonly store: Store; readonly runtime: Runtime },
  emit: (events: readonly WatchEvent[]) => void,
  signal: AbortSignal,
): Promise<void> {
  return watchStore(deps, emit, signal);
}

/** How often turnsOver looks again while a turn waits for admission. */
const ADMISSION_POLL_MS = 250;

/** The Controller's services behind AppQueries. */
export function appQueries(controller: Controller): AppQueries {
  const { sessions, workers, turns, review, bestOf } = controller;
  return {
    whenReady: (sessionId) => sessions.whenReady(sessionId),
    onOutcome: (listener) => workers.onOutcome(listener),
    onHeld: (listener) => workers.onHeld(listener),
    running: (sessionId) => workers.current(sessionId)?.id ?? null,
    idle: (sessionId) => workers.idle(sessionId),
    turnsOver: async (sessionId) => {
      // A turn waiting for admission leaves the worker idle; the gate wakes it when there is room.
      for (;;) {
        await workers.idle(sessionId);
        if (!controller.admission?.waiting(sessionId)) return;
        await new Promise((resolve) => setTimeout(resolve, ADMISSION_POLL_MS));
      }
    },
    turnsSettled: () => turns.settled(),
    workAtRisk: (session) => workAtRisk(review.ctx, session),
    groupSettled: (group) => bestOf.allSettled(group),
    inbox: () => controller.inbox(),
  };
}
