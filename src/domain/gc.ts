import type { Session } from './session.js';
import { shortId } from './session.js';

/**
 * Disk reclaim (`grove gc`): which sessions' worktrees may go, where their
 * uncommitted work is kept, and how to get it back.
 */

export const DAY_MS = 86_400_000;

/** The age (days) after which a Done or Canceled session's worktree is reclaimed by default. */
export const DEFAULT_GC_DAYS = 14;

/** Where Grove keeps the snapshot of a session's worktree before removing it. */
export function snapshotRef(sessionId: string): string {
  return `refs/grove/snapshots/${sessionId}`;
}

/** Done and Canceled sessions last changed at least `days` days before `now`, oldest first. */
export function gcCandidates<S extends Pick<Session, 'status' | 'updatedAt'>>(
  sessions: readonly S[],
  now: number,
  days: number,
): S[] {
  const cutoff = now - days * DAY_MS;
  return sessions
    .filter((s) => (s.status === 'Done' || s.status === 'Canceled') && s.updatedAt <= cutoff)
    .sort((a, b) => a.updatedAt - b.updatedAt);
}

/** A word for the shell: quoted when it holds anything but plain path characters. */
export function shellWord(text: string): string {
  return /^[A-Za-z0-9_./:@%+=,-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/** The command that checks a snapshot out again, as a new worktree and branch where the old worktree was. */
export function restoreSnapshotCommand(
  projectPath: string,
  worktreePath: string,
  sessionId: string,
): string {
  return `git -C ${shellWord(projectPath)} worktree add -b grove/restored-${shortId(sessionId)} ${shellWord(worktreePath)} ${snapshotRef(sessionId)}`;
}

/** `1.2 GB`, `340 MB`, `12 kB`, `0 B` (powers of 1024, as du -h). */
export function formatBytes(bytes: number): string {
  const units = ['B', 'kB', 'MB', 'GB', 'TB'];
  let value = Math.max(0, bytes);
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${unit === 0 || value >= 10 ? Math.round(value) : value.toFixed(1)} ${units[unit] ?? 'B'}`;
}
