import {
  NO_CI_FIXER,
  ciFixDisplay,
  ciFixPrompt,
  ciFixerAttempts,
  ciFixerOn,
  ciFixerSwitchNote,
  conflictKey,
  decideCiFix,
  failureKey,
  type CiFixerState,
} from '../../../domain/ci-fixer.js';
import { stopText } from '../../../domain/budget.js';
import type { PullRequestChecks } from '../../../domain/checks.js';
import type { Operation } from '../../../domain/operation.js';
import type { PullRequestInfo } from '../../../domain/review-request.js';
import { sanitizePath } from '../../../domain/sanitize.js';
import type { Session } from '../../../domain/session.js';
import { budgetStatus } from '../budget.js';
import { loadSettings } from '../projects.js';
import { ReportedError } from '../worker.js';
import { assistedRebase } from './assisted-rebase.js';
import type { ReviewContext } from './context.js';
import { clearUnfinishedGit, commitPending } from './merge.js';

const REMOTE = 'origin';
/** What the fixer's own operations carry in their payload: the failure they answer. */
export const CI_FIX_PAYLOAD_KEY = 'ciFix';

/** Whether an operation is the fixer's (a fixing turn, or a rebase of a conflicted pull request). */
export function isCiFixerOperation(operation: Pick<Operation, 'payload'>): boolean {
  return typeof operation.payload[CI_FIX_PAYLOAD_KEY] === 'string';
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** What the fixer did on one look. */
export type CiFixerAction =
  | { readonly kind: 'none' }
  | { readonly kind: 'fix' | 'rebase'; readonly operationId: string }
  | { readonly kind: 'stopped'; readonly reason: string };

/** Stops the fixer for this streak: stored (the inbox shows it) and said in the transcript. */
async function stopFixer(
  ctx: ReviewContext,
  sessionId: string,
  state: CiFixerState,
  reason: string,
): Promise<void> {
  await ctx.deps.store.ciFixer.save(sessionId, {
    ...state,
    stopped: { reason, at: ctx.now() },
  });
  await ctx.note(
    sessionId,
    `[CI Fixer] Stopped: ${reason}. Grove pushes nothing more on its own for this failure; read the checks and reply to the agent, or fix it yourself.`,
  );
}

/** A person's prompt was queued in the session since `since` (the newest turn is not the fixer's). */
async function personWroteSince(
  ctx: ReviewContext,
  sessionId: string,
  since: number,
): Promise<boolean> {
  const [newest] = await ctx.deps.store.operations.newestFinished(
    ['start_prompt', 'reply'],
    [sessionId],
  );
  return newest !== undefined && !isCiFixerOperation(newest) && newest.queuedAt >= since;
}

/**
 * Called by the pull request poller after it read an open pull request and
 * its head's checks. With the fixer on (the session's own switch, else the
 * project's `github.ciFixer`) and the session idle in Review: a conflicted pull request gets a rebase (a queued
 * operation: runCiFixerRebase), a new failing run a fixing turn whose
 * prompt quotes the failing checks' log tails; the checks passing end the
 * streak. The limits (attempts, the same failure, the budget, a person's
 * prompt) stop it, in the transcript and the inbox.
 */
export async function followCiFixer(
  ctx: ReviewContext,
  session: Session,
  pr: PullRequestInfo,
  checks: PullRequestChecks | null,
): Promise<CiFixerAction> {
  const { store, runtime } = ctx.deps;
  const settings = await loadSettings(store, session.projectId);
  if (
    !ciFixerOn(settings, session.ciFixer ?? null) ||
    pr.state !== 'open' ||
    !session.publishedBranch
  )
    return { kind: 'none' };
  const state = await store.ciFixer.get(session.id);
  const current = checks?.headSha === pr.headSha ? checks : null;
  const conflicted = pr.conflicted === true;
  if (!conflicted && current?.state === 'passing') {
    // The streak is over: the next failure starts afresh.
    if (state.startedAt !== null || state.stopped)
      await store.ciFixer.save(session.id, NO_CI_FIXER);
    return { kind: 'none' };
  }
  if (!conflicted && current?.state !== 'failing') return { kind: 'none' };
  const key = conflicted ? conflictKey(pr.headSha) : failureKey(current as PullRequestChecks);
  const fresh = (await store.sessions.get(session.id)) ?? session;
  const unfinished = await store.operations.listUnfinished(session.id);
  const idle = fresh.status === 'Review' && unfinished.length === 0;
  if (!idle || state.stopped) return { kind: 'none' };
  const cap = ciFixerAttempts(settings);
  const personWrote =
    state.startedAt !== null && (await personWroteSince(ctx, session.id, state.startedAt));
  let budget: string | null = null;
  try {
    const stop = (await budgetStatus({ store, runtime }, session.id))?.stop ?? null;
    budget = stop ? stopText(stop) : null;
  } catch (error) {
    budget = `the budget could not be checked: ${errorText(error)}`;
  }
  const decision = decideCiFix({ on: true, idle, key, state, cap, personWrote, budget });
  if (decision.kind === 'wait') return { kind: 'none' };
  if (decision.kind === 'stop') {
    await stopFixer(ctx, session.id, state, decision.reason);
    return { kind: 'stopped', reason: decision.reason };
  }
  const attempt = state.attempts + 1;
  const next: CiFixerState = {
    startedAt: state.startedAt ?? ctx.now(),
    attempts: attempt,
    tried: [...state.tried, key],
    stopped: null,
  };
  const number = session.reviewRequest?.number ?? pr.number;
  const operationId = await store.transaction(async (tx) => {
    await tx.ciFixer.save(session.id, next);
    return conflicted
      ? tx.operations.enqueue(
          session.id,
          'rebase',
          { [CI_FIX_PAYLOAD_KEY]: key },
          ctx.now(),
          runtime.owner,
        )
      : tx.operations.enqueue(
          session.id,
          'reply',
          {
            prompt: ciFixPrompt(current as PullRequestChecks, number),
            display: ciFixDisplay(current as PullRequestChecks, attempt, cap),
            [CI_FIX_PAYLOAD_KEY]: key,
          },
          ctx.now(),
          runtime.owner,
        );
  });
  if (conflicted)
    await ctx.note(
      session.id,
      `[CI Fixer] Pull request #${number} conflicts with ${sanitizePath(session.baseBranch)}: rebasing it (attempt ${attempt} of ${cap}); the result is force-pushed with lease.`,
    );
  ctx.deps.queue.notify(session.id);
  return { kind: conflicted ? 'rebase' : 'fix', operationId };
}

/**
 * The fixer's rebase of a conflicted pull request: the base branch is
 * fetched, the session branch rebased onto origin's (the session's agent
 * resolves conflicts: assisted-rebase.ts), then force-pushed with lease to
 * the session's own pull request branch, only while it is still at the
 * commit the branch was at before the rebase. A refused push overwrites
 * nothing and stops the fixer, in words.
 */
export async function runCiFixerRebase(
  ctx: ReviewContext,
  operation: Operation,
  signal: AbortSignal,
): Promise<void> {
  const { store, git } = ctx.deps;
  let session = await store.sessions.get(operation.sessionId);
  if (!session || session.status !== 'Review' || !session.publishedBranch) return;
  const project = await store.projects.get(session.projectId);
  if (!project) throw new ReportedError('project missing');
  const remoteBranch = session.publishedBranch;
  const onto = `refs/remotes/${REMOTE}/${session.baseBranch}`;
  let failure: string | null = null;
  session = await ctx.setStatus(session.id, 'Rebasing');
  try {
    await clearUnfinishedGit(ctx, session, 'CI Fixer');
    await git.ensureHead(session.worktreePath, session.branch);
    // What Grove last pushed: the lease. Someone else's push since makes the remote differ.
    const expected = await git.headCommit(session.worktreePath);
    await commitPending(ctx, session);
    // Onto origin's base as Grove last fetched it (the status refresh fetches too) when it cannot now.
    const fetchError = await git.fetch(project.path, REMOTE).then(
      () => null,
      (error: unknown) => errorText(error),
    );
    if (fetchError)
      await ctx.note(
        session.id,
        `[CI Fixer] ${REMOTE} could not be fetched (${fetchError}); rebasing onto ${REMOTE}/${sanitizePath(session.baseBranch)} as last fetched.`,
      );
    const outcome = await assistedRebase(ctx, session, project.path, onto, signal, 'CI Fixer');
    if (!outcome.ok) {
      failure = `the rebase onto ${REMOTE}/${sanitizePath(session.baseBranch)} stopped on conflicts in ${outcome.files.map(sanitizePath).join(', ')} (${outcome.reason}); the branch is as it was`;
    } else {
      try {
        await git.push(
          session.worktreePath,
          REMOTE,
          `${session.branch}:refs/heads/${remoteBranch}`,
          { lease: { branch: remoteBranch, expected } },
        );
        const head = await git.headCommit(session.worktreePath);
        await ctx.note(
          session.id,
          `[CI Fixer] Rebased onto ${REMOTE}/${sanitizePath(session.baseBranch)} and force-pushed ${sanitizePath(remoteBranch)} with lease (${expected.slice(0, 12)} → ${head.slice(0, 12)}).`,
        );
      } catch (error) {
        failure = `the force-push with lease was refused: ${sanitizePath(remoteBranch)} on ${REMOTE} is no longer at ${expected.slice(0, 12)}, the commit Grove pushed last (${errorText(error)}). Nothing on ${REMOTE} was overwritten; the rebased branch is kept here`;
      }
    }
  } catch (error) {
    failure = `the rebase failed: ${errorText(error)}`;
  } finally {
    await ctx.setStatus(operation.sessionId, 'Review');
  }
  await ctx.deps.sessions.refreshDiff(operation.sessionId);
  if (failure) {
    await stopFixer(
      ctx,
      operation.sessionId,
      await store.ciFixer.get(operation.sessionId),
      failure,
    );
  }
}

/**
 * A session's own CI fixer switch: `on` or `off` over the project's
 * github.ciFixer, `null` the project's again. Stored with the session, and
 * the transcript says what now applies (and, when on, that Grove pushes on
 * its own). Returns the session (undefined: there is none).
 */
export async function setCiFixerSwitch(
  ctx: ReviewContext,
  sessionId: string,
  own: 'on' | 'off' | null,
): Promise<Session | undefined> {
  const { store } = ctx.deps;
  const before = await store.sessions.get(sessionId);
  if (!before) return undefined;
  await store.sessions.update(sessionId, { ciFixer: own }, ctx.now());
  const after = await ctx.deps.sessions.publishSession(sessionId);
  await ctx.note(sessionId, ciFixerSwitchNote(await loadSettings(store, before.projectId), own));
  return after;
}
