import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * The space a folder takes on disk, in bytes, as `du -s` counts it: allocated
 * blocks, symbolic links not followed, a file with several hard links counted
 * once. Unreadable entries are skipped. Stops early (with what it counted)
 * when `signal` is aborted.
 */
export async function diskUsage(path: string, signal?: AbortSignal): Promise<number> {
  const seen = new Set<string>();
  let total = 0;
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
    total += info.blocks * 512;
    if (info.isDirectory()) {
      const names = await readdir(current).catch(() => [] as string[]);
      for (const name of names) stack.push(join(current, name));
    }
  }
  return total;
}
