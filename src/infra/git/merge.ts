import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { GitError, git, gitOut } from './run.js';

export type RebaseResult = { readonly ok: true } | { readonly ok: false; readonly conflicts: string[] };

async function conflictedFiles(dir: string): Promise<string[]> {
  const out = await gitOut(['diff', '--name-only', '--diff-filter=U', '-z'], { cwd: dir });
  return out.split('\0').filter((p) => p !== '');
}

async function rebaseOutcome(dir: string, exitCode: number, args: readonly string[], stderr: string): Promise<RebaseResult> {
  if (exitCode === 0) return { ok: true };
  const conflicts = await conflictedFiles(dir);
  if (conflicts.length > 0) return { ok: false, conflicts };
  throw new GitError(args, exitCode, stderr, `git ${args[0] ?? ''} failed: ${stderr.split('\n').find((l) => /fatal|error/.test(l)) ?? stderr.trim().split('\n')[0] ?? ''}`);
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
  const gitDir = await gitOut(['rev-parse', '--absolute-git-dir'], { cwd: dir });
  return existsSync(join(gitDir, 'rebase-merge')) || existsSync(join(gitDir, 'rebase-apply'));
}

/** Files (of `files`) that still hold conflict markers at the start of a line. */
export async function filesWithConflictMarkers(dir: string, files: readonly string[]): Promise<string[]> {
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

export type SquashResult = { readonly merged: true; readonly commit: string } | { readonly merged: false; readonly reason: 'no_changes' };

/**
 * In the main checkout: squash-merge `branch` and commit it with `message`
 * (hooks run). On any failure the checkout is put back exactly as it was.
 */
export async function squashMerge(repo: string, branch: string, message: string): Promise<SquashResult> {
  const before = await gitOut(['rev-parse', 'HEAD'], { cwd: repo });
  const merge = await git(['merge', '--squash', branch], { cwd: repo, okCodes: [1, 128] });
  if (merge.exitCode !== 0) {
    await git(['reset', '-q', '--merge'], { cwd: repo }).catch(() => git(['reset', '-q', '--hard', before], { cwd: repo }));
    throw new GitError(['merge', '--squash', branch], merge.exitCode, merge.stderr, `git merge --squash failed: ${(merge.stdout + merge.stderr).trim().split('\n').slice(-1)[0] ?? ''}`);
  }
  const staged = await git(['diff', '--cached', '--quiet'], { cwd: repo, okCodes: [1] });
  if (staged.exitCode === 0) return { merged: false, reason: 'no_changes' };
  const commit = await git(['commit', '-q', '-F', '-'], { cwd: repo, input: message, okCodes: [1] });
  if (commit.exitCode !== 0) {
    await git(['reset', '-q', '--hard', before], { cwd: repo });
    const output = `${commit.stdout}${commit.stderr}`.trim();
    throw new GitError(['commit'], commit.exitCode, output.slice(-4000), `The merge commit was rejected${/hook/i.test(output) ? ' by a git hook' : ''}: ${output.split('\n').slice(-1)[0] ?? ''}`);
  }
  return { merged: true, commit: await gitOut(['rev-parse', 'HEAD'], { cwd: repo }) };
}

/** Paths that would conflict if `branch` were merged into `base` (empty: merges cleanly). */
export async function mergeTreeConflicts(repo: string, base: string, branch: string): Promise<string[]> {
  const result = await git(['merge-tree', '--write-tree', '--name-only', '--no-messages', base, branch], { cwd: repo, okCodes: [1] });
  if (result.exitCode === 0) return [];
  // Exit 1: first line is the tree id, then the conflicted paths.
  return result.stdout.split('\n').slice(1).map((l) => l.trim()).filter((l) => l !== '');
}
