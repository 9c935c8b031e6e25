import { closesLine } from '../../../domain/issue.js';
import type { Operation } from '../../../domain/operation.js';
import type { PullRequestInfo } from '../../../domain/review-request.js';
import { remoteBranchRefusal } from '../../../domain/branch-name.js';
import type { Session } from '../../../domain/session.js';
import type { ForgeConnection } from '../../ports.js';
import { clearUnfinishedGit, commitPending } from './merge.js';
import { ReportedError } from '../worker.js';
import { guardRefusal } from '../agent-guard.js';
import type { ReviewContext } from './context.js';

const REMOTE = 'origin';

/** Title and body of the pull request, from the session commit message and summary. */
export function pullRequestText(session: Session): { title: string; body: string } {
  const message = session.commitMessage ?? session.title;
  const [subject = session.title, ...rest] = message.split('\n');
  const body = rest.join('\n').trim();
  const parts = [body];
  if (session.summary?.session) parts.push(`## Summary\n\n${session.summary.session}`);
  // Merging the pull request closes the session's issue (GitHub's closing keyword).
  if (session.issue) parts.push(closesLine(session.issue));
  parts.push('_Opened with Grove from an agent session._');
  return {
    title: subject.trim() || session.branch,
    body: parts.filter((p) => p !== '').join('\n\n'),
  };
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Stores the pull request Grove knows of. `written` is what Grove itself
 * last wrote as title and body (null fields: Grove wrote none, so it never
 * rewrites them); leaving it out keeps the stored values.
 */
export async function storePullRequest(
  ctx: ReviewContext,
  sessionId: string,
  pr: PullRequestInfo,
  written: { title: string | null; body: string | null } | null,
): Promise<void> {
  await ctx.deps.store.reviewRequests.upsert(sessionId, {
    number: pr.number,
    url: pr.url,
    state: pr.state,
    isDraft: pr.isDraft,
    reviewDecision: pr.reviewDecision,
    headBranch: pr.headBranch,
    baseBranch: pr.baseBranch,
    ...(written ? { writtenTitle: written.title, writtenBody: written.body } : {}),
    lastRefreshedAt: ctx.now(),
  });
}

/** `p`: the first publish asks for the remote branch name; later ones reuse it. */
export function requestPublish(ctx: ReviewContext, sessionId: string): void {
  const { app } = ctx.deps;
  const session = app.state.sessions.find((s) => s.id === sessionId);
  if (!session) return;
  if (session.publishedBranch) {
    publish(ctx, sessionId, session.publishedBranch);
    return;
  }
  app.apply({ type: 'publishNeedsBranch', sessionId, suggested: session.branch });
}

export function publish(ctx: ReviewContext, sessionId: string, remoteBranch: string): void {
  const { app } = ctx.deps;
  const session = app.state.sessions.find((s) => s.id === sessionId);
  if (!session) return;
  const name = remoteBranch.trim() || session.branch;
  const refused = session.publishedBranch ? null : remoteBranchRefusal(name, session.baseBranch);
  if (refused) {
    ctx.notice('error', refused);
    return;
  }
  app.task('Publishing', async () => {
    await ctx.enqueue(sessionId, 'publish', { remoteBranch: session.publishedBranch ?? name });
    ctx.notice(
      'info',
      session.status === 'InProgress' ? 'Publish queued behind the running turn.' : 'Publishing…',
    );
  });
}

async function connect(
  ctx: ReviewContext,
  projectPath: string,
  signal: AbortSignal,
): Promise<ForgeConnection> {
  const url = await ctx.deps.git.remoteUrl(projectPath, REMOTE);
  if (!url) throw new Error(`The project has no "${REMOTE}" remote to publish to.`);
  return ctx.deps.forge.connect(url, signal);
}

/** A queued publish operation (`p`): pushes the branch named in its payload, or the one already published. */
export async function runPublish(
  ctx: ReviewContext,
  operation: Operation,
  signal: AbortSignal,
): Promise<boolean> {
  const requested =
    typeof operation.payload['remoteBranch'] === 'string'
      ? operation.payload['remoteBranch']
      : null;
  return publishBranch(ctx, operation.sessionId, requested, signal, false);
}

/**
 * Pushes the session branch and opens (or finds) its draft pull request.
 * `auto` is the quiet re-push after a later turn (no operation of its own).
 * Resolves with whether the branch was pushed.
 */
export async function publishBranch(
  ctx: ReviewContext,
  sessionId: string,
  requestedBranch: string | null,
  signal: AbortSignal,
  auto: boolean,
): Promise<boolean> {
  const { store, git } = ctx.deps;
  const session = await store.sessions.get(sessionId);
  if (!session) return false;
  if (!['Review', 'AgentReview', 'Question'].includes(session.status)) {
    if (auto) return false;
    const text = `[Publish Error] A ${session.status} session cannot be published.`;
    await ctx.note(session.id, text);
    await ctx.deps.sessions.publishSession(session.id);
    throw new ReportedError(text);
  }
  const refused = guardRefusal(session, 'publish');
  if (refused) {
    // The automatic re-push stays quiet: the flag's notice already says it.
    if (auto) return false;
    const text = `[Publish Error] ${refused}`;
    await ctx.note(session.id, text);
    await ctx.deps.sessions.publishSession(session.id);
    throw new ReportedError(text);
  }
  const badBranch =
    session.publishedBranch === null && requestedBranch !== null
      ? remoteBranchRefusal(requestedBranch, session.baseBranch)
      : null;
  if (badBranch) {
    if (auto) return false;
    const text = `[Publish Error] ${badBranch} Nothing was pushed.`;
    await ctx.note(session.id, text);
    await ctx.deps.sessions.publishSession(session.id);
    throw new ReportedError(text);
  }
  const project = await store.projects.get(session.projectId);
  if (!project) return false;
  const remoteBranch = session.publishedBranch ?? requestedBranch ?? session.branch;
  const label = auto ? 'Branch Push' : 'Review Request';
  try {
    const forge = await connect(ctx, project.path, signal);
    await clearUnfinishedGit(ctx, session, label);
    await commitPending(ctx, session);
    if ((await git.commitsSince(session.worktreePath, session.baseBranch)) === 0) {
      await ctx.note(
        session.id,
        `[${label}] Nothing to publish yet: the session has no changes on ${session.baseBranch}.`,
      );
      return false;
    }
    // Ask GitHub first: bad credentials, a missing repository or a rate
    // limit stop the publish before anything is pushed.
    const linked =
      session.reviewRequest?.state === 'open'
        ? await forge.get(session.reviewRequest.number, signal)
        : null;
    const existing = linked?.state === 'open' ? linked : await forge.findOpen(remoteBranch, signal);
    await git.push(session.worktreePath, REMOTE, `${session.branch}:refs/heads/${remoteBranch}`, {
      forceWithLease: true,
      setUpstream: !session.publishedBranch,
    });
    const fresh = (await store.sessions.get(session.id)) ?? session;
    const wanted = pullRequestText(fresh);
    if (!existing) {
      const pr = await forge.createDraft(
        { head: remoteBranch, base: session.baseBranch, title: wanted.title, body: wanted.body },
        signal,
      );
      await storePullRequest(ctx, session.id, pr, wanted);
      await store.sessions.update(session.id, { publishedBranch: remoteBranch }, ctx.now());
      await ctx.note(
        session.id,
        `[Review Request] Created draft pull request #${pr.number}: ${pr.url}`,
      );
    } else {
      // Refresh only what the user has not edited on GitHub since Grove wrote it.
      const row = await store.reviewRequests.get(session.id);
      const ours = row?.number === existing.number ? row : null;
      const patch: { title?: string; body?: string } = {};
      if (
        ours &&
        ours.writtenTitle !== null &&
        existing.title === ours.writtenTitle &&
        existing.title !== wanted.title
      )
        patch.title = wanted.title;
      if (
        ours &&
        ours.writtenBody !== null &&
        existing.body === ours.writtenBody &&
        existing.body !== wanted.body
      )
        patch.body = wanted.body;
      const pr =
        Object.keys(patch).length > 0
          ? await forge.update(existing.number, patch, signal)
          : existing;
      // A pull request Grove did not open keeps the text its author wrote.
      await storePullRequest(
        ctx,
        session.id,
        pr,
        ours
          ? { title: patch.title ?? ours.writtenTitle, body: patch.body ?? ours.writtenBody }
          : { title: null, body: null },
      );
      await store.sessions.update(session.id, { publishedBranch: remoteBranch }, ctx.now());
      await ctx.note(
        session.id,
        `[${label}] Pushed ${remoteBranch}; pull request #${pr.number}${Object.keys(patch).length > 0 ? ' updated' : ''}: ${pr.url}`,
      );
    }
    return true;
  } catch (error) {
    const text = `[${auto ? 'Branch Push Error' : 'Publish Error'}] ${errorText(error)}`;
    await ctx.note(session.id, text);
    if (!auto) throw new ReportedError(text);
    return false;
  } finally {
    await ctx.deps.sessions.publishSession(session.id);
  }
}
