import type { Operation, OperationKind } from '../../domain/operation.js';
import type { Logger } from '../../infra/log.js';
import type { Store } from '../ports.js';
import type { Admission } from './admission.js';

export type OperationHandler = (operation: Operation, signal: AbortSignal) => Promise<void>;

export interface WorkerDeps {
  readonly store: Store;
  readonly owner: string;
  readonly now: () => number;
  readonly logger: Logger;
  readonly handlers: Readonly<Record<OperationKind, OperationHandler>>;
  /** Called whenever a session's queue of waiting operations may have changed. */
  readonly onQueueChanged: (sessionId: string) => void;
  /**
   * Asked before a queued turn (start_prompt, reply) starts: why it must
   * wait (a budget limit is reached), or null to run it. A held turn stays
   * queued; the session's worker looks again when it is next notified.
   */
  readonly hold?: (sessionId: string, next: Operation) => Promise<string | null>;
  /**
   * The admission gate (services/admission.ts) every turn passes before it is
   * claimed: a turn it does not admit stays queued and the gate wakes the
   * worker when there is room; the slot is given back however the turn ends.
   */
  readonly admission?: Pick<Admission, 'admit' | 'release' | 'withdraw'>;
  /**
   * A queued operation canceled before it started that holds a run a Grove
   * before this one left on a host (killed mid-turn): that run is stopped
   * and its work brought back before the operation ends canceled.
   */
  readonly stopLeftRun?: (operation: Operation) => Promise<void>;
}

/** A queued turn the `hold` gate kept from starting, and why. */
export interface HeldTurn {
  readonly operation: Operation;
  readonly reason: string;
}

export type OperationOutcome = {
  readonly operation: Operation;
  readonly status: 'done' | 'failed' | 'canceled';
  readonly error: string | null;
};

const HEARTBEAT_MS = 5_000;
const LEASE_RETRY_MS = 2_000;
const CANCEL_POLL_MS = 1_000;

/** Thrown by handlers for failures already reported to the user. */
export class ReportedError extends Error {
  readonly kind = 'reported' as const;
}

/**
 * Thrown by a turn whose agent reported a usage limit (already told to the
 * user): the operation goes back to the queue, not to be taken before
 * `until`, and the worker wakes then to run it.
 */
export class DeferredTurn extends Error {
  readonly kind = 'deferred' as const;
  constructor(
    readonly until: number,
    readonly agent: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * One worker per session runs that session's operations one at a time,
 * oldest first. Operations are durable rows: queued → running → done /
 * failed / canceled; this process's ownership is kept alive by a heartbeat.
 */
export class SessionWorkers {
  private readonly draining = new Set<string>();
  private readonly running = new Map<
    string,
    { controller: AbortController; operation: Operation }
  >();
  private readonly outcomeListeners: ((outcome: OperationOutcome) => void)[] = [];
  private readonly released = new Set<string>();
  private readonly heldListeners: ((held: HeldTurn) => void)[] = [];
  /** Per session: the timer that wakes its worker when the usage limit its next prompt waits for lifts. */
  private readonly wakeTimers = new Map<string, { at: number; timer: NodeJS.Timeout }>();
  /** Set by stopAll: no worker takes another operation. */
  private stopping = false;

  constructor(private readonly deps: WorkerDeps) {}

  /** Hears of every queued turn the `hold` gate keeps from starting. */
  onHeld(listener: (held: HeldTurn) => void): void {
    this.heldListeners.push(listener);
  }

  /** Sees how every operation this process runs ends. */
  onOutcome(listener: (outcome: OperationOutcome) => void): void {
    this.outcomeListeners.push(listener);
  }

  private report(
    operation: Operation,
    status: OperationOutcome['status'],
    error: string | null,
  ): void {
    for (const listener of this.outcomeListeners) listener({ operation, status, error });
  }

  /** Wakes the session's worker (it runs until the queue is empty). */
  notify(sessionId: string): void {
    if (this.draining.has(sessionId)) return;
    this.draining.add(sessionId);
    void this.drain(sessionId).finally(() => this.draining.delete(sessionId));
  }

  /**
   * This process takes no more of the session's operations once the one it
   * runs ends (a one-shot command leaves the rest to other processes).
   */
  release(sessionId: string): void {
    this.released.add(sessionId);
  }

  /** Resolves when the session's worker has nothing left to do. */
  async idle(sessionId: string): Promise<void> {
    while (this.draining.has(sessionId)) await new Promise((resolve) => setTimeout(resolve, 20));
  }

  current(sessionId: string): Operation | undefined {
    return this.running.get(sessionId)?.operation;
  }

  /** Stops the running operation of a session. Returns false when none runs. */
  abort(sessionId: string): boolean {
    const entry = this.running.get(sessionId);
    if (!entry) return false;
    entry.controller.abort();
    return true;
  }

  abortAll(): void {
    for (const entry of this.running.values()) entry.controller.abort();
    for (const { timer } of this.wakeTimers.values()) clearTimeout(timer);
    this.wakeTimers.clear();
  }

  /**
   * Grove is quitting: every running operation is stopped, no queued one is
   * taken, and this resolves once the stopped ones have settled (a stopped
   * turn commits what the agent left and puts its session in Review) or
   * after `graceMs`, whichever comes first. Queued operations stay queued.
   */
  async stopAll(graceMs: number): Promise<void> {
    this.stopping = true;
    this.abortAll();
    const until = Date.now() + graceMs;
    while (this.draining.size > 0 && Date.now() < until)
      await new Promise((resolve) => setTimeout(resolve, 20));
  }

  /** Wakes the session's worker at `at` (off the render path; one timer per session). */
  private wakeAt(sessionId: string, at: number): void {
    const existing = this.wakeTimers.get(sessionId);
    if (existing?.at === at) return;
    if (existing) clearTimeout(existing.timer);
    const timer = setTimeout(
      () => {
        this.wakeTimers.delete(sessionId);
        this.notify(sessionId);
      },
      Math.max(0, at - this.deps.now()),
    );
    timer.unref();
    this.wakeTimers.set(sessionId, { at, timer });
  }

  /** Whether the session's next queued operation is a turn the gate holds (its listeners hear why). */
  private async isHeld(sessionId: string): Promise<boolean> {
    const { store, logger, hold } = this.deps;
    if (!hold) return false;
    let next: Operation | undefined;
    try {
      next = (await store.operations.listUnfinished(sessionId)).find(
        (op) => op.status === 'queued',
      );
    } catch (error) {
      logger.log('error', `reading the queue of ${sessionId} failed`, error);
      return true;
    }
    if (!next || (next.kind !== 'start_prompt' && next.kind !== 'reply')) return false;
    // A canceled turn only ends (its run on a host stopped): no budget is spent.
    if (next.cancelRequested) return false;
    const reason = await hold(sessionId, next).catch(
      (error: unknown) =>
        `the budget could not be checked: ${error instanceof Error ? error.message : String(error)}`,
    );
    if (reason === null) return false;
    for (const listener of this.heldListeners) listener({ operation: next, reason });
    return true;
  }

  /**
   * Asks the admission gate when the session's next queued operation is a
   * turn that may start now: true (a slot is held), 'wait' (it stays queued;
   * the gate wakes this worker), or false (no turn is next: no slot needed).
   */
  private async admit(sessionId: string): Promise<boolean | 'wait'> {
    const { admission, store, now } = this.deps;
    if (!admission) return false;
    const next = (await store.operations.listUnfinished(sessionId).catch(() => [])).find(
      (op) => op.status === 'queued',
    );
    const turn =
      next !== undefined &&
      (next.kind === 'start_prompt' || next.kind === 'reply') &&
      !next.cancelRequested &&
      (!next.notBefore || next.notBefore <= now());
    if (!turn) {
      admission.withdraw(sessionId);
      return false;
    }
    return (await admission.admit(sessionId)) ? true : 'wait';
  }

  private async drain(sessionId: string): Promise<void> {
    const { store, owner, now, logger } = this.deps;
    for (;;) {
      if (this.released.has(sessionId) || this.stopping) return;
      if (this.deps.hold && (await this.isHeld(sessionId))) return;
      const admitted = await this.admit(sessionId);
      if (admitted === 'wait') return;
      let operation: Operation | undefined;
      try {
        operation = await store.operations.claimNext(sessionId, owner, now());
      } catch (error) {
        logger.log('error', `claiming an operation for ${sessionId} failed`, error);
        if (admitted) this.deps.admission?.release(sessionId);
        return;
      }
      if (!operation) {
        if (admitted) this.deps.admission?.release(sessionId);
        const waiting = await store.operations.listUnfinished(sessionId).catch(() => []);
        // The next prompt waits for its agent's usage limit to lift: look again then.
        const head = waiting.find((op) => op.status === 'queued');
        if (head?.notBefore && head.notBefore > now()) this.wakeAt(sessionId, head.notBefore);
        // Queued work held back by another process's lease: look again shortly.
        if (
          waiting.some((op) => op.status === 'queued') &&
          waiting.some((op) => op.status === 'running' && op.owner !== owner)
        ) {
          setTimeout(() => this.notify(sessionId), LEASE_RETRY_MS).unref();
        }
        return;
      }
      this.deps.onQueueChanged(sessionId);
      const controller = new AbortController();
      this.running.set(sessionId, { controller, operation });
      const op = operation;
      const heartbeat = setInterval(() => {
        store.operations
          .heartbeat(op.id, owner, now())
          .catch((error: unknown) => logger.log('warn', 'heartbeat failed', error));
      }, HEARTBEAT_MS);
      // A stop another process asked for (a persisted cancel request, e.g. `grove cancel`).
      const cancelPoll = setInterval(() => {
        store.operations
          .isCancelRequested(op.id)
          .then((asked) => {
            if (asked && !controller.signal.aborted) controller.abort();
          })
          .catch(() => {});
      }, CANCEL_POLL_MS);
      try {
        if (await store.operations.isCancelRequested(op.id)) {
          if (op.remoteRun && this.deps.stopLeftRun)
            await this.deps
              .stopLeftRun(op)
              .catch((error: unknown) =>
                logger.log('error', `stopping the run of ${op.id} on its host failed`, error),
              );
          await store.operations.finish(op.id, 'canceled', null, now());
          this.report(op, 'canceled', null);
          continue;
        }
        await this.deps.handlers[op.kind](op, controller.signal);
        const status = controller.signal.aborted ? 'canceled' : 'done';
        await store.operations.finish(op.id, status, null, now());
        this.report(op, status, null);
      } catch (error) {
        if (error instanceof DeferredTurn && !controller.signal.aborted) {
          // Back to the queue until the limit lifts; the loop stops at it (FIFO) and a timer wakes it.
          const deferred = await store.operations
            .defer(op.id, owner, error.until, error.agent)
            .catch((e: unknown) => {
              logger.log('error', 'putting a prompt back in the queue failed', e);
              return false;
            });
          if (deferred) continue;
        }
        const message = error instanceof Error ? error.message : String(error);
        if (!(error instanceof ReportedError) && !(error instanceof DeferredTurn))
          logger.log('error', `operation ${op.kind} ${op.id} failed`, error);
        const status = controller.signal.aborted ? 'canceled' : 'failed';
        await store.operations
          .finish(op.id, status, message, now())
          .catch((e: unknown) => logger.log('error', 'recording an operation result failed', e));
        this.report(op, status, message);
      } finally {
        if (admitted) this.deps.admission?.release(sessionId);
        clearInterval(heartbeat);
        clearInterval(cancelPoll);
        this.running.delete(sessionId);
        this.deps.onQueueChanged(sessionId);
      }
    }
  }
}

export type { OperationKind };
