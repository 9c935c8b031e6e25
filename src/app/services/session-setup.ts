import { randomUUID } from 'node:crypto';
import { existsSync, lstatSync, realpathSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { shortId, type Session } from '../../domain/session.js';
import type { SessionStatus } from '../../domain/session-status.js';
import type { ShellRunner } from '../../infra/shell.js';
import type { GitClient, Store } from '../ports.js';
import { noteGroveWrite } from './agent-guard.js';
import { shareDependencies } from './shared-dependencies.js';

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

/**
 * Runs `work`, Grove's own making of the session's branch, as a Grove write
 * the agent guard knows (agent-guard.ts): another session's agent run that
 * recorded the refs before the branch was there does not take it for its
 * agent's doing and delete it.
 */
async function asGroveWrite<T>(
  session: Session,
  now: () => number,
  work: () => Promise<T>,
): Promise<T> {
  const ended = noteGroveWrite(session.projectId, session.worktreePath, session.branch, now());
  try {
    return await work();
  } finally {
    ended(now());
  }
}

/** Worktree folder for a new session: the project setting, else GROVE_HOME/wt. */
export function worktreeRoot(setting: string | undefined, defaultRoot: string): string {
  return setting && setting.trim() !== '' ? setting.trim() : defaultRoot;
}

export function worktreePathFor(root: string, projectName: string, shortId: string): string {
  const safe = projectName.replace(/[^A-Za-z0-9._-]+/g, '-').slice(0, 40) || 'project';
  return join(root, `${safe}-${shortId}`);
}

/** Whether anything (a folder, a file, even a dangling link) is at `path`. */
function taken(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

export interface SessionPlace {
  readonly id: string;
  readonly branch: string;
  readonly worktreePath: string;
}

/**
 * A new session's id, with its branch `grove/<short id>` and its worktree
 * folder both free: not a branch the person (or an earlier Grove) made, not
 * a folder that is there, not another session's short id. A random id that
 * collides is drawn again, so a session never starts on, nor cleans up,
 * something Grove did not make for it.
 */
export async function newSessionPlace(
  deps: { readonly git: GitClient; readonly store: Store },
  mainCheckout: string,
  root: string,
  projectName: string,
  newId: () => string = randomUUID,
  /** A short ASCII slug the branch carries after the id (issueSlug); '' for none. */
  slug = '',
): Promise<SessionPlace> {
  for (let attempt = 0; attempt < 32; attempt++) {
    const id = newId();
    const short = shortId(id);
    const branch = slug === '' ? `grove/${short}` : `grove/${short}-${slug}`;
    const worktreePath = worktreePathFor(root, projectName, short);
    if (taken(worktreePath)) continue;
    if ((await deps.store.sessions.findByIdPrefix(short)).length > 0) continue;
    if (await deps.git.branchExists(mainCheckout, branch)) continue;
    return { id, branch, worktreePath };
  }
  throw new Error(
    `Every session id drawn was already taken by a branch grove/… or a folder in ${root}. Remove branches or folders you no longer need there, then start the session again.`,
  );
}

function samePath(a: string, b: string): boolean {
  const real = (p: string): string => {
    try {
      return realpathSync(p);
    } catch {
      return resolve(p);
    }
  };
  return resolve(a) === resolve(b) || real(a) === real(b);
}

/**
 * Whether the session's branch is checked out in the session's own worktree:
 * then Grove made both, and may remove them. A branch that only shares the
 * session's name (made by the person, or left by a failed start that undid
 * itself) is not the session's.
 */
export async function ownsCheckout(
  git: GitClient,
  mainCheckout: string,
  session: Pick<Session, 'branch' | 'worktreePath'>,
): Promise<boolean> {
  const list = await git.listWorktrees(mainCheckout).catch(() => []);
  return list.some((w) => w.branch === session.branch && samePath(w.path, session.worktreePath));
}

/**
 * Removes an unstarted session's worktree and branch, when Grove made them
 * (see ownsCheckout); leaves alone a branch or folder it did not make.
 */
export async function removeUnstartedCheckout(
  git: GitClient,
  mainCheckout: string,
  session: Pick<Session, 'branch' | 'worktreePath'>,
): Promise<void> {
  if (!(await ownsCheckout(git, mainCheckout, session))) return;
  await git.removeWorktree(mainCheckout, session.worktreePath, { force: true }).catch(() => {});
  await git.deleteBranch(mainCheckout, session.branch, { force: true }).catch(() => {});
}

/**
 * Makes the session's worktree ready: the worktree on its new branch, the
 * files listed in .worktreeinclude, submodules, the setup command, then the
 * shared folders (shared-dependencies.ts).
 * Throws if the worktree cannot be created, after removing whatever of it
 * this call made (never a branch or folder that was there before); a failing
 * setup command is reported in the transcript but leaves the worktree usable.
 */
export async function prepareWorktree(
  deps: SetupDeps,
  session: Session,
  mainCheckout: string,
  /** The project's settings: `setup.command`, the shared folders and how they are shared. */
  settings: Readonly<Record<string, string>>,
  signal: AbortSignal,
  /** Where the new branch starts (a fork: the parent's snapshot commit); the base branch by default. */
  startRef: string = session.baseBranch,
): Promise<void> {
  await makeCheckout(deps, session, mainCheckout, startRef);
  await runSetupCommand(deps, session, settings['setup.command'] ?? '', signal);
  await shareDependencies(deps, session, mainCheckout, settings, signal);
}

/** The project's setup command in the new worktree; its output and failure go to the transcript. */
async function runSetupCommand(
  deps: SetupDeps,
  session: Session,
  setupCommand: string,
  signal: AbortSignal,
): Promise<void> {
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

/**
 * The worktree on its new branch, files from .worktreeinclude, submodules.
 * Refuses a branch or folder that is already there (Grove did not make it);
 * on failure, undoes only what it made.
 */
async function makeCheckout(
  deps: SetupDeps,
  session: Session,
  mainCheckout: string,
  startRef: string,
): Promise<void> {
  const { git } = deps;
  if (await git.branchExists(mainCheckout, session.branch))
    throw new Error(
      `a branch named ${session.branch} already exists in ${mainCheckout}, and Grove did not make it for this session, so it is left as it is. Rename or delete that branch, or start a new session.`,
    );
  if (taken(session.worktreePath))
    throw new Error(
      `${session.worktreePath} already exists, and Grove did not make it for this session, so it is left as it is. Move it away, or start a new session.`,
    );
  // On failure addWorktree leaves neither branch nor folder behind.
  await asGroveWrite(session, deps.now, async () => {
    await git.addWorktree(mainCheckout, session.worktreePath, session.branch, startRef);
    // For a guard in another Grove process: a session changed since its run began is Grove's work.
    await deps.store.sessions.update(session.id, {}, deps.now());
  });
  try {
    const copied = await git.copyWorktreeInclude(mainCheckout, session.worktreePath);
    if (copied.length > 0) {
      await deps.note(
        session.id,
        'notice',
        `[Setup] Copied from the main checkout (.worktreeinclude): ${copied.join(', ')}`,
      );
    }
    await git.initSubmodules(session.worktreePath);
  } catch (error) {
    // The worktree and its branch were made just above: they are this call's own.
    await git.removeWorktree(mainCheckout, session.worktreePath, { force: true }).catch(() => {});
    await git.deleteBranch(mainCheckout, session.branch, { force: true }).catch(() => {});
    throw error;
  }
}

/** What repairing a session's worktree or branch needs. */
export interface WorktreeRepairDeps {
  readonly git: GitClient;
  readonly store: Store;
  readonly note: (sessionId: string, text: string) => Promise<void>;
  readonly now: () => number;
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
 * a branch deleted by hand is made again at the commit its worktree is at;
 * the transcript says so. Throws WorktreeMissingError when both are gone.
 * Resolves with whether something was recreated.
 */
export async function ensureWorktree(
  deps: WorktreeRepairDeps,
  session: Session,
  mainCheckout: string,
): Promise<boolean> {
  if (WITHOUT_WORKTREE.has(session.status)) return false;
  if (existsSync(session.worktreePath)) return restoreBranch(deps, session, mainCheckout);
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

/** The worktree is there: its branch, deleted by hand, is made again at the worktree's commit. */
async function restoreBranch(
  deps: WorktreeRepairDeps,
  session: Session,
  mainCheckout: string,
): Promise<boolean> {
  const { git } = deps;
  if (await git.branchExists(mainCheckout, session.branch)) return false;
  const commit = await git.worktreeHeadCommit(session.worktreePath).catch(() => null);
  if (commit === null)
    throw new WorktreeMissingError(
      `The session's branch ${session.branch} was deleted, and its worktree ${session.worktreePath} does not say which commit it was at, so the branch cannot be recreated. Its files are still in the worktree: copy what you need, then cancel the session.`,
    );
  try {
    await asGroveWrite(session, deps.now, async () => {
      await git.recreateBranch(mainCheckout, session.worktreePath, session.branch, commit);
      // For a guard in another Grove process: a session changed since its run began is Grove's work.
      await deps.store.sessions.update(session.id, {}, deps.now());
    });
  } catch (error) {
    throw new WorktreeMissingError(
      `The session's branch ${session.branch} was deleted, and recreating it at ${commit.slice(0, 12)} failed: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  await deps.note(
    session.id,
    `[Worktree] The branch ${session.branch} was deleted outside Grove; it was recreated at ${commit.slice(0, 12)}, the commit its worktree ${session.worktreePath} is at. The worktree's files are as they were.`,
  );
  return true;
}
