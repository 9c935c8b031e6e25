import type { OwnerLiveness } from '../../infra/db/operation-repo.js';
import type { Logger } from '../../infra/log.js';
import type { GitClient, Store } from '../ports.js';
import { recoverGitSteps } from './git-steps.js';

/** The transcript notice of a session whose work a Grove process left unfinished. */
export const INTERRUPTED_NOTICE =
  '[Restart] The Grove process running or queueing work for this session stopped before it finished. That work did not complete; the session is back in Review with its worktree as it was.';

/** The notice when a running Grove finds that the process driving a session (e.g. `grove run`) died. */
export const DRIVER_GONE_NOTICE =
  "[Interrupted] The Grove process running this session's work (a `grove run` or another Grove) stopped before it finished. That work did not complete; the session is back in Review with its worktree as it was.";

/**
 * Operations left queued or running by Grove processes that are gone are
 * failed (queued prompts excepted: they stay queued and run when a Grove
 * takes the session again), their sessions return to Review, and each such
 * session's transcript says so with `notice`. Returns the ids of those
 * sessions.
 */
export async function recoverInterruptedOperations(
  store: Store,
  now: number,
  isOwnerAlive: OwnerLiveness,
  notice: string = INTERRUPTED_NOTICE,
  gitWork?: GitWorkRecovery,
): Promise<string[]> {
  const sessions = await store.operations.failInterrupted(now, isOwnerAlive);
  // Checkouts a dead process left half-way through a rebase, squash merge or
  // sync are put right; those sessions get a notice that says what was done.
  const settled = gitWork
    ? await recoverGitSteps(
        { store, now: () => now, ...gitWork },
        (owner) => isOwnerAlive(owner, null),
        gitWork.label,
      )
    : [];
  const told = new Set<string>();
  for (const { step, text } of settled) {
    if (text === null) continue;
    if (step.sessionId) {
      await store.transcript.append(step.sessionId, 'notice', text, now);
      told.add(step.sessionId);
    } else {
      gitWork?.onProjectNotice?.(text);
    }
  }
  for (const sessionId of sessions)
    if (!told.has(sessionId)) await store.transcript.append(sessionId, 'notice', notice, now);
  const stranded = gitWork ? await recoverStrandedSessions(store, now) : [];
  return [...new Set([...sessions, ...told, ...stranded])];
}

/** What recovering interrupted git work needs besides the store. */
export interface GitWorkRecovery {
  readonly git: GitClient;
  /** `host:pid` of this process (its own steps are never touched). */
  readonly owner: string;
  readonly logger?: Logger;
  /** How the notices begin, in brackets (default "Restart"). */
  readonly label?: string;
  /** Words about a checkout that belongs to no session (an interrupted sync of the main checkout). */
  readonly onProjectNotice?: (text: string) => void;
}

/** The notice of a session found in Merging or Rebasing with no operation left to finish it. */
export const STRANDED_NOTICE =
  '[Restart] This session was left in {status} by an earlier Grove that stopped without finishing; nothing is running it now. It is back in {to}, with its worktree as it is.';

/**
 * Sessions in Merging or Rebasing whose operation already ended (a failure
 * an older Grove did not undo) go back to Review, or Question when the agent
 * asked something.
 */
async function recoverStrandedSessions(store: Store, now: number): Promise<string[]> {
  const moved: string[] = [];
  for (const project of await store.projects.list()) {
    for (const listed of await store.sessions.listLive(project.id)) {
      if (listed.status !== 'Merging' && listed.status !== 'Rebasing') continue;
      // Looked at again in one transaction: an operation may have just started.
      const done = await store.transaction(async (trx) => {
        const session = await trx.sessions.get(listed.id);
        if (!session || (session.status !== 'Merging' && session.status !== 'Rebasing'))
          return false;
        if ((await trx.operations.listUnfinished(session.id)).length > 0) return false;
        const to = session.questions.length > 0 ? 'Question' : 'Review';
        await trx.sessions.setStatus(session.id, to, now);
        await trx.transcript.append(
          session.id,
          'notice',
          STRANDED_NOTICE.replace('{status}', session.status).replace('{to}', to),
          now,
        );
        return true;
      });
      if (done) moved.push(listed.id);
    }
  }
  return moved;
}

/**
 * After a restart, a focused review that was running is gone (it is not a
 * durable operation): its session steps back to Review so `f` can run it again.
 */
export async function recoverInterruptedReviews(store: Store, now: number): Promise<string[]> {
  const recovered: string[] = [];
  for (const session of await store.sessions.listFocusedReviewRunning()) {
    await store.sessions.update(
      session.id,
      { focusedReviewStatus: null, focusedReviewText: null },
      now,
    );
    if (session.status === 'AgentReview') await store.sessions.setStatus(session.id, 'Review', now);
    recovered.push(session.id);
  }
  return recovered;
}
