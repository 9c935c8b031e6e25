import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A scratch file system of a chosen kind, mounted for a test: XFS with
 * reflink (copy-on-write clones) on a loop device, or tmpfs (no clones).
 * Mounting needs root and, for XFS, Debian's xfsprogs (`.ci/run` installs
 * it); where the machine cannot, `reason` says why and the test skips.
 */
export type ScratchKind = 'xfs-reflink' | 'tmpfs';

export interface ScratchFs {
  readonly dir: string;
  close(): void;
}

export type ScratchResult = { fs: ScratchFs; reason: null } | { fs: null; reason: string };

const quiet = { stdio: 'pipe' as const };

export function mountScratch(kind: ScratchKind): ScratchResult {
  if (process.platform !== 'linux') return { fs: null, reason: 'not Linux' };
  if (process.getuid?.() !== 0) return { fs: null, reason: 'mounting needs root' };
  const base = mkdtempSync(join(tmpdir(), `grove-fs-${kind}-`));
  const dir = join(base, 'mnt');
  mkdirSync(dir);
  const image = join(base, 'image.raw');
  try {
    if (kind === 'xfs-reflink') {
      // A sparse 512 MB image: XFS wants at least 300 MB.
      writeFileSync(image, '');
      execFileSync('truncate', ['-s', '512M', image], quiet);
      execFileSync('mkfs.xfs', ['-q', '-m', 'reflink=1', image], quiet);
      execFileSync('mount', ['-o', 'loop', image, dir], quiet);
    } else {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=256m', 'tmpfs', dir], quiet);
    }
  } catch (error) {
    rmSync(base, { recursive: true, force: true });
    const stderr = (error as { stderr?: Buffer }).stderr?.toString().trim();
    return { fs: null, reason: `cannot mount ${kind}: ${stderr || String(error)}` };
  }
  return {
    reason: null,
    fs: {
      dir,
      close() {
        execFileSync('umount', ['-l', dir], quiet);
        rmSync(base, { recursive: true, force: true });
      },
    },
  };
}

/** Free bytes of the file system holding `dir`, as `df` counts them. */
export function freeBytes(dir: string): number {
  const out = execFileSync('df', ['-B1', '--output=avail', dir], { encoding: 'utf8' });
  return Number(out.trim().split('\n').at(-1));
}
