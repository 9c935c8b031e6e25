import type { App } from '../../app.js';
import type { Agents, GitClient, Runtime, Store } from '../../ports.js';
import type { ChannelPool } from '../channel-pool.js';
import type { SessionService } from '../sessions.js';
import type { TurnRunner } from '../turn.js';
import type { SessionWorkers } from '../worker.js';
import type { SessionStatus } from '../../../domain/session-status.js';
import type { Session } from '../../../domain/session.js';
import type { Forge } from '../../ports.js';
import type { GitStepDeps } from '../git-steps.js';

export interface ReviewDeps {
  readonly app: App;
  readonly store: Store;
  readonly git: GitClient;
  readonly agents: Agents;
  readonly sessions: SessionService;
  readonly turns: TurnRunner;
  readonly pool: ChannelPool;
  readonly runtime: Runtime;
  readonly forge: Forge;
}

/** Shared helpers for the review-and-land workflows. */
export class ReviewContext {
  workers: SessionWorkers | null = null;

  constructor(readonly deps: ReviewDeps) {}

  now(): number {
    return this.deps.runtime.clock.now();
  }

  /** What recording a git step (withGitStep) needs. */
  stepDeps(): GitStepDeps {
    const { store, git, runtime } = this.deps;
    return { store, git, owner: runtime.owner, now: () => this.now(), logger: runtime.logger, note: (id, text) => this.note(id, text) };
  }

  async setStatus(sessionId: string, status: SessionStatus): Promise<Session> {
    const session = await this.deps.store.sessions.setStatus(sessionId, status, this.now());
    this.deps.app.emit({ type: 'sessionUpdated', session });
    return session;
  }

  note(sessionId: string, text: string): Promise<void> {
    return this.deps.sessions.note(sessionId, 'notice', text);
  }

  notice(level: 'info' | 'warn' | 'error', text: string): void {
    this.deps.app.emit({ type: 'notice', notice: { level, text } });
  }

  popup(title: string, lines: readonly string[], busy = false): void {
    this.deps.app.emit({ type: 'popup', popup: { kind: 'info', title, lines, busy } });
  }

  async enqueue(sessionId: string, kind: 'rebase' | 'merge' | 'publish', payload: Record<string, unknown> = {}): Promise<void> {
    await this.deps.store.operations.enqueue(sessionId, kind, payload, this.now(), this.deps.runtime.owner);
    this.workers?.notify(sessionId);
  }
}
