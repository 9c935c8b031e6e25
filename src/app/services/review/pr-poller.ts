import { parseInterval } from '../../../domain/settings.js';
import type { Session } from '../../../domain/session.js';
import type { ForgeConnection } from '../../ports.js';
import type { PullRequestChecks } from '../../../domain/checks.js';
import {
  threadsDue,
  threadsKey,
  type PullRequestInfo,
  type PullRequestPoll,
} from '../../../domain/review-request.js';
import { followCiFixer } from './ci-fixer.js';
import { checksFailed, rateLimitWait, refreshChecks } from './pr-checks.js';
import { storePullRequest } from './publish.js';
import type { ReviewContext } from './context.js';
import { refreshThreads } from './review-threads.js';

export const PULL_REQUEST_INTERVAL_SETTING = 'github.pollInterval';
const DEFAULT_INTERVAL = '60s';
const FIRST_POLL_MS = 5_000;
const MAX_BACKOFF = 8;

/** Sessions whose pull request can still change what Grove shows or does. */
function followed(session: Session): boolean {
  const link = session.reviewRequest;
  if (!link) return false;
  if (['Review', 'AgentReview', 'Question'].includes(session.status)) return true;
  // Only a session its closed pull request canceled can come back by a reopen;
  // one canceled in Grove stays canceled whatever GitHub says.
  return session.status === 'Canceled' && link.state === 'closed';
}

/**
 * Keeps published sessions in step with their pull requests: merged →
 * Merged (read-only until the base branch is synced), closed → Canceled
 * (branch and worktree kept), reopened → Review; an open one's unresolved
 * review threads and its head commit's checks (check runs and commit
 * statuses, asked with ETags; pr-checks.ts) are fetched and stored. The pull
 * request and its reviews are asked with the ETags of the last answer (an
 * idle look is all 304s), and the threads (GraphQL, no ETags) only when
 * one of those moved, or every THREADS_RECHECK_MS. Runs every
 * `github.pollInterval` (60 s by default, `off` stops it), waits out rate
 * limits and backs off on errors.
 */
export class PullRequestPoller {
  private timer: NodeJS.Timeout | null = null;
  private failures = 0;
  private stopped = true;
  /** Epoch ms until which a rate limit met reading checks keeps the poller away from GitHub. */
  private checksWaitUntil = 0;

  constructor(
    private readonly ctx: ReviewContext,
    private readonly intervalMs: () => number | null = () =>
      parseInterval(ctx.deps.app.state.settings[PULL_REQUEST_INTERVAL_SETTING] ?? DEFAULT_INTERVAL),
  ) {}

  start(): void {
    this.stopped = false;
    this.schedule(Math.min(FIRST_POLL_MS, this.intervalMs() ?? FIRST_POLL_MS));
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private schedule(delay: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      const base = this.intervalMs();
      if (base === null) {
        // Off: look again later in case the setting changes.
        this.schedule(FIRST_POLL_MS * 6);
        return;
      }
      this.poll()
        .then((waitUntil) => {
          this.failures = 0;
          this.schedule(waitUntil ? Math.max(base, waitUntil - this.ctx.now()) : base);
        })
        .catch((error: unknown) => {
          this.failures++;
          this.ctx.deps.runtime.logger.log('warn', 'pull request refresh failed', error);
          const backoff = base * Math.min(MAX_BACKOFF, 2 ** this.failures);
          // A rate limit says when it resets: wait until then, not less.
          const resetAt = (error as { resetAt?: unknown } | null)?.resetAt;
          this.schedule(
            typeof resetAt === 'number' ? Math.max(backoff, resetAt - this.ctx.now()) : backoff,
          );
        });
    }, delay);
    this.timer.unref();
  }

  /**
   * The review threads of an open pull request. A failure (no GraphQL on an
   * Enterprise server, missing permission) is shown with the threads and
   * does not stop the pull request refresh; a rate limit makes the poller wait.
   */
  private async refreshThreads(
    session: Session,
    poll: PullRequestPoll,
    connection: ForgeConnection,
    signal: AbortSignal,
  ): Promise<void> {
    const fetch = threadsDue(poll, this.ctx.now());
    try {
      await refreshThreads(this.ctx, session, connection, signal, fetch);
      const key = threadsKey(poll);
      if (fetch && key !== null)
        await this.ctx.deps.store.pullRequestPolls.save(session.id, {
          ...poll,
          threadsReadAt: { key, at: this.ctx.now() },
        });
    } catch (error) {
      const threads = await this.ctx.deps.store.reviewThreads.list(session.id);
      this.ctx.deps.app.emit({
        type: 'reviewThreadsLoaded',
        sessionId: session.id,
        threads,
        error: error instanceof Error ? error.message : String(error),
      });
      if (typeof (error as { resetAt?: unknown } | null)?.resetAt === 'number') throw error;
      this.ctx.deps.runtime.logger.log('warn', 'review threads refresh failed', error);
    }
  }

  /**
   * The head commit's checks. A failure is stored in words with the checks
   * read before and does not stop the pull request refresh; a rate limit
   * (primary or secondary) keeps the poller away until GitHub says.
   */
  private async followChecks(
    sessionId: string,
    headSha: string,
    connection: ForgeConnection,
    signal: AbortSignal,
  ): Promise<PullRequestChecks> {
    let checks: PullRequestChecks;
    try {
      checks = await refreshChecks(this.ctx, sessionId, headSha, connection, signal);
    } catch (error) {
      const wait = rateLimitWait(error, this.ctx.now());
      if (wait !== null) this.checksWaitUntil = Math.max(this.checksWaitUntil, wait);
      this.ctx.deps.runtime.logger.log('warn', 'pull request checks refresh failed', error);
      checks = await checksFailed(this.ctx, sessionId, headSha, error);
    }
    this.ctx.deps.app.emit({ type: 'pullRequestChecksLoaded', sessionId, checks });
    return checks;
  }

  /** The CI fixer's look at the pull request; a failure is logged and does not stop the refresh. */
  private async followCiFixer(
    session: Session,
    pr: PullRequestInfo,
    checks: PullRequestChecks | null,
  ): Promise<void> {
    await followCiFixer(this.ctx, session, pr, checks).catch((error: unknown) =>
      this.ctx.deps.runtime.logger.log('warn', 'the CI fixer could not look', error),
    );
  }

  /** Until when the poller waits for GitHub's rate limit (epoch ms), or null. */
  private waitUntil(connection: ForgeConnection): number | null {
    const now = this.ctx.now();
    const wait = Math.max(connection.waitUntil ?? 0, this.checksWaitUntil);
    return wait > now ? wait : null;
  }

  /** One refresh of every followed pull request of the active project. Returns a rate-limit wait, if any. */
  async poll(): Promise<number | null> {
    const { store, app, forge, git } = this.ctx.deps;
    const projectId = app.state.activeProjectId;
    if (projectId === null) return null;
    const project = await store.projects.get(projectId);
    if (!project) return null;
    const sessions = (await store.sessions.listWithReviewRequest(projectId)).filter(followed);
    if (sessions.length === 0) return null;
    const url = await git.remoteUrl(project.path, 'origin');
    if (!url) return null;
    const signal = AbortSignal.timeout(30_000);
    const connection: ForgeConnection = await forge.connect(url, signal);
    for (const session of sessions) {
      const link = session.reviewRequest;
      if (!link) continue;
      const wait = this.waitUntil(connection);
      if (wait !== null) return wait;
      // Asked with the ETags of the last answer: an unchanged pull request costs
      // a 304 (no rate limit) and nothing is written.
      const kept = await store.pullRequestPolls.get(session.id);
      const { changed, poll } = await connection.poll(
        link.number,
        kept?.info.number === link.number ? kept : null,
        signal,
      );
      const pr = poll.info;
      // The session may have moved on (a turn started, a cancel) while GitHub answered.
      const current = await store.sessions.get(session.id);
      if (!current || current.status !== session.status) continue;
      if (changed) {
        await storePullRequest(this.ctx, session.id, pr, null);
        await store.pullRequestPolls.save(session.id, poll);
      }
      if (pr.state === 'merged' && session.status !== 'Canceled') {
        if (session.status === 'Question') await this.ctx.setStatus(session.id, 'Review');
        await this.ctx.setStatus(session.id, 'Merged');
        await this.ctx.note(
          session.id,
          `[Review Request] Pull request #${pr.number} was merged on GitHub. Sync ${session.baseBranch} (s on the list) to finish the session.`,
        );
      } else if (pr.state === 'closed' && session.status !== 'Canceled') {
        if (session.status === 'Question') await this.ctx.setStatus(session.id, 'Review');
        await this.ctx.setStatus(session.id, 'Canceled');
        await store.sessions.update(session.id, { keptBranch: session.branch }, this.ctx.now());
        await this.ctx.note(
          session.id,
          `[Review Request] Pull request #${pr.number} was closed. The session is canceled; its branch ${session.branch} and worktree are kept.`,
        );
      } else if (pr.state === 'open' && session.status === 'Canceled') {
        await store.sessions.update(session.id, { keptBranch: null }, this.ctx.now());
        await this.ctx.setStatus(session.id, 'Review');
        await this.ctx.note(
          session.id,
          `[Review Request] Pull request #${pr.number} was reopened; the session is back in Review.`,
        );
      } else {
        const checks =
          pr.state === 'open'
            ? await this.followChecks(session.id, pr.headSha, connection, signal)
            : null;
        await this.ctx.deps.sessions.publishSession(session.id);
        await this.refreshThreads(current, poll, connection, signal);
        // Opt-in (github.ciFixer): a new failing run, or a conflict with the base, is answered.
        if (pr.state === 'open') await this.followCiFixer(current, pr, checks);
      }
    }
    return this.waitUntil(connection);
  }
}
