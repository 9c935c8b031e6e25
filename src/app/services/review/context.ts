import type { App } from '../../app.js';
import type { Agents, GitClient, HostCleaner, Runtime, Store } from '../../ports.js';
import type { ChannelPool } from '../channel-pool.js';
import type { SessionService } from '../sessions.js';
import type { OperationOutcome } from '../worker.js';
import type { SessionStatus } from '../../../domain/session-status.js';
import type { Session } from '../../../domain/session.js';
import type { Forge } from '../../ports.js';
import type { GitStepDeps } from '../git-steps.js';
import { AgentGuard } from '../agent-guard.js';
import type { HostCleanupDeps } from '../host-cleanup.js';

/**
 * What review needs of the session workers (SessionWorkers implements it):
 * wake a session's worker after queueing an operation, wait for it, stop
 * the operation it runs, and hear how operations end.
 */
export interface OperationQueue {
  notify(sessionId: string): void;
  idle(sessionId: string): Promise<void>;
  abort(sessionId: string): boolean;
  onOutcome(listener: (outcome: OperationOutcome) => void): void;
}

export interface ReviewDeps {
  readonly app: App;
  readonly store: Store;
  readonly git: GitClient;
  readonly agents: Agents;
  readonly sessions: SessionService;
  readonly pool: ChannelPool;
  readonly runtime: Runtime;
  readonly forge: Forge;
  /** The session workers that run queued rebase, merge and publish operations. */
  readonly queue: OperationQueue;
  /** Aborted when Grove shuts down: long work not run by a worker (sync's agent) stops with it. */
  readonly shutdown: AbortSignal;
  /** Removes what a session that ended left on its host (issue 24); absent: recorded only. */
  readonly hostCleaner?: HostCleaner | undefined;
}

/** Shared helpers for the review-and-land workflows. */
export class ReviewContext {
  constructor(readonly deps: ReviewDeps) {}

  now(): number {
    return this.deps.runtime.clock.now();
  }

  /** What recording a git step (withGitStep) needs. */
  stepDeps(): GitStepDeps {
    const { store, git, runtime } = this.deps;
    return {
      store,
      git,
      owner: runtime.owner,
      now: () => this.now(),
      logger: runtime.logger,
      note: (id, text) => this.note(id, text),
    };
  }

  async setStatus(sessionId: string, status: SessionStatus): Promise<Session> {
    const session = await this.deps.store.sessions.setStatus(sessionId, status, this.now());
    this.deps.app.emit({ type: 'sessionUpdated', session });
    return session;
  }

  /** What recording and running a host's clean-up needs (host-cleanup.ts). */
  hostCleanup(): HostCleanupDeps {
    const { store, git, hostCleaner } = this.deps;
    return {
      store,
      git,
      cleaner: hostCleaner,
      now: () => this.now(),
      note: (id, text) => this.note(id, text),
    };
  }

  note(sessionId: string, text: string): Promise<void> {
    return this.deps.sessions.note(sessionId, 'notice', text);
  }

  /**
   * Runs an agent of `session` (`what`, for the flag's words) between a
   * recording of the shared git folder and a check (agent-guard.ts).
   */
  async guarded<T>(session: Session, what: string, run: () => Promise<T>): Promise<T> {
    const project = await this.deps.store.projects.get(session.projectId);
    if (!project) return run();
    const guard = new AgentGuard({ ...this.deps, note: (id, text) => this.note(id, text) });
    return guard.around(guard.forSession(session, project.path, what), run);
  }

  notice(level: 'info' | 'warn' | 'error', text: string): void {
    this.deps.app.emit({ type: 'notice', notice: { level, text } });
  }

  async enqueue(
    sessionId: string,
    kind: 'rebase' | 'merge' | 'publish',
    payload: Record<string, unknown> = {},
  ): Promise<void> {
    await this.deps.store.operations.enqueue(
      sessionId,
      kind,
      payload,
      this.now(),
      this.deps.runtime.owner,
    );
    this.deps.queue.notify(sessionId);
  }
}
