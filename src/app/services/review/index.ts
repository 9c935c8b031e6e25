import type { Operation } from '../../../domain/operation.js';
import { ensureWorktree } from '../session-setup.js';
import { ReviewContext, type ReviewDeps } from './context.js';
import { DiffLoader } from './diff-view.js';
import { DiffComments } from './diff-comments.js';
import { FocusedReview } from './focused-review.js';
import { MergeQueue, runRebase } from './merge.js';
import { cancelSession, requestCancel } from './cancel.js';
import { SyncMain } from './sync-main.js';
import { previewSync, unchangedSince } from './sync-preview.js';
import { publish, publishBranch, requestPublish, runPublish } from './publish.js';
import { PullRequestPoller } from './pr-poller.js';
import { isCiFixerOperation, runCiFixerRebase } from './ci-fixer.js';
import { cleanUpAfterEnd, recordHostCleanup } from '../host-cleanup.js';
import {
  answerThreads,
  loadThreads,
  queueThreadsTurn,
  refreshNow,
  reopenThreadsOf,
  resolveThreads,
  threadsOf,
} from './review-threads.js';

/**
 * Review and land: the diff view, focused review, merge queue, session
 * rebase, sync main, cancel, and publishing to GitHub.
 */
export class ReviewService {
  readonly ctx: ReviewContext;
  readonly focused: FocusedReview;
  readonly mergeQueue: MergeQueue;
  readonly sync: SyncMain;
  readonly pullRequests: PullRequestPoller;
  readonly diffs: DiffLoader;
  readonly comments: DiffComments;
  /** Per session: the fetch of its review threads under way, if any. */
  private readonly threadFetches = new Map<string, Promise<unknown>>();

  constructor(deps: ReviewDeps) {
    this.ctx = new ReviewContext(deps);
    this.focused = new FocusedReview(this.ctx);
    this.mergeQueue = new MergeQueue(this.ctx);
    this.sync = new SyncMain(this.ctx, (projectId, branch) => this.finishMerged(projectId, branch));
    this.pullRequests = new PullRequestPoller(this.ctx);
    this.diffs = new DiffLoader(this.ctx);
    this.comments = new DiffComments(this.ctx, this.diffs);
    const workers = deps.queue;
    // A turn that carried inline comments: mark them by whether it changed their lines.
    workers.onOutcome((outcome) => this.comments.onOutcome(outcome));
    // A merge operation canceled before it started never runs its handler:
    // the queue must still move on.
    workers.onOutcome((outcome) => {
      if (outcome.operation.kind === 'merge' && outcome.status === 'canceled')
        this.mergeQueue.finished(outcome.operation.sessionId);
      // A review-threads turn that failed or was stopped leaves its threads open.
      if (outcome.status !== 'done' && threadsOf(outcome.operation).length > 0) {
        this.ctx.deps.app.task('Reopening review threads', () =>
          reopenThreadsOf(this.ctx, outcome.operation),
        );
      }
    });
  }

  start(): void {
    this.mergeQueue.pump();
    this.pullRequests.start();
  }

  stop(): void {
    this.pullRequests.stop();
  }

  /**
   * After every successful turn: auto-push a published branch, answer the
   * review threads the turn was about, then the focused review.
   */
  async afterTurn(
    sessionId: string,
    signal: AbortSignal,
    focused: boolean,
    operation?: Operation,
  ): Promise<void> {
    const session = await this.ctx.deps.store.sessions.get(sessionId);
    if (!session) return;
    // Review threads are answered with the pushed commit, so their turn pushes even with more queued.
    const threadsTurn = operation !== undefined && threadsOf(operation).length > 0;
    let pushed = false;
    // A turn that ended in questions may have changed files too: push those as well.
    if (session.publishedBranch && (session.status === 'Review' || session.status === 'Question')) {
      const queued = (await this.ctx.deps.store.operations.listUnfinished(sessionId)).some(
        (op) => op.status === 'queued',
      );
      if (!queued || threadsTurn) {
        pushed = await publishBranch(this.ctx, sessionId, null, signal, true);
      }
    }
    if (operation && threadsTurn) await answerThreads(this.ctx, operation, signal, pushed);
    if (focused) this.focused.start(sessionId, false);
  }

  /** The stored review threads of a session, shown at once (then refreshed by the poller or `u`). */
  loadThreads(sessionId: string): void {
    this.ctx.deps.app.task('Loading review threads', () => loadThreads(this.ctx, sessionId));
  }

  refreshThreads(sessionId: string): void {
    this.ctx.notice('info', 'Fetching the review threads…');
    const fetch = refreshNow(this.ctx, sessionId, AbortSignal.timeout(60_000)).catch(() => null);
    this.threadFetches.set(sessionId, fetch);
    void fetch.finally(() => {
      if (this.threadFetches.get(sessionId) === fetch) this.threadFetches.delete(sessionId);
    });
    this.ctx.deps.app.task('Fetching review threads', async () => {
      const threads = await fetch;
      if (threads)
        this.ctx.notice(
          'info',
          `${threads.length} unresolved review ${threads.length === 1 ? 'thread' : 'threads'}.`,
        );
    });
  }

  sendThreads(sessionId: string, threadIds: readonly string[] | null): void {
    this.ctx.deps.app.task('Sending review threads', async () => {
      const result = await queueThreadsTurn(this.ctx, sessionId, threadIds);
      if ('refused' in result) this.ctx.notice('warn', result.refused);
      else
        this.ctx.notice(
          'info',
          `Sent ${result.count} review ${result.count === 1 ? 'thread' : 'threads'} to the agent.`,
        );
    });
  }

  /**
   * The question is built on what GitHub said last: a fetch under way (`t`
   * starts one) is waited for, so a thread a reviewer just wrote on again is
   * not offered as answered.
   */
  requestResolve(sessionId: string): void {
    this.ctx.deps.app.task('Checking review threads', async () => {
      await this.threadFetches.get(sessionId);
      const answered = (await this.ctx.deps.store.reviewThreads.list(sessionId)).filter(
        (t) => t.state === 'answered',
      );
      if (answered.length === 0) {
        this.ctx.notice(
          'warn',
          'No answered review thread to resolve: send threads to the agent first (Enter).',
        );
        return;
      }
      this.ctx.deps.app.emit({ type: 'threadsAnswered', sessionId, threads: answered });
    });
  }

  resolveThreads(sessionId: string, threadIds: readonly string[]): void {
    this.ctx.deps.app.task('Resolving review threads', async () => {
      const count = await resolveThreads(
        this.ctx,
        sessionId,
        threadIds,
        AbortSignal.timeout(60_000),
      );
      this.ctx.notice(
        'info',
        `Resolved ${count} review ${count === 1 ? 'thread' : 'threads'} on GitHub.`,
      );
    });
  }

  openDiff(sessionId: string): void {
    this.diffs.open(sessionId);
  }

  requestMerge(sessionId: string): void {
    this.mergeQueue.request(sessionId);
  }

  confirmMerge(sessionId: string, acknowledged = false): void {
    this.mergeQueue.confirm(sessionId, (id) => this.focused.cancel(id), acknowledged);
  }

  async runMerge(operation: Operation, signal: AbortSignal): Promise<void> {
    await this.restoreWorktree(operation.sessionId);
    return this.mergeQueue.run(operation, signal);
  }

  /**
   * A worktree deleted behind Grove's back is recreated from its branch
   * before a merge or rebase; when it cannot be, the transcript says why and
   * the merge or rebase fails on its own terms.
   */
  private async restoreWorktree(sessionId: string): Promise<void> {
    const { store, git } = this.ctx.deps;
    const session = await store.sessions.get(sessionId);
    const project = session ? await store.projects.get(session.projectId) : undefined;
    if (!session || !project) return;
    await ensureWorktree(
      {
        git,
        store,
        note: (id, text) => this.ctx.note(id, text),
        now: () => this.ctx.now(),
      },
      session,
      project.path,
    ).catch((error: unknown) =>
      this.ctx.note(
        sessionId,
        `[Worktree] ${error instanceof Error ? error.message : String(error)}`,
      ),
    );
  }

  requestRebase(sessionId: string): void {
    const session = this.ctx.deps.app.state.sessions.find((s) => s.id === sessionId);
    if (!session) return;
    this.focused.cancel(sessionId);
    this.ctx.deps.app.task('Queueing the rebase', async () => {
      await this.ctx.enqueue(sessionId, 'rebase');
      this.ctx.notice(
        'info',
        session.status === 'InProgress'
          ? `Rebase onto ${session.baseBranch} queued behind the running turn.`
          : `Rebasing onto ${session.baseBranch}…`,
      );
    });
  }

  async runRebase(operation: Operation, signal: AbortSignal): Promise<void> {
    await this.restoreWorktree(operation.sessionId);
    // The CI fixer's rebase of a conflicted pull request: onto origin's base, force-pushed with lease.
    if (isCiFixerOperation(operation)) return runCiFixerRebase(this.ctx, operation, signal);
    return runRebase(this.ctx, operation, signal);
  }

  requestCancel(sessionId: string): void {
    requestCancel(this.ctx, sessionId);
  }

  confirmCancel(sessionId: string): void {
    this.focused.cancel(sessionId);
    this.ctx.deps.app.task('Canceling the session', () =>
      cancelSession(this.ctx, sessionId, (id) => this.ctx.deps.queue.abort(id)),
    );
  }

  /** `s`: works out what a sync would push and pull, then asks first (nothing pushes without a yes). */
  syncMain(): void {
    const { app } = this.ctx.deps;
    const project = app.state.projects.find((p) => p.id === app.state.activeProjectId);
    if (!project) {
      this.ctx.notice('warn', 'No active project to sync.');
      return;
    }
    app.emit({ type: 'syncChecking', project: project.displayName });
    app.task('Sync', async () => {
      const preview = await previewSync(this.ctx, project.path);
      app.emit(
        'stop' in preview
          ? { type: 'syncStopped', reason: preview.stop }
          : { type: 'syncPlanned', plan: preview.plan },
      );
    });
  }

  /** The person said yes to the sync of `branch` at `head`: it runs, unless the branch moved meanwhile. */
  confirmSync(branch: string, head: string): void {
    const { app } = this.ctx.deps;
    const project = app.state.projects.find((p) => p.id === app.state.activeProjectId);
    if (!project) return;
    app.task('Sync', async () => {
      if (!(await unchangedSince(this.ctx, project.path, branch, head))) {
        app.emit({ type: 'syncStopped', reason: { kind: 'moved', branch } });
        return;
      }
      this.sync.start();
    });
  }

  requestPublish(sessionId: string): void {
    requestPublish(this.ctx, sessionId);
  }

  publish(sessionId: string, remoteBranch: string): void {
    publish(this.ctx, sessionId, remoteBranch);
  }

  async runPublish(operation: Operation, signal: AbortSignal): Promise<void> {
    await runPublish(this.ctx, operation, signal);
  }

  /** After syncing the base branch: sessions whose pull request merged are finished. */
  async finishMerged(projectId: number, branch: string): Promise<void> {
    const { store, git, pool } = this.ctx.deps;
    const project = await store.projects.get(projectId);
    if (!project) return;
    for (const session of await store.sessions.listByProject(projectId)) {
      if (session.status !== 'Merged' || session.baseBranch !== branch) continue;
      const dirty = await git.statusPorcelain(session.worktreePath).catch(() => []);
      if (dirty.length > 0) {
        await this.ctx.note(
          session.id,
          `[Review Request] The worktree ${session.worktreePath} has uncommitted changes, so it was kept. Remove them and sync again to finish the session.`,
        );
        continue;
      }
      await pool.release(session.id);
      await recordHostCleanup(this.ctx.hostCleanup(), session, project.path);
      await git.removeWorktree(project.path, session.worktreePath, { force: true }).catch(() => {});
      await git.deleteBranch(project.path, session.branch, { force: true }).catch(() => {});
      await this.ctx.note(
        session.id,
        `[Review Request] ${branch} is synced; the merged session is done and its worktree removed.`,
      );
      await this.ctx.setStatus(session.id, 'Done');
      await cleanUpAfterEnd(this.ctx.hostCleanup(), session);
    }
  }
}
