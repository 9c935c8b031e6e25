import type { Session } from '../../../domain/session.js';
import { restoreCommand } from '../../../domain/session.js';
import type { WorkAtRisk } from '../../events.js';
import { cleanUpAfterEnd, recordHostCleanup } from '../host-cleanup.js';
import type { ReviewContext } from './context.js';

export async function workAtRisk(ctx: ReviewContext, session: Session): Promise<WorkAtRisk> {
  const { git } = ctx.deps;
  try {
    const [status, ahead] = await Promise.all([
      git.statusPorcelain(session.worktreePath),
      git.commitsSince(session.worktreePath, session.baseBranch),
    ]);
    return { uncommitted: status.length, unmergedCommits: ahead };
  } catch {
    // No worktree (never created, or already gone): look at the branch alone.
    return { uncommitted: 0, unmergedCommits: await branchCommitsAtRisk(ctx, session) };
  }
}

/** Commits on the session branch not on its base, read from the main checkout. */
async function branchCommitsAtRisk(ctx: ReviewContext, session: Session): Promise<number> {
  const { git, store } = ctx.deps;
  const project = await store.projects.get(session.projectId);
  if (!project || !(await git.branchExists(project.path, session.branch).catch(() => false)))
    return 0;
  try {
    return (await git.aheadBehind(project.path, session.branch, session.baseBranch)).ahead;
  } catch {
    // The branch exists but cannot be compared (no base branch): never delete it unasked.
    return 1;
  }
}

/** `c`: asks first, saying exactly what happens to the session's work. */
export function requestCancel(ctx: ReviewContext, sessionId: string): void {
  const { app } = ctx.deps;
  const session = app.state.sessions.find((s) => s.id === sessionId);
  if (!session) return;
  if (['Done', 'Canceled', 'Merged', 'Merging', 'Rebasing'].includes(session.status)) {
    ctx.notice('warn', `A ${session.status} session cannot be canceled.`);
    return;
  }
  app.task('Checking the worktree', async () => {
    const risk = await workAtRisk(ctx, session);
    app.emit({ type: 'cancelNeedsConfirmation', session, risk });
  });
}

/**
 * Cancels a session without losing work: stop the agent, commit anything
 * uncommitted to the session branch, keep the branch if it holds work not
 * on the base, then remove the worktree. If the safety commit fails the
 * worktree is left in place and the session is not canceled.
 */
export async function cancelSession(
  ctx: ReviewContext,
  sessionId: string,
  abortRunning: (id: string) => void,
): Promise<void> {
  const { store, git, pool } = ctx.deps;
  const session = await store.sessions.get(sessionId);
  if (!session) return;
  const project = await store.projects.get(session.projectId);
  if (!project) return;
  for (const op of await store.operations.listUnfinished(sessionId))
    await store.operations.requestCancel(op.id);
  abortRunning(sessionId);
  await ctx.deps.queue.idle(sessionId);
  // Another Grove process driving the session (a headless command) stops on the cancel request: wait for it.
  const othersRunning = async (): Promise<boolean> =>
    (await store.operations.listUnfinished(sessionId)).some(
      (op) => op.status === 'running' && op.owner !== ctx.deps.runtime.owner,
    );
  for (let waited = 0; waited < 45_000 && (await othersRunning()); waited += 250)
    await new Promise((resolve) => setTimeout(resolve, 250));
  // A turn on a host whose run a killed Grove left there, which no Grove re-attached to:
  // the worker ends that run's process group on the host and brings its work back.
  if (
    (await store.operations.listUnfinished(sessionId)).some(
      (op) => op.status === 'queued' && op.remoteRun,
    )
  ) {
    ctx.deps.queue.notify(sessionId);
    await ctx.deps.queue.idle(sessionId);
  }
  // Prompts no worker will take soon (held at a budget, or waiting for a usage limit to lift) end here.
  for (const op of await store.operations.listUnfinished(sessionId))
    if (op.status === 'queued')
      await store.operations.finish(op.id, 'canceled', 'the session was canceled', ctx.now());
  await pool.release(sessionId);
  const current = (await store.sessions.get(sessionId)) ?? session;
  const risk = await workAtRisk(ctx, current);
  if (risk.uncommitted > 0) {
    try {
      const message =
        current.commitMessage ??
        `${current.title || 'Grove session'} (work in progress, saved on cancel)`;
      await git.commitAll(current.worktreePath, message, {
        amend: false,
        noVerify: true,
        branch: current.branch,
      });
    } catch (error) {
      await ctx.note(
        sessionId,
        `[Cancel Error] Could not save the uncommitted changes, so nothing was removed: ${error instanceof Error ? error.message : String(error)}`,
      );
      if (current.status === 'InProgress') await ctx.setStatus(sessionId, 'Review');
      return;
    }
  }
  const keep = risk.uncommitted > 0 || risk.unmergedCommits > 0;
  await recordHostCleanup(ctx.hostCleanup(), current, project.path);
  await git.removeWorktree(project.path, current.worktreePath, { force: true }).catch(() => {});
  if (keep) {
    await store.sessions.update(sessionId, { keptBranch: current.branch }, ctx.now());
    await ctx.note(
      sessionId,
      `[Cancel] Canceled. The work is kept on branch ${current.branch}; restore it with: ${restoreCommand(current.branch)}`,
    );
  } else {
    await git.deleteBranch(project.path, current.branch, { force: true }).catch(() => {});
    await ctx.note(
      sessionId,
      '[Cancel] Canceled. The session held no work, so its branch was deleted.',
    );
  }
  if (current.status === 'Queued') await ctx.setStatus(sessionId, 'Review');
  await ctx.setStatus(sessionId, 'Canceled');
  await cleanUpAfterEnd(ctx.hostCleanup(), current);
}
