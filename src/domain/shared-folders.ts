/**
 * Shared dependencies: folders of the main checkout (`node_modules`,
 * `.venv`, `target`) that a new worktree gets as a copy-on-write clone, or
 * a symbolic link when the person chose that, instead of installing again.
 */

export const SHARED_FOLDERS_KEY = 'worktree.shared';
export const SHARE_MODE_KEY = 'worktree.shareMode';

/** `clone`: a copy-on-write clone or nothing; `symlink`: a clone, else a link into the main checkout. */
export type ShareMode = 'clone' | 'symlink';
export const SHARE_MODES: readonly ShareMode[] = ['clone', 'symlink'];

export function shareMode(value: string | undefined): ShareMode {
  return value === 'symlink' ? 'symlink' : 'clone';
}

/** Why one entry of the setting cannot be shared, or null. */
function entryProblem(entry: string): string | null {
  const control = [...entry].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f);
  if (control || entry.includes('\\'))
    return `${JSON.stringify(entry)} holds a control character or a backslash`;
  if (entry.startsWith('/') || entry.startsWith('~'))
    return `${entry} is not relative to the project's folder (write it as node_modules, not /…/node_modules)`;
  const parts = entry.split('/').filter((p) => p !== '' && p !== '.');
  if (parts.length === 0) return `${entry} names the project's folder itself`;
  if (parts.includes('..')) return `${entry} leaves the project's folder (..)`;
  if (parts[0] === '.git') return `${entry} is inside git's own folder`;
  return null;
}

/** The setting's entries, normalized (`./a/b/` is `a/b`), in order, each once. */
export function parseSharedFolders(
  value: string,
):
  | { readonly ok: true; readonly paths: readonly string[] }
  | { readonly ok: false; readonly error: string } {
  const paths: string[] = [];
  for (const entry of value.split(/[\s,]+/).filter((e) => e !== '')) {
    const problem = entryProblem(entry);
    if (problem !== null)
      return {
        ok: false,
        error: `Shared folders: ${problem}. List folders inside the project, separated by commas (node_modules, .venv, target).`,
      };
    const path = entry
      .split('/')
      .filter((p) => p !== '' && p !== '.')
      .join('/');
    if (!paths.includes(path)) paths.push(path);
  }
  return { ok: true, paths };
}

export function validateSharedFolders(value: string): string | null {
  const parsed = parseSharedFolders(value);
  return parsed.ok ? null : parsed.error;
}

/** A shared folder (setting worktree.shared) as it is in one worktree. */
export interface SharedUse {
  readonly path: string;
  /** link: points into the main checkout (its size is not the worktree's); folder: the worktree's own or a clone. */
  readonly kind: 'link' | 'folder';
  /** For a folder, its allocated bytes (included in the worktree's); 0 for a link. */
  readonly allocated: number;
}
