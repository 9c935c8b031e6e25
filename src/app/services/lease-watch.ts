import type { OperationKind } from '../../domain/operation.js';
import type { SessionStatus } from '../../domain/session-status.js';
import { isOwnerAlive } from '../../infra/owner.js';
import type { App } from '../app.js';
import type { GitClient, Runtime, Store } from '../ports.js';
import { DRIVER_GONE_NOTICE, recoverInterruptedOperations } from './recovery.js';
import type { SessionWorkers } from './worker.js';

/** How often a running Grove looks at the leases of sessions other processes work on. */
const CHECK_MS = 3_000;
const PROMPT_KINDS: ReadonlySet<OperationKind> = new Set<OperationKind>(['start_prompt', 'reply']);
/** Statuses an operation drives (a focused review, AgentReview, is no operation). */
const DRIVEN: ReadonlySet<SessionStatus> = new Set<SessionStatus>([
  'InProgress',
  'Rebasing',
  'Merging',
]);

export interface LeaseWatchDeps {
  readonly app: App;
  readonly store: Store;
  readonly git: GitClient;
  readonly runtime: Runtime;
  readonly workers: SessionWorkers;
  /** Appends a transcript notice and shows it. */
  readonly note: (sessionId: string, text: string) => Promise<void>;
  /** Ends agents recorded by Grove processes that are gone (their own watchdogs normally have). */
  readonly sweepLeftovers: () => Promise<number>;
}

/**
 * Recovery while Grove runs. A session whose work another Grove process
 * (a `grove run`) was doing when that process died is recovered as a
 * restart would: its operation fails, it returns to Review with a notice.
 * Prompts left queued by processes that are gone run on this process's
 * workers. The check runs every CHECK_MS off the key path, and only while a
 * session of the active project shows work this process is not doing.
 */
export class LeaseWatch {
  private timer: NodeJS.Timeout | null = null;
  private checking = false;
  private readonly resumed = new Set<string>();

  constructor(private readonly deps: LeaseWatchDeps) {}

  start(): void {
    this.timer = setInterval(() => this.tick(), CHECK_MS);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Whether `owner` may still be working on an operation; this process is. */
  readonly alive = (owner: string | null, heartbeatAt: number | null): boolean => {
    const { runtime } = this.deps;
    return (
      owner === runtime.owner ||
      isOwnerAlive(owner, runtime.owner, heartbeatAt, runtime.clock.now())
    );
  };

  private tick(): void {
    const { app, workers } = this.deps;
    if (this.checking) return;
    if (!app.state.sessions.some((s) => DRIVEN.has(s.status) && !workers.current(s.id))) return;
    this.checking = true;
    app.task('Checking on other Grove processes', async () => {
      try {
        await this.check();
      } finally {
        this.checking = false;
      }
    });
  }

  /**
   * Takes over the operations of processes that are gone: fails them,
   * returns their sessions to Review and shows it, then runs the prompts
   * those processes left queued. Returns the recovered sessions.
   */
  async check(): Promise<string[]> {
    const recovered = await this.recoverGone();
    await this.resumeQueued();
    return recovered;
  }

  /**
   * The first half of check(), for the headless commands, which run no
   * prompt of another session: fails the running operations of processes
   * that are gone (their agents ended first) and returns their sessions to
   * Review with a notice. Returns those sessions.
   */
  async recoverGone(): Promise<string[]> {
    const { store, git, runtime, app } = this.deps;
    const running = (await store.operations.listUnfinished()).filter(
      (op) => op.status === 'running' && op.owner !== runtime.owner,
    );
    if (running.every((op) => this.alive(op.owner, op.heartbeatAt ?? null))) return [];
    // Nothing may still write into a worktree that recovery calls settled.
    await this.deps.sweepLeftovers();
    const recovered = await recoverInterruptedOperations(
      store,
      runtime.clock.now(),
      this.alive,
      DRIVER_GONE_NOTICE,
      {
        git,
        owner: runtime.owner,
        logger: runtime.logger,
        onProjectNotice: (text) => app.emit({ type: 'notice', notice: { level: 'warn', text } }),
      },
    );
    if (recovered.length > 0)
      runtime.logger.log(
        'warn',
        `recovered ${recovered.length} session(s) whose Grove process is gone`,
      );
    for (const sessionId of recovered) {
      const session = await store.sessions.get(sessionId);
      if (session) app.emit({ type: 'sessionUpdated', session });
      app.emit({ type: 'progress', sessionId, text: null });
      if (app.state.transcripts[sessionId])
        app.emit({
          type: 'transcriptLoaded',
          sessionId,
          entries: await store.transcript.list(sessionId),
        });
    }
    return recovered;
  }

  /**
   * Prompts queued by Grove processes that are gone (quit, crashed or
   * killed before they ran them) run here, oldest first, each session's
   * transcript saying so once.
   */
  async resumeQueued(): Promise<void> {
    const { app, store, workers } = this.deps;
    const shown = new Set(app.state.sessions.map((s) => s.id));
    const orphaned = (await store.operations.listUnfinished()).filter(
      (op) =>
        op.status === 'queued' &&
        PROMPT_KINDS.has(op.kind) &&
        shown.has(op.sessionId) &&
        !this.alive(op.owner, null),
    );
    const sessions = new Map<string, number>();
    // A prompt whose session was canceled meanwhile is only cleared by the worker, not announced.
    // A turn re-attached to its run on a host says so itself (turn.ts), not as a queued prompt.
    for (const op of orphaned)
      sessions.set(
        op.sessionId,
        (sessions.get(op.sessionId) ?? 0) + (op.cancelRequested || op.remoteRun ? 0 : 1),
      );
    for (const [sessionId, count] of sessions) {
      if (count > 0 && !this.resumed.has(sessionId)) {
        this.resumed.add(sessionId);
        await this.deps.note(
          sessionId,
          `[Queued] ${count === 1 ? '1 prompt was' : `${count} prompts were`} still queued when the Grove process that took ${count === 1 ? 'it' : 'them'} stopped; running ${count === 1 ? 'it' : 'them'} now.`,
        );
      }
      workers.notify(sessionId);
    }
  }
}
