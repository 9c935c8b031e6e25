import { sanitizePath } from '../../domain/sanitize.js';
import { git } from './run.js';

/**
 * The worktree's tracked and untracked (not ignored) files, relative to `dir`,
 * for the composer's `@` completion. Names holding control characters, bidi
 * controls or tabs are left out: they could not be typed, and must not reach
 * the screen as they are.
 */
export async function listFiles(dir: string, signal?: AbortSignal): Promise<string[]> {
  const { stdout } = await git(['ls-files', '-co', '--exclude-standard', '-z'], {
    cwd: dir,
    ...(signal ? { signal } : {}),
  });
  const out: string[] = [];
  for (const path of stdout.split('\0'))
    if (path !== '' && sanitizePath(path) === path) out.push(path);
  return out;
}
