import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';
import { gitOut } from './run.js';

// Where a checkout's git folders are, read the way git itself finds them,
// so the common case (a checkout's top folder) starts no git process.

/**
 * The git folder of a checkout's top folder: `.git` is that folder (a main
 * checkout) or a file naming it (a linked worktree). Asks git only when
 * neither reads cleanly (a folder inside a checkout).
 */
export async function gitDirOf(dir: string, signal?: AbortSignal): Promise<string> {
  const dotGit = join(dir, '.git');
  try {
    if ((await stat(dotGit)).isDirectory()) return dotGit;
    const match = /^gitdir: (.+)$/m.exec(await readFile(dotGit, 'utf8'));
    const named = match?.[1]?.trim();
    if (named) {
      const gitDir = isAbsolute(named) ? named : resolve(dir, named);
      if (existsSync(join(gitDir, 'HEAD'))) return gitDir;
    }
  } catch {
    // No .git here: git knows.
  }
  return gitOut(['rev-parse', '--absolute-git-dir'], { cwd: dir, signal });
}

/**
 * The repository's common git folder (refs, objects, hooks, config): a linked
 * worktree's git folder names it in its `commondir` file; a main checkout's
 * git folder is it.
 */
export async function gitCommonDirOf(dir: string, signal?: AbortSignal): Promise<string> {
  const gitDir = await gitDirOf(dir, signal);
  try {
    const common = (await readFile(join(gitDir, 'commondir'), 'utf8')).trim();
    if (common) return isAbsolute(common) ? common : resolve(gitDir, common);
  } catch {
    // No commondir file: a main checkout's git folder.
  }
  return gitDir;
}
