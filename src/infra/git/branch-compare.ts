import { sanitizeLine } from '../../domain/sanitize.js';
import { git } from './run.js';

/**
 * The paths `branch` changed since it left `base` (`git diff base...branch`:
 * against their merge base, so commits that landed on `base` since do not
 * count). Renames are off: a moved file counts under its old and new path,
 * as another session touching either would collide with it. Sorted.
 */
export async function changedPaths(repo: string, base: string, branch: string, signal?: AbortSignal): Promise<string[]> {
  const result = await git(['diff', '--name-only', '-z', '--no-renames', `${base}...${branch}`], { cwd: repo, signal });
  return result.stdout
    .split('\0')
    .filter((p) => p !== '')
    .map((p) => sanitizeLine(p))
    .sort();
}
