import type { Operation, OperationKind } from '../../domain/operation.js';
import type { Logger } from '../../infra/log.js';
import type { Store } from '../ports.js';

export type OperationHandler = (operation: Operation, signal: AbortSignal) => Promise<void>;

export interface WorkerDeps {
  readonly store: Store;
  readonly owner: string;
  readonly now: () => number;
  readonly logger: Logger;
  readonly handlers: Readonly<Record<OperationKind, OperationHandler>>;
  /** Called whenever a session's queue of waiting operations may have changed. */
  readonly onQueueChanged: (sessionId: string) => void;
}

const HEARTBEAT_MS = 5_000;

/** Thrown by handlers for failures already reported to the user. */
export class ReportedError extends Error {
  readonly kind = 'reported' as const;
}

/**
 * One worker per session runs that session's operations one at a time,
 * oldest first. Operations are durable rows: queued → running → done /
 * failed / canceled; this process's ownership is kept alive by a heartbeat.
 */
export class SessionWorkers {
  private readonly draining = new Set<string>();
  private readonly running = new Map<string, { controller: AbortController; operation: Operation }>();

  constructor(private readonly deps: WorkerDeps) {}

  /** Wakes the session's worker (it runs until the queue is empty). */
  notify(sessionId: string): void {
    if (this.draining.has(sessionId)) return;
    this.draining.add(sessionId);
    void this.drain(sessionId).finally(() => this.draining.delete(sessionId));
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
  }

  private async drain(sessionId: string): Promise<void> {
    const { store, owner, now, logger } = this.deps;
    for (;;) {
      let operation: Operation | undefined;
      try {
        operation = await store.operations.claimNext(sessionId, owner, now());
      } catch (error) {
        logger.log('error', `claiming an operation for ${sessionId} failed`, error);
        return;
      }
      if (!operation) return;
      this.deps.onQueueChanged(sessionId);
      const controller = new AbortController();
      this.running.set(sessionId, { controller, operation });
      const op = operation;
      const heartbeat = setInterval(() => {
        store.operations.heartbeat(op.id, owner, now()).catch((error: unknown) => logger.log('warn', 'heartbeat failed', error));
      }, HEARTBEAT_MS);
      try {
        if (await store.operations.isCancelRequested(op.id)) {
          await store.operations.finish(op.id, 'canceled', null, now());
          continue;
        }
        await this.deps.handlers[op.kind](op, controller.signal);
        await store.operations.finish(op.id, controller.signal.aborted ? 'canceled' : 'done', null, now());
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        if (!(error instanceof ReportedError)) logger.log('error', `operation ${op.kind} ${op.id} failed`, error);
        await store.operations
          .finish(op.id, controller.signal.aborted ? 'canceled' : 'failed', message, now())
          .catch((e: unknown) => logger.log('error', 'recording an operation result failed', e));
      } finally {
        clearInterval(heartbeat);
        this.running.delete(sessionId);
        this.deps.onQueueChanged(sessionId);
      }
    }
  }
}

export type { OperationKind };
