import * as commit from './commit.js';
import * as diff from './diff.js';
import * as files from './files.js';
import * as merge from './merge.js';
import * as remote from './remote.js';
import * as repo from './repo.js';
import * as worktree from './worktree.js';
import * as compare from './branch-compare.js';
import * as snapshot from './snapshot.js';
import * as guard from './guard.js';
import { createGitLocator, type RepositoryList } from './location.js';
import { withGitContext } from './simple.js';

export { GitError } from './run.js';
export type { StatusEntry } from './repo.js';
export type { Diff, DiffFile, DiffOptions, DiffStats, StagedDiff } from './diff.js';
export type { InProgressKind, RebaseResult, SquashResult } from './merge.js';
export type { CommitResult } from './commit.js';
export type { SnapshotResult } from './snapshot.js';
export type { GuardChange, GuardRestore, GuardSnapshot } from './guard.js';

/** Grove's one git adapter: argument arrays, explicit cwd, parsed porcelain output. */
export interface GitClient {
  repoRoot: typeof repo.repoRoot;
  currentBranch: typeof repo.currentBranch;
  statusPorcelain: typeof repo.statusPorcelain;
  isClean: typeof repo.isClean;
  headCommit: typeof repo.headCommit;
  branchExists: typeof repo.branchExists;
  upstreamOf: typeof repo.upstreamOf;
  aheadBehind: typeof repo.aheadBehind;
  branchHeads: typeof repo.branchHeads;
  commitSubjects: typeof repo.commitSubjects;
  commitIdentities: typeof repo.commitIdentities;
  lastBaseTip: typeof repo.lastBaseTip;
  remoteUrl: typeof repo.remoteUrl;
  listRemotes: typeof repo.listRemotes;
  commitsSince: typeof repo.commitsSince;
  lastCommitMessage: typeof repo.lastCommitMessage;
  addWorktree: typeof worktree.addWorktree;
  restoreWorktree: typeof worktree.restoreWorktree;
  worktreeHeadCommit: typeof worktree.worktreeHeadCommit;
  recreateBranch: typeof worktree.recreateBranch;
  removeWorktree: typeof worktree.removeWorktree;
  deleteBranch: typeof worktree.deleteBranch;
  listWorktrees: typeof worktree.listWorktrees;
  initSubmodules: typeof worktree.initSubmodules;
  copyWorktreeInclude: typeof worktree.copyWorktreeInclude;
  commitAll: typeof commit.commitAll;
  ensureHead: typeof commit.ensureHead;
  diffAgainstBase: typeof diff.diffAgainstBase;
  stageAllAndDiff: typeof diff.stageAllAndDiff;
  keepDiff: typeof diff.keepDiff;
  diffStats: typeof diff.diffStats;
  diffOfBranch: typeof diff.diffOfBranch;
  rebase: typeof merge.rebase;
  rebaseContinue: typeof merge.rebaseContinue;
  rebaseAbort: typeof merge.rebaseAbort;
  isRebaseInProgress: typeof merge.isRebaseInProgress;
  inProgress: typeof merge.inProgress;
  abortInProgress: typeof merge.abortInProgress;
  hasStagedChanges: typeof merge.hasStagedChanges;
  isAncestor: typeof merge.isAncestor;
  findSquashCommit: typeof merge.findSquashCommit;
  undoStagedSquash: typeof merge.undoStagedSquash;
  filesWithConflictMarkers: typeof merge.filesWithConflictMarkers;
  stageFiles: typeof merge.stageFiles;
  squashMerge: typeof merge.squashMerge;
  mergeTreeConflicts: typeof merge.mergeTreeConflicts;
  changedPaths: typeof compare.changedPaths;
  mergeTreeConflictsBatch: typeof compare.mergeTreeConflictsBatch;
  snapshotWorktree: typeof snapshot.snapshotWorktree;
  snapshotBlocker: typeof snapshot.snapshotBlocker;
  snapshotPreview: typeof snapshot.snapshotPreview;
  guardSnapshot: typeof guard.guardSnapshot;
  guardCheck: typeof guard.guardCheck;
  guardRestore: typeof guard.guardRestore;
  fetch: typeof remote.fetch;
  pullRebase: typeof remote.pullRebase;
  push: typeof remote.push;
  listFiles: typeof files.listFiles;
}

/**
 * The git adapter. With `env`, every git command a method starts runs in that
 * environment (under GIT_ENV) instead of `process.env`: the composition root
 * passes the environment Grove was started with, a test its own. With
 * `repositories` (the main checkouts of Grove's projects), a command in one
 * of their worktrees takes its git folders from the repository's own list,
 * never from the worktree's `.git` file (location.ts).
 */
export function createGitClient(env?: NodeJS.ProcessEnv, repositories?: RepositoryList): GitClient {
  const client: GitClient = {
    ...repo,
    ...worktree,
    ...commit,
    ...diff,
    ...merge,
    ...remote,
    ...files,
    ...compare,
    ...snapshot,
    ...guard,
  };
  if (!env && !repositories) return client;
  const context = { env, locator: repositories ? createGitLocator(repositories) : undefined };
  const bound: Record<string, (...args: unknown[]) => unknown> = {};
  for (const [name, method] of Object.entries(client) as [string, (...a: unknown[]) => unknown][]) {
    bound[name] = (...args) => withGitContext(context, () => method(...args));
  }
  return bound as unknown as GitClient;
}
