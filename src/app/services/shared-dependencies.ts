import type { Session } from '../../domain/session.js';
import {
  SHARE_MODE_KEY,
  SHARED_FOLDERS_KEY,
  parseSharedFolders,
  shareMode,
} from '../../domain/shared-folders.js';
import { shareFolders, type ShareOutcome } from '../../infra/shared-folders.js';

/**
 * After the setup command: the project's shared folders (worktree.shared)
 * given to the new worktree, and one transcript line saying what was
 * shared and what was left alone, and why.
 */
export async function shareDependencies(
  deps: {
    readonly note: (sessionId: string, kind: 'notice' | 'output', text: string) => Promise<void>;
  },
  session: Session,
  mainCheckout: string,
  settings: Readonly<Record<string, string>>,
  signal: AbortSignal,
): Promise<void> {
  const parsed = parseSharedFolders(settings[SHARED_FOLDERS_KEY] ?? '');
  if (!parsed.ok) {
    await deps.note(session.id, 'notice', `[Setup Warning] ${parsed.error} Nothing was shared.`);
    return;
  }
  if (parsed.paths.length === 0) return;
  const mode = shareMode(settings[SHARE_MODE_KEY]);
  let outcomes: ShareOutcome[];
  try {
    outcomes = await shareFolders(mainCheckout, session.worktreePath, parsed.paths, mode, signal);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    await deps.note(session.id, 'notice', `[Setup Warning] Sharing folders failed: ${why}`);
    return;
  }
  const text = shareSummary(outcomes);
  if (text !== '') await deps.note(session.id, 'notice', text);
}

/** Why a folder was left alone, in words. */
function leftAlone(outcome: ShareOutcome): string {
  switch (outcome.kind) {
    case 'cloned':
    case 'linked':
      return '';
    case 'present':
      return `${outcome.path} is already in the worktree (tracked, or made by the setup command), so it is kept as it is`;
    case 'missing':
      return `${outcome.path} is not a folder in the main checkout`;
    case 'outside':
      return `${outcome.path} is not shared: ${outcome.detail ?? 'it leads outside the project'}`;
    case 'noClone':
      return `${outcome.path} is not shared: this file system cannot make copy-on-write clones (choose "symlink" in Share folders as to link it instead)`;
    case 'tracked':
      return `${outcome.path} is not shared: git does not ignore it there, so it would be committed with the session's work (list it in .gitignore without a trailing slash)`;
    case 'failed':
      return `${outcome.path} could not be shared: ${outcome.detail ?? 'unknown error'}`;
  }
}

/** One line for the transcript: what was shared, and each folder left alone with its reason. */
export function shareSummary(outcomes: readonly ShareOutcome[]): string {
  const cloned = outcomes.filter((o) => o.kind === 'cloned').map((o) => o.path);
  const linked = outcomes.filter((o) => o.kind === 'linked').map((o) => o.path);
  const alone = outcomes.map(leftAlone).filter((t) => t !== '');
  const parts: string[] = [];
  if (cloned.length > 0)
    parts.push(`cloned from the main checkout (copy-on-write): ${cloned.join(', ')}`);
  if (linked.length > 0)
    parts.push(`linked to the main checkout (read-only to the agent): ${linked.join(', ')}`);
  if (alone.length > 0) parts.push(`left alone: ${alone.join('; ')}`);
  if (parts.length === 0) return '';
  const tag = cloned.length + linked.length === 0 ? '[Setup Warning]' : '[Setup]';
  return `${tag} Shared folders ${parts.join('. ')}.`;
}
