import type { ForgeConnection } from '../../ports.js';
import { storePullRequest } from './publish.js';
import type { ReviewContext } from './context.js';

const DEFAULT_INTERVAL_MS = 60_000;
const MAX_BACKOFF = 8;

/**
 * Keeps published sessions in step with their pull requests: merged →
 * Merged (read-only until the base branch is synced), closed → Canceled
 * (branch and worktree kept), reopened → Review. Honours rate limits and
 * backs off on errors.
 */
export class PullRequestPoller {
  private timer: NodeJS.Timeout | null = null;
  private failures = 0;
  private stopped = false;

  constructor(
    private readonly ctx: ReviewContext,
    private readonly intervalMs: () => number = () => DEFAULT_INTERVAL_MS,
  ) {}

  start(): void {
    this.stopped = false;
    this.schedule(5_000);
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private schedule(delay: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.poll()
        .then((waitUntil) => {
          this.failures = 0;
          const base = this.intervalMs();
          this.schedule(waitUntil ? Math.max(base, waitUntil - this.ctx.now()) : base);
        })
        .catch((error: unknown) => {
          this.failures++;
          this.ctx.deps.runtime.logger.log('warn', 'pull request refresh failed', error);
          this.schedule(this.intervalMs() * Math.min(MAX_BACKOFF, 2 ** this.failures));
        });
    }, delay);
    this.timer.unref();
  }

  /** One refresh of every linked pull request of the active project. Returns a rate-limit wait, if any. */
  async poll(): Promise<number | null> {
    const { store, app, forge, git } = this.ctx.deps;
    const projectId = app.state.activeProjectId;
    if (projectId === null) return null;
    const project = await store.projects.get(projectId);
    if (!project) return null;
    const sessions = (await store.sessions.listByProject(projectId)).filter((s) => s.reviewRequest && ['Review', 'AgentReview', 'Question', 'Merged', 'Canceled'].includes(s.status));
    if (sessions.length === 0) return null;
    const url = await git.remoteUrl(project.path, 'origin');
    if (!url) return null;
    const signal = AbortSignal.timeout(30_000);
    const connection: ForgeConnection = await forge.connect(url, signal);
    for (const session of sessions) {
      const link = session.reviewRequest;
      if (!link) continue;
      if (connection.waitUntil && connection.waitUntil > this.ctx.now()) return connection.waitUntil;
      const pr = await connection.get(link.number, signal);
      await storePullRequest(this.ctx, session.id, pr, null);
      if (pr.state === 'merged' && session.status !== 'Merged' && session.status !== 'Canceled') {
        if (session.status === 'AgentReview' || session.status === 'Question') await this.ctx.setStatus(session.id, 'Review');
        await this.ctx.setStatus(session.id, 'Merged');
        await this.ctx.note(session.id, `[Review Request] Pull request #${pr.number} was merged on GitHub. Sync ${session.baseBranch} (s on the list) to finish the session.`);
      } else if (pr.state === 'closed' && session.status !== 'Canceled' && session.status !== 'Merged') {
        if (session.status === 'Question') await this.ctx.setStatus(session.id, 'Review');
        await this.ctx.setStatus(session.id, 'Canceled');
        await store.sessions.update(session.id, { keptBranch: session.branch }, this.ctx.now());
        await this.ctx.note(session.id, `[Review Request] Pull request #${pr.number} was closed. The session is canceled; its branch ${session.branch} and worktree are kept.`);
      } else if (pr.state === 'open' && session.status === 'Canceled') {
        await store.sessions.update(session.id, { keptBranch: null }, this.ctx.now());
        await this.ctx.setStatus(session.id, 'Review');
        await this.ctx.note(session.id, `[Review Request] Pull request #${pr.number} was reopened; the session is back in Review.`);
      } else {
        await this.ctx.deps.sessions.publishSession(session.id);
      }
    }
    return connection.waitUntil && connection.waitUntil > this.ctx.now() ? connection.waitUntil : null;
  }
}
