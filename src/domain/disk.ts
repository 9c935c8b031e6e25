import type { Session } from './session.js';
import type { SharedUse } from './shared-folders.js';

/**
 * The Disk view's figures: one session's worktree as last walked
 * (`du -s`-like, see infra/disk-usage.ts), and how long they are kept.
 */
export interface DiskMeasure {
  /** Allocated bytes (what the worktree takes on disk, a clone's shared blocks counted in full). */
  readonly allocated: number;
  /** The files' lengths added up. */
  readonly apparent: number;
  readonly shared: readonly SharedUse[];
  /** When it was walked (ms). */
  readonly measuredAt: number;
  /** The session as it was then (archived sessions are not in the list's snapshot). */
  readonly session: DiskSession;
}

export type DiskSession = Pick<
  Session,
  'id' | 'projectId' | 'title' | 'branch' | 'status' | 'updatedAt' | 'worktreePath'
>;

/** A worktree is walked again at most this often while the Disk view is opened. */
export const DISK_REFRESH_MS = 5 * 60_000;

/** Whether `measure` is missing or older than DISK_REFRESH_MS at `now`. */
export function diskStale(measure: DiskMeasure | undefined, now: number): boolean {
  return measure === undefined || now - measure.measuredAt >= DISK_REFRESH_MS;
}
