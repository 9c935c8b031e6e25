import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Session } from '../../domain/session.js';
import type { SessionStatus } from '../../domain/session-status.js';
import type { ShellRunner } from '../../infra/shell.js';
import type { GitClient, Store } from '../ports.js';

export interface SetupDeps {
  readonly store: Store;
  readonly git: GitClient;
  readonly shell: ShellRunner;
  readonly env: NodeJS.ProcessEnv;
  readonly now: () => number;
  /** Appends a transcript row and tells the UI. */
  readonly note: (sessionId: string, kind: 'notice' | 'output', text: string) => Promise<void>;
}

const SETUP_TIMEOUT_MS = 10 * 60 * 1000;

/** Worktree folder for a new session: the project setting, else GROVE_HOME/wt. */
export function worktreeRoot(setting: string | undefined, defaultRoot: string): string {
  return setting && setting.trim() !== '' ? setting.trim() : defaultRoot;
}

export function worktreePathFor(root: string, projectName: string, shortId: string): string {
  const safe = projectName.replace(/[^A-Za-z0-9._-]+/g, '-').slice(0, 40) || 'project';
  return join(root, `${safe}-${shortId}`);
}

/**
 * Makes the session's worktree ready: the worktree on its new branch, the
 * files listed in .worktreeinclude, submodules, then the setup command.
 * Throws if the worktree cannot be created; a failing setup command is
 * reported in the transcript but leaves the worktree usable.
 */
export async function prepareWorktree(
  deps: SetupDeps,
  session: Session,
  mainCheckout: string,
  setupCommand: string,
  signal: AbortSignal,
  /** Where the new branch starts (a fork: the parent's snapshot commit); the base branch by default. */
  startRef: string = session.baseBranch,
): Promise<void> {
  await deps.git.addWorktree(mainCheckout, session.worktreePath, session.branch, startRef);
  const copied = await deps.git.copyWorktreeInclude(mainCheckout, session.worktreePath);
  if (copied.length > 0) {
    await deps.note(
      session.id,
      'notice',
      `[Setup] Copied from the main checkout (.worktreeinclude): ${copied.join(', ')}`,
    );
  }
  await deps.git.initSubmodules(session.worktreePath);
  const command = setupCommand.trim();
  if (command === '') return;
  await deps.note(session.id, 'notice', `[Setup] Running: ${command}`);
  const result = await deps.shell.run(command, {
    cwd: session.worktreePath,
    env: {
      ...deps.env,
      GROVE_WORKTREE: session.worktreePath,
      GROVE_SESSION_ID: session.id,
      GROVE_BASE_BRANCH: session.baseBranch,
    },
    timeoutMs: SETUP_TIMEOUT_MS,
    signal,
  });
  if (result.output.trim() !== '') await deps.note(session.id, 'output', result.output.trimEnd());
  if (result.exitCode !== 0) {
    const why = result.timedOut ? 'timed out' : `exited with code ${result.exitCode}`;
    await deps.note(
      session.id,
      'notice',
      `[Setup Error] The setup command ${why}. The worktree is ready, but check the output above.`,
    );
  } else {
    await deps.note(session.id, 'notice', '[Setup] Setup command finished.');
  }
}

/** A session's worktree is gone and cannot be made again; the message says so in words. */
export class WorktreeMissingError extends Error {
  readonly kind = 'worktree_missing' as const;
}

/** Statuses whose worktree Grove removed on purpose (nothing to recreate). */
const WITHOUT_WORKTREE: ReadonlySet<SessionStatus> = new Set<SessionStatus>([
  'Done',
  'Canceled',
  'Merged',
]);

/**
 * Before a turn, a diff, a rebase or a merge: a worktree folder deleted
 * behind Grove's back is checked out again from the session's branch, and
 * the transcript says so. Throws WorktreeMissingError when the branch is
 * gone too. Resolves with whether it was recreated.
 */
export async function ensureWorktree(
  deps: {
    readonly git: GitClient;
    readonly note: (sessionId: string, text: string) => Promise<void>;
  },
  session: Session,
  mainCheckout: string,
): Promise<boolean> {
  if (WITHOUT_WORKTREE.has(session.status) || existsSync(session.worktreePath)) return false;
  if (!(await deps.git.branchExists(mainCheckout, session.branch))) {
    throw new WorktreeMissingError(
      `The worktree ${session.worktreePath} was deleted, and the session's branch ${session.branch} is gone too, so it cannot be recreated. Cancel the session (nothing is left to keep).`,
    );
  }
  try {
    await deps.git.restoreWorktree(mainCheckout, session.worktreePath, session.branch);
  } catch (error) {
    throw new WorktreeMissingError(
      `The worktree ${session.worktreePath} was deleted, and recreating it from the branch ${session.branch} failed: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  await deps.note(
    session.id,
    `[Worktree] ${session.worktreePath} was deleted outside Grove; it was recreated from the branch ${session.branch}. The work committed on the branch is back; changes that were never committed were lost with the folder.`,
  );
  return true;
}
