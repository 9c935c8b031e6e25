import { lstat, readdir, realpath, rename, rm, symlink, unlink } from 'node:fs/promises';
import { basename, dirname, join, sep } from 'node:path';
import type { ShareMode } from '../domain/shared-folders.js';
import { runTool } from './exec.js';
import { git } from './git/run.js';

// Shared dependencies (docs/usage/capacity.md, "Shared dependencies"): a
// folder of the main checkout given to a new worktree as a copy-on-write
// clone, or a symbolic link when the person chose that. Nothing already in
// the worktree is replaced, and only a folder git ignores is shared (a
// shared folder that git sees would be committed with the session's work).

/** What became of one shared folder in one worktree. */
export type ShareOutcome =
  | { readonly path: string; readonly kind: 'cloned' | 'linked' }
  | {
      readonly path: string;
      readonly kind: 'present' | 'missing' | 'outside' | 'noClone' | 'tracked' | 'failed';
      readonly detail?: string;
    };

const CLONE_TIMEOUT_MS = 10 * 60_000;

function inside(root: string, path: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
}

async function taken(path: string): Promise<boolean> {
  return (await lstat(path).catch(() => null)) !== null;
}

/** The first regular file under `dir` (a few levels deep), for the clone probe. */
async function someFile(dir: string, depth = 3): Promise<string | null> {
  const names = await readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const entry of names) if (entry.isFile()) return join(dir, entry.name);
  if (depth === 0) return null;
  for (const entry of names) {
    if (!entry.isDirectory()) continue;
    const found = await someFile(join(dir, entry.name), depth - 1);
    if (found) return found;
  }
  return null;
}

/** `cp` arguments that clone (never copy) `from` to `to`: reflink on Linux, clonefile on macOS. */
function cloneArgs(from: string, to: string): readonly string[] {
  return process.platform === 'darwin'
    ? ['-c', '-pR', from, to]
    : ['-a', '--reflink=always', '--', from, to];
}

/**
 * Whether a file of `sourceDir` can be cloned into `targetDir`: one small
 * clone tried and removed. `cp --reflink=auto` would silently fall back to a
 * full copy, which for node_modules can be gigabytes, so only `always` is used.
 */
export async function canClone(sourceDir: string, targetDir: string): Promise<boolean> {
  const file = await someFile(sourceDir);
  if (file === null) return false;
  const probe = join(targetDir, `.grove-clone-probe-${process.pid}-${Date.now()}`);
  const run = await runTool('cp', cloneArgs(file, probe), { timeoutMs: 30_000 });
  await rm(probe, { force: true }).catch(() => {});
  return run.code === 0;
}

/** Whether git ignores `rel` in `worktree` as it is on disk now (a link is not a folder to `node_modules/`). */
async function ignored(worktree: string, rel: string): Promise<boolean> {
  const result = await git(['check-ignore', '-q', '--', rel], { cwd: worktree, okCodes: [1] });
  return result.exitCode === 0;
}

/**
 * Shares each folder of `paths` (relative, validated) of `mainCheckout`
 * with `worktree`: a clone where the file system makes one; else, in
 * `symlink` mode, a link to the main checkout's folder; else nothing.
 */
export async function shareFolders(
  mainCheckout: string,
  worktree: string,
  paths: readonly string[],
  mode: ShareMode,
  signal?: AbortSignal,
): Promise<ShareOutcome[]> {
  const main = await realpath(mainCheckout);
  const tree = await realpath(worktree);
  const out: ShareOutcome[] = [];
  let clones: boolean | null = null;
  for (const rel of paths) {
    if (signal?.aborted) break;
    const source = await realpath(join(main, rel)).catch(() => null);
    const info = source === null ? null : await lstat(source).catch(() => null);
    if (source === null || !info?.isDirectory()) {
      out.push({ path: rel, kind: 'missing' });
      continue;
    }
    // A link in the repository must not make Grove clone or link what lies outside the checkout.
    if (!inside(main, source) || inside(join(main, '.git'), source)) {
      out.push({ path: rel, kind: 'outside', detail: 'it leads outside the main checkout' });
      continue;
    }
    const target = join(tree, rel);
    if (await taken(target)) {
      out.push({ path: rel, kind: 'present' });
      continue;
    }
    const parent = await realpath(dirname(target)).catch(() => null);
    if (parent === null || !inside(tree, parent)) {
      out.push({
        path: rel,
        kind: 'outside',
        detail:
          parent === null
            ? 'its parent folder is not in the worktree'
            : 'its parent folder leads outside the worktree',
      });
      continue;
    }
    const at = join(parent, basename(target));
    clones ??= await canClone(source, parent);
    try {
      if (clones) {
        // Cloned under a temporary name, so a failure half way leaves nothing at `at`.
        const temp = join(parent, `.grove-share-${process.pid}-${Date.now()}`);
        const run = await runTool('cp', cloneArgs(source, temp), {
          timeoutMs: CLONE_TIMEOUT_MS,
          ...(signal ? { signal } : {}),
        });
        if (run.code !== 0 || (await taken(at))) {
          await rm(temp, { recursive: true, force: true });
          out.push({
            path: rel,
            kind: run.code === 0 ? 'present' : 'failed',
            ...(run.code === 0
              ? {}
              : { detail: run.error ?? run.stderr.trim().split('\n')[0] ?? '' }),
          });
          continue;
        }
        await rename(temp, at);
        if (!(await ignored(tree, rel))) {
          await rm(at, { recursive: true, force: true });
          out.push({ path: rel, kind: 'tracked' });
          continue;
        }
        out.push({ path: rel, kind: 'cloned' });
        continue;
      }
      if (mode !== 'symlink') {
        out.push({ path: rel, kind: 'noClone' });
        continue;
      }
      await symlink(source, at, 'dir');
      if (!(await ignored(tree, rel))) {
        await unlink(at);
        out.push({ path: rel, kind: 'tracked' });
        continue;
      }
      out.push({ path: rel, kind: 'linked' });
    } catch (error) {
      out.push({
        path: rel,
        kind: 'failed',
        detail: error instanceof Error ? error.message : String(error),
      });
    }
  }
  return out;
}

/**
 * The main checkout's folders that `paths` name, resolved, that a worktree
 * may link to: the launcher keeps them read-only to the agent.
 */
export async function sharedTargets(
  mainCheckout: string,
  paths: readonly string[],
): Promise<string[]> {
  const main = await realpath(mainCheckout).catch(() => null);
  if (main === null) return [];
  const out: string[] = [];
  for (const rel of paths) {
    const source = await realpath(join(main, rel)).catch(() => null);
    if (source !== null && inside(main, source)) out.push(source);
  }
  return out;
}
