import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { SharedUse } from '../domain/shared-folders.js';

/** A folder's size: `allocated` as `du -s` counts it, `apparent` as `du -s --apparent-size` does. */
export interface FolderSize {
  /** Allocated blocks, in bytes: what the folder takes on disk (a hard-linked file once). */
  readonly allocated: number;
  /** The files' lengths added up (sparse files and clones can make it larger than `allocated`). */
  readonly apparent: number;
}

/**
 * Walks a folder as `du -s` does: symbolic links not followed (a link
 * counts its own few bytes, never its target), a file with several hard
 * links counted once. A copy-on-write clone's blocks are counted in full
 * although the file system shares them with the original until either is
 * changed: stat cannot tell. Unreadable entries are skipped. Stops early
 * (with what it counted) when `signal` is aborted.
 */
export async function folderSize(path: string, signal?: AbortSignal): Promise<FolderSize> {
  const seen = new Set<string>();
  let allocated = 0;
  let apparent = 0;
  const stack = [path];
  while (stack.length > 0) {
    if (signal?.aborted) break;
    const current = stack.pop() as string;
    const info = await lstat(current).catch(() => null);
    if (!info) continue;
    if (info.nlink > 1 && !info.isDirectory()) {
      const key = `${info.dev}:${info.ino}`;
      if (seen.has(key)) continue;
      seen.add(key);
    }
    allocated += info.blocks * 512;
    if (!info.isDirectory()) apparent += info.size;
    if (info.isDirectory()) {
      const names = await readdir(current).catch(() => [] as string[]);
      for (const name of names) stack.push(join(current, name));
    }
  }
  return { allocated, apparent };
}

/** The space a folder takes on disk, in bytes, as `du -s` counts it (see folderSize). */
export async function diskUsage(path: string, signal?: AbortSignal): Promise<number> {
  return (await folderSize(path, signal)).allocated;
}

/** A worktree's size and what of it is shared. */
export interface WorktreeDisk extends FolderSize {
  readonly shared: readonly SharedUse[];
}

/** The worktree's size (folderSize) and, for each listed shared folder present, what it is. */
export async function worktreeDisk(
  worktree: string,
  sharedPaths: readonly string[],
  signal?: AbortSignal,
): Promise<WorktreeDisk> {
  const size = await folderSize(worktree, signal);
  const shared: SharedUse[] = [];
  for (const path of sharedPaths) {
    const info = await lstat(join(worktree, path)).catch(() => null);
    if (info?.isSymbolicLink()) shared.push({ path, kind: 'link', allocated: 0 });
    else if (info?.isDirectory())
      shared.push({
        path,
        kind: 'folder',
        allocated: (await folderSize(join(worktree, path), signal)).allocated,
      });
  }
  return { ...size, shared };
}
