import { copyFile, mkdir, readFile, stat } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { GitError, git, gitOut } from './run.js';
import { settleCheckout } from './settle.js';

const adminQueues = new Map<string, Promise<unknown>>();

/**
 * Runs git's worktree administration for one repository one command at a
 * time. Two `git worktree add` at once can read each other's half-made entry
 * and fail ("failed to read .git/worktrees/…/commondir"): best-of-N starts
 * its variants together.
 */
function oneAtATime<T>(repo: string, work: () => Promise<T>): Promise<T> {
  const key = resolve(repo);
  const next = (adminQueues.get(key) ?? Promise.resolve()).catch(() => {}).then(work);
  const tail = next.catch(() => {});
  adminQueues.set(key, tail);
  void tail.then(() => {
    if (adminQueues.get(key) === tail) adminQueues.delete(key);
  });
  return next;
}

export async function addWorktree(
  repo: string,
  path: string,
  branch: string,
  startRef: string,
): Promise<void> {
  // Without this check git says only "not a valid object name: 'main'".
  const start = await git(['rev-parse', '--verify', '--quiet', `${startRef}^{commit}`], {
    cwd: repo,
    okCodes: [1, 128],
  });
  if (start.exitCode !== 0) {
    const anyCommit = await git(['rev-list', '-n', '1', '--all'], { cwd: repo, okCodes: [128] });
    const args = ['worktree', 'add', '-b', branch, path, startRef];
    if (anyCommit.stdout.trim() === '') {
      throw new GitError(
        args,
        start.exitCode,
        '',
        `The repository ${repo} has no commits yet, so a session has nothing to start from. Make a first commit on ${startRef} (for example: git commit --allow-empty -m "Initial commit"), then start the session again.`,
      );
    }
    throw new GitError(
      args,
      start.exitCode,
      '',
      `There is no branch or commit named ${startRef} in ${repo} to start the session from.`,
    );
  }
  await mkdir(dirname(path), { recursive: true });
  await oneAtATime(repo, async () => {
    // The branch first, on its own: `git branch` refuses one that exists, so a
    // failure after it is ours to undo, and a branch already there is never touched.
    await git(['branch', branch, startRef], { cwd: repo });
    try {
      await git(['worktree', 'add', path, branch], { cwd: repo });
    } catch (error) {
      await git(['branch', '-D', branch], { cwd: repo, okCodes: [1] }).catch(() => {});
      throw error;
    }
  });
  await settleCheckout(path);
}

/**
 * Checks an existing branch out into a worktree at `path` again, after its
 * folder was deleted behind git's back (prune first: git still lists it).
 */
export async function restoreWorktree(repo: string, path: string, branch: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await oneAtATime(repo, async () => {
    await git(['worktree', 'prune'], { cwd: repo });
    await git(['worktree', 'add', path, branch], { cwd: repo });
  });
  await settleCheckout(path);
}

/**
 * The commit a worktree is at: its HEAD, or, when its branch was deleted
 * (HEAD names a branch that is gone), the last commit its HEAD's reflog
 * records. Null when neither says.
 */
export async function worktreeHeadCommit(worktree: string): Promise<string | null> {
  const head = await git(['rev-parse', '-q', '--verify', 'HEAD^{commit}'], {
    cwd: worktree,
    okCodes: [1, 128],
  });
  if (head.exitCode === 0) return head.stdout.trim();
  const logPath = (
    await gitOut(['rev-parse', '--git-path', 'logs/HEAD'], { cwd: worktree })
  ).trim();
  const log = await readFile(resolve(worktree, logPath), 'utf8').catch(() => '');
  const last = log.trimEnd().split('\n').pop() ?? '';
  const commit = /^[0-9a-f]{40,64} ([0-9a-f]{40,64}) /.exec(last)?.[1];
  if (!commit || /^0+$/.test(commit)) return null;
  const known = await git(['cat-file', '-e', `${commit}^{commit}`], {
    cwd: worktree,
    okCodes: [1, 128],
  });
  return known.exitCode === 0 ? commit : null;
}

/**
 * Makes `branch` again at `commit` (refused if it exists) and puts the
 * worktree's HEAD on it; the worktree's files and index stay as they are.
 */
export async function recreateBranch(
  repo: string,
  worktree: string,
  branch: string,
  commit: string,
): Promise<void> {
  await git(['branch', branch, commit], { cwd: repo });
  await git(['symbolic-ref', 'HEAD', `refs/heads/${branch}`], { cwd: worktree });
}

export async function removeWorktree(
  repo: string,
  path: string,
  options: { force: boolean },
): Promise<void> {
  if (!existsSync(path)) {
    await oneAtATime(repo, () => git(['worktree', 'prune'], { cwd: repo }));
    return;
  }
  await oneAtATime(repo, () =>
    git(['worktree', 'remove', ...(options.force ? ['--force', '--force'] : []), path], {
      cwd: repo,
    }),
  );
}

export async function deleteBranch(
  repo: string,
  name: string,
  options: { force: boolean },
): Promise<void> {
  await git(['branch', options.force ? '-D' : '-d', name], { cwd: repo });
}

export interface WorktreeInfo {
  readonly path: string;
  readonly branch: string | null;
  readonly head: string | null;
}

export async function listWorktrees(repo: string): Promise<WorktreeInfo[]> {
  const out = await gitOut(['worktree', 'list', '--porcelain'], { cwd: repo });
  const list: WorktreeInfo[] = [];
  for (const block of out.split('\n\n')) {
    const lines = block.split('\n');
    const path = lines.find((l) => l.startsWith('worktree '))?.slice(9);
    if (!path) continue;
    const branch =
      lines
        .find((l) => l.startsWith('branch '))
        ?.slice(7)
        .replace(/^refs\/heads\//, '') ?? null;
    const head = lines.find((l) => l.startsWith('HEAD '))?.slice(5) ?? null;
    list.push({ path, branch, head });
  }
  return list;
}

export async function initSubmodules(dir: string): Promise<void> {
  if (!existsSync(join(dir, '.gitmodules'))) return;
  await git(['submodule', 'update', '--init', '--recursive'], { cwd: dir, timeoutMs: 10 * 60_000 });
}

/**
 * Copies the files matched by `.worktreeinclude` (gitignore syntax) that
 * exist in the main checkout — typically ignored files such as `.env` —
 * into the new worktree. Returns the copied relative paths.
 */
export async function copyWorktreeInclude(
  mainCheckout: string,
  worktree: string,
): Promise<string[]> {
  const includeFile = join(mainCheckout, '.worktreeinclude');
  if (!existsSync(includeFile)) return [];
  const out = (
    await git(
      ['ls-files', '-z', '--others', '--ignored', '--cached', `--exclude-from=${includeFile}`],
      { cwd: mainCheckout },
    )
  ).stdout;
  const copied: string[] = [];
  for (const rel of out.split('\0')) {
    if (rel === '' || rel === '.worktreeinclude') continue;
    const from = join(mainCheckout, rel);
    const to = join(worktree, rel);
    const info = await stat(from).catch(() => null);
    if (!info?.isFile() || existsSync(to)) continue;
    await mkdir(dirname(to), { recursive: true });
    await copyFile(from, to);
    copied.push(rel);
  }
  return copied.sort();
}
