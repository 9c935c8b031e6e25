import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { sanitizePath } from '../../domain/sanitize.js';
import { git, gitOut } from './run.js';
import { inProgress } from './merge.js';

export type SnapshotResult =
  /** Nothing to keep: no uncommitted or untracked work, and HEAD is on a branch. */
  | { readonly kind: 'clean'; readonly head: string }
  /** The worktree's full state is the commit `commit`, at `ref`, parented on `head`. */
  | { readonly kind: 'saved'; readonly ref: string; readonly commit: string; readonly head: string }
  /** The work cannot be kept safely; the worktree must stay. */
  | { readonly kind: 'refused'; readonly reason: string };

/** A worktree as `git worktree list --porcelain` describes it. */
interface WorktreeEntry {
  readonly locked: boolean;
}

async function worktreeEntry(repo: string, dir: string): Promise<WorktreeEntry | null> {
  const out = await gitOut(['worktree', 'list', '--porcelain'], { cwd: repo });
  const wanted = resolve(dir);
  for (const block of out.split('\n\n')) {
    const lines = block.split('\n');
    const path = lines.find((l) => l.startsWith('worktree '))?.slice(9);
    if (path && resolve(path) === wanted)
      return { locked: lines.some((l) => l === 'locked' || l.startsWith('locked ')) };
  }
  return null;
}

/** Submodules whose own checkout holds changes (`git add` in the outer worktree cannot keep those). */
async function dirtySubmodules(dir: string): Promise<string[]> {
  const out = (
    await git(['status', '--porcelain=v2', '-z', '--ignore-submodules=none'], { cwd: dir })
  ).stdout;
  const dirty: string[] = [];
  for (const record of out.split('\0')) {
    // "1 XY SUB ..." where SUB is "S<c><m><u>": c = another commit checked out (its
    // history lives in the worktree's own module folder, removed with it), m =
    // tracked changes, u = untracked files in the submodule.
    const fields = record.split(' ');
    if (fields[0] !== '1' && fields[0] !== '2') continue;
    const sub = fields[2] ?? '';
    if (sub.startsWith('S') && sub !== 'S...')
      dirty.push(sanitizePath(fields.slice(fields[0] === '2' ? 9 : 8).join(' ')));
  }
  return dirty;
}

/** Whether git can write commits here as is (a configured or derivable committer identity). */
async function hasIdentity(dir: string): Promise<boolean> {
  return (await git(['var', 'GIT_COMMITTER_IDENT'], { cwd: dir, okCodes: [128] })).exitCode === 0;
}

const FALLBACK_IDENTITY = {
  GIT_AUTHOR_NAME: 'Grove',
  GIT_AUTHOR_EMAIL: 'grove@localhost',
  GIT_COMMITTER_NAME: 'Grove',
  GIT_COMMITTER_EMAIL: 'grove@localhost',
};

/** Why the worktree `dir` cannot be snapshotted (and so must not be removed), or null when it can. */
export async function snapshotBlocker(repo: string, dir: string): Promise<string | null> {
  if (!existsSync(dir)) return 'the folder does not exist';
  const entry = await worktreeEntry(repo, dir);
  if (!entry) return 'git does not list it as a worktree of this repository';
  if (entry.locked) return 'the worktree is locked (git worktree unlock allows it)';
  const unfinished = await inProgress(dir);
  if (unfinished) return `a git ${unfinished} is half done there`;
  const submodules = await dirtySubmodules(dir);
  if (submodules.length > 0) return `submodule ${submodules.join(', ')} holds work of its own`;
  const head = await git(['rev-parse', '--verify', '--quiet', 'HEAD^{commit}'], {
    cwd: dir,
    okCodes: [1, 128],
  });
  if (head.exitCode !== 0) return 'it has no commit checked out';
  return null;
}

/**
 * What a snapshot of `dir` would keep, without writing anything (no index
 * refresh, no objects): the number of uncommitted and untracked paths, and
 * whether HEAD is on a local branch. Null when it cannot be snapshotted.
 */
export async function snapshotPreview(
  repo: string,
  dir: string,
): Promise<{ readonly changes: number; readonly onBranch: boolean } | null> {
  if (await snapshotBlocker(repo, dir)) return null;
  const status = await git(['status', '--porcelain', '-z', '--untracked-files=all'], {
    cwd: dir,
    env: { GIT_OPTIONAL_LOCKS: '0' },
  });
  const changes = status.stdout
    .split('\0')
    .filter((r) => /^[ MADRCU?!]{2} /.test(r) && !r.startsWith('!!')).length;
  const head = await gitOut(['rev-parse', 'HEAD'], { cwd: dir });
  return { changes, onBranch: await onLocalBranch(repo, head) };
}

async function onLocalBranch(repo: string, commit: string): Promise<boolean> {
  return (
    (await gitOut(
      ['for-each-ref', '--count=1', '--format=%(refname)', '--contains', commit, 'refs/heads/'],
      { cwd: repo },
    )) !== ''
  );
}

/**
 * Keeps the worktree `dir` (of repository `repo`) as a commit at `ref`: its
 * full state, uncommitted and untracked files included (ignored files are
 * not), built in a temporary index so the worktree's own index and files are
 * never touched, and parented on its HEAD. Nothing is written when there is
 * nothing to keep (the state is HEAD's and HEAD is on a local branch).
 * Refuses — so the caller leaves the worktree alone — when the state cannot
 * be captured: a git rebase or merge half done, a submodule with changes of
 * its own, a locked or unregistered worktree.
 */
export async function snapshotWorktree(
  repo: string,
  dir: string,
  ref: string,
  message: string,
): Promise<SnapshotResult> {
  const blocker = await snapshotBlocker(repo, dir);
  if (blocker) return { kind: 'refused', reason: blocker };
  const headCommit = await gitOut(['rev-parse', '--verify', 'HEAD^{commit}'], { cwd: dir });

  const gitDir = await gitOut(['rev-parse', '--absolute-git-dir'], { cwd: dir });
  const tmp = await mkdtemp(join(tmpdir(), 'grove-snapshot-'));
  try {
    const index = join(tmp, 'index');
    // A copy of the real index: git reuses its file stats instead of hashing every file again.
    if (existsSync(join(gitDir, 'index'))) await copyFile(join(gitDir, 'index'), index);
    else await git(['read-tree', 'HEAD'], { cwd: dir, env: { GIT_INDEX_FILE: index } });
    await git(['add', '-A'], { cwd: dir, env: { GIT_INDEX_FILE: index }, timeoutMs: 10 * 60_000 });
    const tree = await gitOut(['write-tree'], { cwd: dir, env: { GIT_INDEX_FILE: index } });
    const headTree = await gitOut(['rev-parse', `${headCommit}^{tree}`], { cwd: dir });
    const onBranch = await onLocalBranch(repo, headCommit);
    if (tree === headTree && onBranch) return { kind: 'clean', head: headCommit };
    const identity = (await hasIdentity(dir)) ? {} : FALLBACK_IDENTITY;
    const commit = await gitOut(['commit-tree', tree, '-p', headCommit, '-F', '-'], {
      cwd: dir,
      input: message,
      env: identity,
    });
    await git(
      ['update-ref', '-m', 'grove gc: snapshot before removing the worktree', ref, commit],
      { cwd: repo },
    );
    // Read back: the ref must name the commit, and the commit hold the tree, before anything is removed.
    const stored = await gitOut(['rev-parse', '--verify', `${ref}^{tree}`], { cwd: repo });
    if (stored !== tree)
      return { kind: 'refused', reason: `the snapshot at ${ref} does not read back as written` };
    return { kind: 'saved', ref, commit, head: headCommit };
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}
