import { sanitizePath } from '../../domain/sanitize.js';
import { mergeTreeConflicts } from './merge.js';
import { git } from './run.js';

/**
 * The paths `branch` changed since it left `base` (`git diff base...branch`:
 * against their merge base, so commits that landed on `base` since do not
 * count). Renames are off: a moved file counts under its old and new path,
 * as another session touching either would collide with it. Sorted.
 */
export async function changedPaths(
  repo: string,
  base: string,
  branch: string,
  signal?: AbortSignal,
): Promise<string[]> {
  const result = await git(['diff', '--name-only', '-z', '--no-renames', `${base}...${branch}`], {
    cwd: repo,
    signal,
  });
  return result.stdout
    .split('\0')
    .filter((p) => p !== '')
    .map((p) => sanitizePath(p))
    .sort();
}

/**
 * For each pair of commits, the paths that conflict when they are merged
 * (empty: they merge cleanly), from one `git merge-tree --stdin` for all
 * pairs. A git without `--stdin` (older than 2.39) gets one
 * `merge-tree --write-tree` per pair.
 */
export async function mergeTreeConflictsBatch(
  repo: string,
  pairs: readonly (readonly [string, string])[],
  signal?: AbortSignal,
): Promise<string[][]> {
  if (pairs.length === 0) return [];
  const batch = await git(['merge-tree', '--stdin', '--name-only', '--no-messages'], {
    cwd: repo,
    signal,
    input: pairs.map(([a, b]) => `${a} ${b}\n`).join(''),
    okCodes: [1, 128, 129],
  });
  if (batch.exitCode !== 0)
    return Promise.all(pairs.map(([a, b]) => mergeTreeConflicts(repo, a, b)));
  // Per merge: its status (1 clean, 0 conflicted), the tree, the conflicted paths, an empty field.
  const fields = batch.stdout.split('\0');
  const results: string[][] = [];
  let i = 0;
  while (results.length < pairs.length && i < fields.length) {
    i += 2; // status, tree
    const paths: string[] = [];
    while (i < fields.length && fields[i] !== '') paths.push(sanitizePath(fields[i++] ?? ''));
    i++;
    results.push([...new Set(paths)].sort());
  }
  if (results.length !== pairs.length)
    return Promise.all(pairs.map(([a, b]) => mergeTreeConflicts(repo, a, b)));
  return results;
}
