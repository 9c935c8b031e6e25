// Recorded git steps: every multi-step git operation Grove runs on a checkout
// (a session rebase, the squash merge into the base branch, a sync of the
// main checkout) is a `git_step` row before its first git command. When the
// operation fails, or the process running it is gone, the row says which
// checkout to put right and how: a half-done rebase is aborted, a staged
// squash is taken back, a squash that was committed is finished.
import { existsSync } from 'node:fs';
import type { GitStep, NewGitStep } from '../../domain/git-step.js';
import { canTransition } from '../../domain/session-status.js';
import type { Session } from '../../domain/session.js';
import type { Logger } from '../../infra/log.js';
import type { GitClient, Store } from '../ports.js';
import { recordHostCleanup } from './host-cleanup.js';
import { noteGroveWrite } from './agent-guard.js';

export interface GitStepDeps {
  readonly store: Store;
  readonly git: GitClient;
  /** `host:pid` of this process. */
  readonly owner: string;
  readonly now: () => number;
  readonly logger?: Logger;
  /** Appends a transcript notice and shows it (default: only appends it). */
  readonly note?: (sessionId: string, text: string) => Promise<void>;
}

/** What settling one step did, in words (null text: there was nothing to put right). */
export interface SettledStep {
  readonly step: GitStep;
  readonly text: string | null;
  /** The squash had been committed and its bookkeeping was finished: the session is Done. */
  readonly finishedMerge: boolean;
}

/** Moves the running operation to its next step (recorded for recovery and logs). */
export type AdvanceStep = (
  step: string,
  detail?: Readonly<Record<string, string>>,
) => Promise<void>;

const short = (commit: string): string => commit.slice(0, 12);

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Runs `fn` as a recorded git step. The row is written before `fn` starts
 * and removed when it ends. When `fn` throws, the step is settled at once
 * (the checkout never stays half-way), its words go to the session's
 * transcript under `label`, and the error is thrown on.
 */
export async function withGitStep<T>(
  deps: GitStepDeps,
  input: NewGitStep,
  label: string,
  fn: (advance: AdvanceStep) => Promise<T>,
): Promise<T> {
  const { store } = deps;
  // An agent's guard that sees these refs move knows it was Grove (agent-guard.ts).
  const ended = noteGroveWrite(input.projectId, input.dir, input.branch, deps.now());
  const id = await store.gitSteps.begin(input, deps.owner, deps.now());
  const advance: AdvanceStep = (step, detail) => store.gitSteps.advance(id, step, detail);
  try {
    const result = await fn(advance);
    ended(deps.now());
    await store.gitSteps.end(id);
    return result;
  } catch (error) {
    try {
      const step = (await store.gitSteps.list()).find((s) => s.id === id);
      if (step) {
        const settled = await settleGitStep(deps, step, label);
        if (settled.text && step.sessionId) {
          if (deps.note) await deps.note(step.sessionId, settled.text);
          else await store.transcript.append(step.sessionId, 'notice', settled.text, deps.now());
        }
      }
    } catch (settleError) {
      deps.logger?.log(
        'error',
        `settling the ${input.kind} step in ${input.dir} failed`,
        settleError,
      );
    } finally {
      await store.gitSteps.end(id).catch(() => {});
      ended(deps.now());
    }
    throw error;
  }
}

/** Finishes or undoes one recorded step (see the module comment). Never throws for git trouble: it says it in words. */
export async function settleGitStep(
  deps: GitStepDeps,
  step: GitStep,
  label: string,
  recovering = false,
): Promise<SettledStep> {
  try {
    switch (step.kind) {
      case 'rebase':
        return {
          step,
          text: await settleRebase(deps, step, label, recovering),
          finishedMerge: false,
        };
      case 'sync':
        return { step, text: await settleSync(deps, step, label), finishedMerge: false };
      case 'squash':
        return await settleSquash(deps, step, label);
    }
  } catch (error) {
    return {
      step,
      text: `[${label}] Grove could not put ${step.dir} right after an interrupted ${step.kind}: ${errorText(error)}`,
      finishedMerge: false,
    };
  }
}

async function settleRebase(
  deps: GitStepDeps,
  step: GitStep,
  label: string,
  recovering: boolean,
): Promise<string | null> {
  const { git } = deps;
  if (!existsSync(step.dir)) return null;
  const onto = step.detail['onto'] ?? 'its base';
  const undone = await git.abortInProgress(step.dir, step.branch);
  const head = await git.headCommit(step.dir);
  if (undone) {
    return `[${label}] The rebase of ${step.branch} onto ${onto} was interrupted (${step.step}). Grove aborted it: the worktree is back on ${step.branch} at ${short(head)}, with every commit and file of the session.`;
  }
  if (head !== step.headBefore && recovering) {
    return `[${label}] The rebase of ${step.branch} onto ${onto} had finished before Grove stopped: the branch is at ${short(head)}.`;
  }
  return null;
}

async function settleSync(deps: GitStepDeps, step: GitStep, label: string): Promise<string | null> {
  const { git } = deps;
  if (!existsSync(step.dir)) return null;
  const undone = await git.abortInProgress(step.dir, step.branch);
  if (!undone) return null;
  const head = await git.headCommit(step.dir);
  return `[${label}] The sync of ${step.branch} in ${step.dir} was interrupted while pulling (${step.step}). Grove aborted its rebase: ${step.branch} is back at ${short(head)}, as before the sync.`;
}

/** The session has its squash commit on the base branch: remove the worktree and branch, and mark it Done. */
async function finishMerge(
  deps: GitStepDeps,
  session: Session,
  repo: string,
  commit: string,
): Promise<void> {
  const { store, git, logger } = deps;
  const now = deps.now();
  await store.sessions.update(session.id, { mergedCommit: commit }, now);
  // A session on a host: what it left there is removed on the next contact (host-cleanup.ts).
  await recordHostCleanup({ store, git, now: deps.now }, session, repo).catch((e: unknown) =>
    logger?.log('warn', 'host clean-up not recorded', e),
  );
  await git
    .removeWorktree(repo, session.worktreePath, { force: true })
    .catch((e: unknown) => logger?.log('warn', 'worktree removal failed', e));
  if (await git.branchExists(repo, session.branch))
    await git
      .deleteBranch(repo, session.branch, { force: true })
      .catch((e: unknown) => logger?.log('warn', 'branch removal failed', e));
  let status = session.status;
  if (status !== 'Done' && !canTransition(status, 'Done') && canTransition(status, 'Merging'))
    status = (await store.sessions.setStatus(session.id, 'Merging', now)).status;
  if (status !== 'Done') await store.sessions.setStatus(session.id, 'Done', now);
}

async function settleSquash(deps: GitStepDeps, step: GitStep, label: string): Promise<SettledStep> {
  const { git, store } = deps;
  const base = step.branch;
  const repo = step.dir;
  const session = step.sessionId ? await store.sessions.get(step.sessionId) : undefined;
  // What the squash commit holds: the staged tree once it was recorded, else the session head's tree.
  const expected = step.detail['tree'] ?? step.detail['sessionHead'];
  // The squash commit is on the base branch: only the bookkeeping is left.
  let commit: string | null = null;
  for (const known of [step.detail['commit'], session?.mergedCommit]) {
    if (commit === null && known && (await git.isAncestor(repo, known, base))) commit = known;
  }
  if (commit === null && expected)
    commit = await git.findSquashCommit(repo, base, step.headBefore, expected);
  if (commit && session) {
    await finishMerge(deps, session, repo, commit);
    return {
      step,
      text: `[${label}] The merge into ${base} had been committed as ${short(commit)} before it was interrupted. Grove finished it: the worktree and branch are removed and the session is Done.`,
      finishedMerge: true,
    };
  }
  // Not committed: a squash left staged in the main checkout is taken back.
  if (!existsSync(repo)) return { step, text: null, finishedMerge: false };
  const head = await git.headCommit(repo);
  const branch = await git.currentBranch(repo);
  if (head !== step.headBefore || branch !== base || !(await git.hasStagedChanges(repo)))
    return { step, text: null, finishedMerge: false };
  try {
    await git.undoStagedSquash(repo);
  } catch (error) {
    return {
      step,
      text: `[${label}] The merge into ${base} was interrupted before its commit, and the main checkout (${repo}) still has it staged: ${errorText(error)}`,
      finishedMerge: false,
    };
  }
  return {
    step,
    text: `[${label}] The merge into ${base} was interrupted before its commit (${step.step}). Grove took back what it had staged in the main checkout (${repo}): ${base} is at ${short(head)} as before, and the session keeps all of its work on ${session?.branch ?? 'its branch'}.`,
    finishedMerge: false,
  };
}

/**
 * Settles the recorded steps of Grove processes that are gone (`isOwnerAlive`
 * false; this process's own steps are never touched). Returns what was done.
 */
export async function recoverGitSteps(
  deps: GitStepDeps,
  isOwnerAlive: (owner: string) => boolean,
  label = 'Restart',
): Promise<SettledStep[]> {
  const settled: SettledStep[] = [];
  for (const step of await deps.store.gitSteps.list()) {
    if (step.owner === deps.owner || isOwnerAlive(step.owner)) continue;
    settled.push(await settleGitStep(deps, step, label, true));
    await deps.store.gitSteps.end(step.id);
  }
  return settled;
}
