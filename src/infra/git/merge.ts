import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { sanitizeText } from '../../domain/sanitize.js';
import { runCommitHooks } from './commit.js';
import type { HookRunner } from './hooks.js';
import { GitError, git, gitOut } from './run.js';

export type RebaseResult =
  { readonly ok: true } | { readonly ok: false; readonly conflicts: string[] };

async function conflictedFiles(dir: string): Promise<string[]> {
  const out = await gitOut(['diff', '--name-only', '--diff-filter=U', '-z'], { cwd: dir });
  return out.split('\0').filter((p) => p !== '');
}

async function rebaseOutcome(
  dir: string,
  exitCode: number,
  args: readonly string[],
  stderr: string,
): Promise<RebaseResult> {
  if (exitCode === 0) return { ok: true };
  const conflicts = await conflictedFiles(dir);
  if (conflicts.length > 0) return { ok: false, conflicts };
  throw new GitError(
    args,
    exitCode,
    stderr,
    `git ${args[0] ?? ''} failed: ${stderr.split('\n').find((l) => /fatal|error/.test(l)) ?? stderr.trim().split('\n')[0] ?? ''}`,
  );
}

export async function rebase(dir: string, onto: string): Promise<RebaseResult> {
  const args = ['rebase', onto];
  const result = await git(args, { cwd: dir, okCodes: [1, 128] });
  return rebaseOutcome(dir, result.exitCode, args, result.stderr + result.stdout);
}

export async function rebaseContinue(dir: string): Promise<RebaseResult> {
  const args = ['-c', 'core.editor=true', 'rebase', '--continue'];
  const result = await git(args, { cwd: dir, okCodes: [1, 128] });
  return rebaseOutcome(dir, result.exitCode, args, result.stderr + result.stdout);
}

export async function rebaseAbort(dir: string): Promise<void> {
  await git(['rebase', '--abort'], { cwd: dir });
}

export async function isRebaseInProgress(dir: string): Promise<boolean> {
  return (await inProgress(dir)) === 'rebase';
}

/** A multi-step git command left unfinished in a checkout (by git, a person, or a Grove that was killed). */
export type InProgressKind = 'rebase' | 'merge' | 'cherry-pick' | 'revert';

/** Which multi-step git command, if any, is half done in `dir`. */
export async function inProgress(dir: string): Promise<InProgressKind | null> {
  const gitDir = await gitOut(['rev-parse', '--absolute-git-dir'], { cwd: dir });
  if (existsSync(join(gitDir, 'rebase-merge')) || existsSync(join(gitDir, 'rebase-apply')))
    return 'rebase';
  if (existsSync(join(gitDir, 'MERGE_HEAD'))) return 'merge';
  if (existsSync(join(gitDir, 'CHERRY_PICK_HEAD'))) return 'cherry-pick';
  if (existsSync(join(gitDir, 'REVERT_HEAD'))) return 'revert';
  return null;
}

/**
 * Ends whatever multi-step command is half done in `dir` the way git undoes
 * it (`git rebase --abort`, `git merge --abort`, …), so `branch` is checked
 * out again as it was before. When git cannot abort (a damaged rebase
 * folder), the command is dropped and `branch` — which an unfinished rebase
 * never moves — is checked out again, discarding only the half-done state.
 * Returns what was undone (null: nothing was in progress).
 */
export async function abortInProgress(dir: string, branch: string): Promise<InProgressKind | null> {
  const kind = await inProgress(dir);
  if (kind === null) return null;
  const abort = await git([kind, '--abort'], { cwd: dir, okCodes: [1, 128] });
  if (
    abort.exitCode === 0 &&
    (await inProgress(dir)) === null &&
    (await currentBranchOf(dir)) === branch
  )
    return kind;
  if (kind === 'rebase') await git(['rebase', '--quit'], { cwd: dir, okCodes: [1, 128] });
  else await git(['reset', '-q', '--merge'], { cwd: dir, okCodes: [1, 128] });
  await git(['checkout', '-q', '-f', branch], { cwd: dir });
  if ((await inProgress(dir)) !== null)
    throw new GitError(
      [kind, '--abort'],
      abort.exitCode,
      abort.stderr,
      `Could not end the unfinished git ${kind} in ${dir}: ${abort.stderr.trim().split('\n').slice(-1)[0] ?? ''}`,
    );
  return kind;
}

async function currentBranchOf(dir: string): Promise<string | null> {
  const result = await git(['symbolic-ref', '--quiet', '--short', 'HEAD'], {
    cwd: dir,
    okCodes: [1],
  });
  return result.exitCode === 0 ? result.stdout.trim() || null : null;
}

/** Whether the index holds changes not in HEAD. */
export async function hasStagedChanges(dir: string): Promise<boolean> {
  return (await git(['diff', '--cached', '--quiet'], { cwd: dir, okCodes: [1] })).exitCode === 1;
}

/** Whether `ancestor` is `commit` or one of its ancestors (false when either is unknown). */
export async function isAncestor(dir: string, ancestor: string, commit: string): Promise<boolean> {
  return (
    (await git(['merge-base', '--is-ancestor', ancestor, commit], { cwd: dir, okCodes: [1, 128] }))
      .exitCode === 0
  );
}

/**
 * The commit on `base` (first-parent history since `parent`) made directly
 * on `parent` whose tree is `sessionHead`'s: the squash commit of a merge of
 * `sessionHead` onto `parent` (null when there is none).
 */
export async function findSquashCommit(
  repo: string,
  base: string,
  parent: string,
  sessionHead: string,
): Promise<string | null> {
  const tree = await git(['rev-parse', '--verify', '--quiet', `${sessionHead}^{tree}`], {
    cwd: repo,
    okCodes: [1, 128],
  });
  if (tree.exitCode !== 0) return null;
  const log = await git(
    ['log', '--first-parent', '--reverse', '--format=%H %P %T', `${parent}..${base}`],
    { cwd: repo, okCodes: [128] },
  );
  if (log.exitCode !== 0) return null;
  for (const line of log.stdout.split('\n')) {
    const [commit, firstParent, ...rest] = line.trim().split(' ');
    const treeId = rest.at(-1);
    if (commit && firstParent === parent && treeId === tree.stdout.trim()) return commit;
  }
  return null;
}

/**
 * Takes back a squash merge that was staged but never committed (`git
 * merge --squash` then a stop before `git commit`): the files it changed go
 * back to HEAD, files it added go away. Changes that were not staged (a
 * person's own edits) are kept; when one of them touches a file the squash
 * changed, nothing is done and a GitError says so.
 */
export async function undoStagedSquash(repo: string): Promise<void> {
  const result = await git(['reset', '-q', '--merge'], { cwd: repo, okCodes: [1, 128] });
  if (result.exitCode !== 0) {
    const files = [...result.stderr.matchAll(/Entry '([^']+)' not uptodate/g)]
      .map((m) => m[1])
      .filter((f): f is string => f !== undefined);
    throw new GitError(
      ['reset', '--merge'],
      result.exitCode,
      result.stderr,
      `The staged merge in ${repo} could not be taken back${files.length > 0 ? ` because ${files.join(', ')} also changed since` : ''}; run git reset --merge there once those changes are saved.`,
    );
  }
}

/** Files (of `files`) that still hold conflict markers at the start of a line. */
export async function filesWithConflictMarkers(
  dir: string,
  files: readonly string[],
): Promise<string[]> {
  const marked: string[] = [];
  for (const file of files) {
    const text = await readFile(join(dir, file), 'utf8').catch(() => '');
    if (/^(<{7}|={7}|>{7})( |$)/m.test(text)) marked.push(file);
  }
  return marked;
}

export async function stageFiles(dir: string, files: readonly string[]): Promise<void> {
  if (files.length > 0) await git(['add', '--', ...files], { cwd: dir });
}

export type SquashResult =
  | { readonly merged: true; readonly commit: string }
  | { readonly merged: false; readonly reason: 'no_changes' };

/**
 * In the main checkout: squash-merge `branch` and commit it with `message`
 * (hooks run; the message is sanitized). On any failure the checkout is put back exactly as it was.
 * `onStaged` hears the tree the commit will have, once the squash is staged
 * and before the commit starts (what recovery looks for on the base branch).
 */
export async function squashMerge(
  repo: string,
  branch: string,
  message: string,
  onStaged?: (tree: string) => Promise<void>,
  hooks?: HookRunner,
): Promise<SquashResult> {
  const before = await gitOut(['rev-parse', 'HEAD'], { cwd: repo });
  const merge = await git(['merge', '--squash', branch], { cwd: repo, okCodes: [1, 128] });
  if (merge.exitCode !== 0) {
    await git(['reset', '-q', '--merge'], { cwd: repo }).catch(() =>
      git(['reset', '-q', '--hard', before], { cwd: repo }),
    );
    throw new GitError(
      ['merge', '--squash', branch],
      merge.exitCode,
      merge.stderr,
      `git merge --squash failed: ${(merge.stdout + merge.stderr).trim().split('\n').slice(-1)[0] ?? ''}`,
    );
  }
  const staged = await git(['diff', '--cached', '--quiet'], { cwd: repo, okCodes: [1] });
  if (staged.exitCode === 0) return { merged: false, reason: 'no_changes' };
  if (onStaged) {
    try {
      await onStaged(await gitOut(['write-tree'], { cwd: repo }));
    } catch (error) {
      await git(['reset', '-q', '--merge'], { cwd: repo });
      throw error;
    }
  }
  // 128 as well as 1: a signing program that fails ends git with 128, and the squash must be taken back all the same.
  if (hooks) {
    try {
      message = await runCommitHooks(repo, message, hooks, ['add', '-u']);
    } catch (error) {
      await git(['reset', '-q', '--hard', before], { cwd: repo });
      throw error;
    }
  }
  const commit = await git(['commit', '-q', '-F', '-'], {
    cwd: repo,
    input: sanitizeText(message),
    okCodes: [1, 128],
  });
  if (commit.exitCode !== 0) {
    await git(['reset', '-q', '--hard', before], { cwd: repo });
    const output = `${commit.stdout}${commit.stderr}`.trim();
    throw new GitError(
      ['commit'],
      commit.exitCode,
      output.slice(-4000),
      `The merge commit was rejected${/hook/i.test(output) ? ' by a git hook' : ''}: ${commitFailure(output)}`,
    );
  }
  return { merged: true, commit: await gitOut(['rev-parse', 'HEAD'], { cwd: repo }) };
}

/** Why a commit failed: git's first `error:` line (the cause, before its `fatal:` summary), else the last line. */
function commitFailure(output: string): string {
  const lines = output.split('\n').filter((l) => l.trim() !== '');
  const cause = lines.find((l) => l.startsWith('error: '));
  return cause ? cause.slice('error: '.length) : (lines.at(-1) ?? '');
}

/** Paths that would conflict if `branch` were merged into `base` (empty: merges cleanly). */
export async function mergeTreeConflicts(
  repo: string,
  base: string,
  branch: string,
): Promise<string[]> {
  const result = await git(
    ['merge-tree', '--write-tree', '--name-only', '--no-messages', base, branch],
    { cwd: repo, okCodes: [1] },
  );
  if (result.exitCode === 0) return [];
  // Exit 1: first line is the tree id, then the conflicted paths.
  return result.stdout
    .split('\n')
    .slice(1)
    .map((l) => l.trim())
    .filter((l) => l !== '');
}
