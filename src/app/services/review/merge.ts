import type { Operation } from '../../../domain/operation.js';
import { sanitizePath } from '../../../domain/sanitize.js';
import type { Session } from '../../../domain/session.js';
import { acknowledgeGuard, guardRefusal } from '../agent-guard.js';
import { baseBranchGone, baseRewoundLines } from '../base-check.js';
import { withGitStep } from '../git-steps.js';
import { cleanUpAfterEnd, recordHostCleanup } from '../host-cleanup.js';
import { hooksFor } from '../git-hooks.js';
import { loadSettings } from '../projects.js';
import { ReportedError } from '../worker.js';
import { assistedRebase, conflictNextStep } from './assisted-rebase.js';
import type { ReviewContext } from './context.js';

/** Porcelain codes of paths git still holds as conflicted. */
const UNMERGED = new Set(['DD', 'AU', 'UD', 'UA', 'DU', 'AA', 'UU']);

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * A worktree left half-way through a git rebase, merge or cherry-pick (an
 * interrupted run, or a person) is put back on the session branch before
 * Grove does anything else there, and the transcript says so.
 */
export async function clearUnfinishedGit(
  ctx: ReviewContext,
  session: Session,
  label: string,
): Promise<void> {
  const { git } = ctx.deps;
  const kind = await git.inProgress(session.worktreePath);
  if (!kind) return;
  await git.abortInProgress(session.worktreePath, session.branch);
  const head = await git.headCommit(session.worktreePath);
  await ctx.note(
    session.id,
    `[${label}] The worktree was in the middle of an unfinished git ${kind}. Grove aborted it first: ${session.branch} is at ${head.slice(0, 12)}, as before that ${kind}.`,
  );
}

/**
 * Commits anything left uncommitted so rebases and merges see all the work.
 * Never on top of an unfinished rebase or merge, and never a file that still
 * has conflicts: that would commit conflict markers.
 */
export async function commitPending(ctx: ReviewContext, session: Session): Promise<void> {
  const { git, store } = ctx.deps;
  const unfinished = await git.inProgress(session.worktreePath);
  if (unfinished)
    throw new Error(`the worktree is in the middle of an unfinished git ${unfinished}`);
  const status = await git.statusPorcelain(session.worktreePath);
  if (status.length === 0) return;
  const conflicted = status.filter((entry) => UNMERGED.has(entry.code)).map((entry) => entry.path);
  if (conflicted.length > 0)
    throw new Error(
      `${conflicted.map(sanitizePath).join(', ')} still ${conflicted.length === 1 ? 'has' : 'have'} unresolved conflicts`,
    );
  const headWas = await git.ensureHead(session.worktreePath, session.branch);
  if (headWas)
    await ctx.note(
      session.id,
      `[Guard] The worktree's HEAD had been moved to ${headWas}; Grove put it back on ${session.branch}.`,
    );
  const ahead = await git.commitsSince(session.worktreePath, session.baseBranch);
  const message = session.commitMessage ?? (session.title || 'Grove session changes');
  const result = await git.commitAll(session.worktreePath, message, { amend: ahead > 0 });
  if (result.committed)
    await store.sessions.update(
      session.id,
      { commitMessage: message, headCommit: result.commit },
      ctx.now(),
    );
}

/**
 * The merge queue: one merge at a time per project, first in, first out,
 * in every project (not only the one on screen). A queued session's merge
 * runs as a durable operation on its worker.
 */
/** How often a merge waiting for another one looks again. */
const MERGE_WAIT_MS = 500;

export class MergeQueue {
  /** The session whose merge each project runs now, by project id. */
  private readonly busy = new Map<number, string>();
  private pumping = false;
  private again = false;

  constructor(private readonly ctx: ReviewContext) {}

  /**
   * Starts the next queued merge of every project that runs none. Calls
   * while one look is under way are folded into one more look.
   */
  pump(): void {
    if (this.pumping) {
      this.again = true;
      return;
    }
    this.pumping = true;
    const { app, store } = this.ctx.deps;
    app.task('Merge queue', async () => {
      try {
        // A session whose merge is already an operation (`grove merge` queued it) is not queued twice.
        const pending = new Set(
          (await store.operations.listUnfinished())
            .filter((op) => op.kind === 'merge')
            .map((op) => op.sessionId),
        );
        for (const project of await store.projects.list()) {
          if (this.busy.has(project.id)) continue;
          // Queued and Merging are live statuses: the archive is not read.
          const sessions = await store.sessions.listLive(project.id);
          if (sessions.some((s) => s.status === 'Merging')) continue;
          const next = sessions
            .filter((s) => s.status === 'Queued' && !pending.has(s.id))
            .sort((a, b) => (a.queuedAt ?? 0) - (b.queuedAt ?? 0))[0];
          if (!next) continue;
          this.busy.set(project.id, next.id);
          await this.ctx.enqueue(next.id, 'merge');
        }
      } finally {
        this.pumping = false;
        if (this.again) {
          this.again = false;
          this.pump();
        }
      }
    });
  }

  /** Called when a merge operation ends (whatever the outcome). */
  finished(sessionId: string): void {
    for (const [projectId, running] of this.busy)
      if (running === sessionId) this.busy.delete(projectId);
    this.pump();
  }

  request(sessionId: string): void {
    const session = this.ctx.deps.app.state.sessions.find((s) => s.id === sessionId);
    if (!session) return;
    if (session.reviewRequest && session.reviewRequest.state === 'open') {
      this.ctx.notice(
        'warn',
        `This session has pull request #${session.reviewRequest.number}: merge it on GitHub, not with the local merge queue.`,
      );
      return;
    }
    if (!['Review', 'AgentReview', 'Question'].includes(session.status)) {
      this.ctx.notice('warn', `A ${session.status} session cannot be merged now.`);
      return;
    }
    this.ctx.deps.app.apply({ type: 'mergeNeedsConfirmation', sessionId });
  }

  /** `acknowledged`: the dialog showed the guard's flag and the person confirmed it. */
  confirm(sessionId: string, cancelReview: (id: string) => void, acknowledged = false): void {
    this.ctx.deps.app.task('Queueing the merge', async () => {
      if (acknowledged)
        await acknowledgeGuard(
          { ...this.ctx.deps, note: (id, text) => this.ctx.note(id, text) },
          sessionId,
        );
      cancelReview(sessionId);
      await this.ctx.setStatus(sessionId, 'Queued');
      await this.ctx.note(sessionId, '[Merge] Added to the merge queue.');
      this.pump();
    });
  }

  async run(operation: Operation, signal: AbortSignal): Promise<void> {
    try {
      await this.merge(operation.sessionId, signal);
    } finally {
      this.finished(operation.sessionId);
    }
  }

  private async merge(sessionId: string, signal: AbortSignal): Promise<void> {
    const ctx = this.ctx;
    const { store } = ctx.deps;
    let session = await store.sessions.get(sessionId);
    if (!session || session.status !== 'Queued') return;
    const project = await store.projects.get(session.projectId);
    if (!project) throw new ReportedError('project missing');
    const refused = guardRefusal(session, 'merge');
    if (refused) {
      const text = `[Merge Error] ${refused}`;
      await ctx.note(sessionId, text);
      await ctx.setStatus(sessionId, session.questions.length > 0 ? 'Question' : 'Review');
      throw new ReportedError(text);
    }
    // One merge at a time per project, whichever Grove process runs it (a TUI's
    // queue and `grove merge` share the main checkout): wait for the other.
    let started = await store.sessions.startMerging(sessionId, ctx.now());
    if (!started)
      await ctx.note(
        sessionId,
        '[Merge] Waiting for the merge of another session of this project to finish.',
      );
    while (!started) {
      await new Promise((resolve) => setTimeout(resolve, MERGE_WAIT_MS));
      if (signal.aborted) {
        await ctx.setStatus(sessionId, 'Review');
        throw new ReportedError(
          '[Merge] Stopped while waiting for another merge; the session is back in Review.',
        );
      }
      const current = await store.sessions.get(sessionId);
      if (!current || current.status !== 'Queued') return;
      started = await store.sessions.startMerging(sessionId, ctx.now());
    }
    session = started;
    ctx.deps.app.emit({ type: 'sessionUpdated', session });
    // Whatever fails, the session leaves Merging: back to Review (Question when the agent asked something).
    const returnTo = session.questions.length > 0 ? 'Question' : 'Review';
    const back = async (text: string): Promise<never> => {
      await ctx.note(sessionId, text);
      await ctx.setStatus(sessionId, returnTo);
      throw new ReportedError(text);
    };
    try {
      await this.land(session, project.path, signal, back);
    } catch (error) {
      if (error instanceof ReportedError) throw error;
      const current = await store.sessions.get(sessionId);
      // A failure after the squash commit: recovery finished the merge.
      if (current?.status === 'Done') return;
      if (current?.status !== 'Merging') throw error;
      ctx.deps.runtime.logger.log('error', `merge of ${sessionId} failed`, error);
      return back(
        `[Merge Error] ${errorText(error)}. Nothing was merged into ${session.baseBranch}; the session is back in ${returnTo} with its work.`,
      );
    }
  }

  /** The merge itself, once the session is Merging; `back` reports a failure and returns the session to Review. */
  private async land(
    session: Session,
    mainCheckout: string,
    signal: AbortSignal,
    back: (text: string) => Promise<never>,
  ): Promise<void> {
    const ctx = this.ctx;
    const { store, git, pool } = ctx.deps;
    const sessionId = session.id;
    // The main checkout must be on the base branch and clean, before the rebase and
    // again after it (the agent may take minutes, and the person keeps working there).
    const checkoutProblem = async (): Promise<string | null> => {
      const branch = await git.currentBranch(mainCheckout);
      if (branch !== session.baseBranch) {
        return `[Merge Error] The main checkout (${mainCheckout}) is on ${branch ?? 'a detached HEAD'}, not ${session.baseBranch}. Check out ${session.baseBranch} there and merge again. Nothing was changed.`;
      }
      const unfinished = await git.inProgress(mainCheckout);
      if (unfinished) {
        return `[Merge Error] The main checkout (${mainCheckout}) is in the middle of a git ${unfinished}. Finish or abort it there (git ${unfinished} --continue or --abort) and merge again. Nothing was changed.`;
      }
      if (!(await git.isClean(mainCheckout))) {
        return `[Merge Error] The main checkout (${mainCheckout}) has uncommitted changes. Commit or stash them and merge again. Nothing was changed.`;
      }
      return null;
    };
    // The base deleted by hand stops the merge in words; one rewound under the
    // session merges, with a notice of the commits it brings back (as grove merge warns).
    const gone = await baseBranchGone(git, mainCheckout, session);
    if (gone) return back(`[Merge Error] The merge stopped: ${gone}`);
    const before = await checkoutProblem();
    if (before) return back(before);
    const rewound = await baseRewoundLines(git, mainCheckout, session, session.worktreePath);
    if (rewound.length > 0) await ctx.note(sessionId, `[Merge] ${rewound.join('\n')}`);
    try {
      await clearUnfinishedGit(ctx, session, 'Merge');
      await commitPending(ctx, session);
    } catch (error) {
      return back(
        `[Merge Error] Could not commit the session's pending changes: ${errorText(error)}. Nothing was merged.`,
      );
    }
    const rebased = await assistedRebase(
      ctx,
      session,
      mainCheckout,
      session.baseBranch,
      signal,
      'Merge',
    );
    if (!rebased.ok) {
      return back(
        `[Merge Error] Rebasing onto ${session.baseBranch} stopped on conflicts in ${rebased.files.map(sanitizePath).join(', ')} (${rebased.reason}). The rebase was aborted; the branch is as it was. ${conflictNextStep(session, 'merge')}`,
      );
    }
    // The conflict resolution ran an agent: what the guard put back stops the merge here.
    const flagged = guardRefusal((await store.sessions.get(sessionId)) ?? session, 'merge');
    if (flagged)
      return back(
        `[Merge Error] ${flagged}\nNothing was changed in ${session.baseBranch}; the session branch is rebased onto it.`,
      );
    const after = await checkoutProblem();
    if (after)
      return back(
        after.replace(
          'Nothing was changed.',
          `Nothing was changed there; the session branch is rebased onto ${session.baseBranch}.`,
        ),
      );
    const fresh = (await store.sessions.get(sessionId)) ?? session;
    const message =
      (await git.lastCommitMessage(session.worktreePath).catch(() => null)) ??
      fresh.commitMessage ??
      fresh.title;
    const sessionHead = await git.headCommit(session.worktreePath);
    const baseHead = await git.headCommit(mainCheckout);
    // Recorded before the squash starts: recovery takes back a squash left
    // staged, or finishes one that was committed (see git-steps.ts).
    const step = {
      kind: 'squash' as const,
      step: 'squashing',
      sessionId,
      projectId: session.projectId,
      dir: mainCheckout,
      branch: session.baseBranch,
      headBefore: baseHead,
      detail: { sessionHead, sessionBranch: session.branch },
    };
    await withGitStep(ctx.stepDeps(), step, 'Merge', async (advance) => {
      let merged;
      try {
        const hooks = hooksFor(
          await loadSettings(store, session.projectId),
          ctx.deps.agents,
          session.agent,
          mainCheckout,
          ctx.deps.runtime.env,
          mainCheckout,
        );
        merged = await git.squashMerge(
          mainCheckout,
          session.branch,
          message,
          (tree) => advance('committing', { tree }),
          hooks,
        );
      } catch (error) {
        return back(`[Merge Error] The squash merge failed and was undone: ${errorText(error)}`);
      }
      if (!merged.merged) {
        await ctx.note(
          sessionId,
          `[Merge] Nothing to merge: ${session.baseBranch} already has every change of this session.`,
        );
      } else {
        await advance('cleaning up', { commit: merged.commit });
        await store.sessions.update(sessionId, { mergedCommit: merged.commit }, ctx.now());
        await ctx.note(
          sessionId,
          `[Merge] Merged into ${session.baseBranch} as ${merged.commit.slice(0, 12)}.`,
        );
      }
      // The work is on the base branch now: the worktree and branch can go (on its host too).
      await pool.release(sessionId);
      await recordHostCleanup(ctx.hostCleanup(), session, mainCheckout);
      await git
        .removeWorktree(mainCheckout, session.worktreePath, { force: true })
        .catch((e: unknown) => ctx.deps.runtime.logger.log('warn', 'worktree removal failed', e));
      await git
        .deleteBranch(mainCheckout, session.branch, { force: true })
        .catch((e: unknown) => ctx.deps.runtime.logger.log('warn', 'branch removal failed', e));
      await ctx.setStatus(sessionId, 'Done');
      await cleanUpAfterEnd(ctx.hostCleanup(), session);
    });
  }
}

/** `r`: rebase the session branch onto its base (queued behind a running turn). */
export async function runRebase(
  ctx: ReviewContext,
  operation: Operation,
  signal: AbortSignal,
): Promise<void> {
  const { store } = ctx.deps;
  let session = await store.sessions.get(operation.sessionId);
  if (!session) return;
  if (!['Review', 'AgentReview', 'Question', 'InProgress'].includes(session.status)) return;
  const project = await store.projects.get(session.projectId);
  if (!project) throw new ReportedError('project missing');
  const returnTo = session.questions.length > 0 ? 'Question' : 'Review';
  if (session.status === 'InProgress') session = await ctx.setStatus(session.id, 'Review');
  session = await ctx.setStatus(session.id, 'Rebasing');
  let failure: string | null = null;
  try {
    await clearUnfinishedGit(ctx, session, 'Rebase');
    await commitPending(ctx, session);
    const outcome = await assistedRebase(
      ctx,
      session,
      project.path,
      session.baseBranch,
      signal,
      'Rebase',
    );
    if (outcome.ok) await ctx.note(session.id, `[Rebase] Rebased onto ${session.baseBranch}.`);
    else
      failure = `[Rebase Error] Conflicts in ${outcome.files.map(sanitizePath).join(', ')} (${outcome.reason}). The rebase was aborted; the branch is as it was. ${conflictNextStep(session, 'rebase')}`;
  } catch (error) {
    failure = `[Rebase Error] ${errorText(error)}. The branch is as it was.`;
  } finally {
    if (failure) await ctx.note(session.id, failure);
    await ctx.setStatus(session.id, returnTo);
  }
  await ctx.deps.sessions.refreshDiff(session.id);
  if (failure) throw new ReportedError(failure);
}
