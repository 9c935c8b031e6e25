// The Disk view's layout: each measured worktree's row, the totals, what gc
// would reclaim, in cells. The page (pages/DiskPage.tsx) only draws it.
import type { DiskMeasure, DiskSession } from '../domain/disk.js';
import { DAY_MS, DEFAULT_GC_DAYS, formatBytes, gcCandidates } from '../domain/gc.js';
import type { Session } from '../domain/session.js';
import { GC_DAYS_KEY } from '../domain/settings.js';
import type { SharedUse } from '../domain/shared-folders.js';
import { fit, visibleWindow, wrapPlain } from './text.js';

export interface DiskRow {
  readonly key: string;
  readonly selected: boolean;
  /** Size on disk, apparent size, gc's word: fitted to their columns. */
  readonly figures: string;
  /** The session's title: fitted to the rest of the line. */
  readonly title: string;
  /** Whether gc would remove it now. */
  readonly reclaimable: boolean;
}

export interface DiskLayout {
  readonly title: string;
  /** The column names, fitted. */
  readonly header: string;
  readonly rows: readonly DiskRow[];
  /** The highlighted worktree: its folder and what it shares, wrapped (at most 3 lines). */
  readonly detail: readonly string[];
  /** Shown instead of rows while nothing is measured yet. */
  readonly empty: string | null;
}

const SIZE_WIDTH = 9;
const GC_WIDTH = 14;
/** Rows kept for the title, the header, a blank line and three detail lines. */
const CHROME_ROWS = 7;

/** The highlighted row kept within the list (0 when it is empty). */
export function diskCursor(cursor: number, count: number): number {
  return Math.max(0, Math.min(cursor, count - 1));
}

/**
 * The sessions the view lists: the active project's with a measured
 * worktree, largest first; each as the list has it now, else as it was
 * when measured (archived sessions are not in the list).
 */
export function diskSessions(
  sessions: readonly Session[],
  disk: Readonly<Record<string, DiskMeasure>>,
  projectId: number | null,
): DiskSession[] {
  const live = new Map(sessions.map((s) => [s.id, s]));
  return Object.values(disk)
    .filter((m) => m.session.projectId === projectId)
    .sort((a, b) => b.allocated - a.allocated || a.session.id.localeCompare(b.session.id))
    .map((m) => live.get(m.session.id) ?? m.session);
}

function gcDaysOf(settings: Readonly<Record<string, string>>): number {
  const value = settings[GC_DAYS_KEY] ?? '';
  return /^\d+$/.test(value) ? Number(value) : DEFAULT_GC_DAYS;
}

/** gc's word for one session: reclaims now, in some days, or never (live work). */
function gcWord(
  session: DiskSession,
  reclaim: ReadonlySet<string>,
  days: number,
  now: number,
): string {
  if (reclaim.has(session.id)) return 'gc reclaims';
  if (session.status === 'Done' || session.status === 'Canceled') {
    const left = Math.max(1, Math.ceil((session.updatedAt + days * DAY_MS - now) / DAY_MS));
    return `gc in ${left}d`;
  }
  return 'kept: live';
}

function sharedText(shared: readonly SharedUse[]): string {
  if (shared.length === 0) return 'Shares nothing (setting Shared folders).';
  return `Shared: ${shared
    .map((u) =>
      u.kind === 'link'
        ? `${u.path} linked to the main checkout (not counted)`
        : `${u.path} its own folder or a clone (${formatBytes(u.allocated)}, counted in full)`,
    )
    .join('; ')}.`;
}

/** The Disk view of `height` rows at `width` cells, at `now`. */
export function diskLayout(
  input: {
    readonly sessions: readonly Session[];
    readonly disk: Readonly<Record<string, DiskMeasure>>;
    readonly projectId: number | null;
    readonly settings: Readonly<Record<string, string>>;
  },
  cursor: number,
  width: number,
  height: number,
  now: number,
): DiskLayout {
  const listed = diskSessions(input.sessions, input.disk, input.projectId);
  const days = gcDaysOf(input.settings);
  const reclaim = new Set(gcCandidates(listed, now, days).map((s) => s.id));
  let allocated = 0;
  let apparent = 0;
  let reclaimable = 0;
  for (const s of listed) {
    const m = input.disk[s.id];
    if (!m) continue;
    allocated += m.allocated;
    apparent += m.apparent;
    if (reclaim.has(s.id)) reclaimable += m.allocated;
  }
  const count = listed.length;
  const title =
    count === 0
      ? ' Disk'
      : ` Disk: ${count} worktree${count === 1 ? '' : 's'}, ${formatBytes(allocated)} on disk (${formatBytes(apparent)} apparent); gc would reclaim ${formatBytes(reclaimable)}`;
  const nameWidth = Math.max(0, width - 2 - (SIZE_WIDTH + 1) * 2 - GC_WIDTH - 1);
  const header = `  ${fit('on disk', SIZE_WIDTH)} ${fit('apparent', SIZE_WIDTH)} ${fit('gc', GC_WIDTH)} ${fit('session', nameWidth)}`;
  if (count === 0)
    return {
      title,
      header,
      rows: [],
      detail: [],
      empty:
        ' Measuring the worktrees… (sessions on other hosts and without a worktree are not listed)',
    };
  const selected = diskCursor(cursor, count);
  const [start, end] = visibleWindow(count, Math.max(1, height - CHROME_ROWS), selected);
  const rows = listed.slice(start, end).map((s, i) => {
    const m = input.disk[s.id] as DiskMeasure;
    return {
      key: s.id,
      selected: start + i === selected,
      figures: `${fit(formatBytes(m.allocated), SIZE_WIDTH)} ${fit(formatBytes(m.apparent), SIZE_WIDTH)} ${fit(gcWord(s, reclaim, days, now), GC_WIDTH)} `,
      title: fit(s.title || s.branch, nameWidth),
      reclaimable: reclaim.has(s.id),
    };
  });
  const session = listed[selected];
  const measure = session ? input.disk[session.id] : undefined;
  const inner = Math.max(1, width - 2);
  const detail =
    session && measure
      ? [session.worktreePath, ...wrapPlain(sharedText(measure.shared), inner)]
          .slice(0, 3)
          .map((line) => fit(line, inner))
      : [];
  return { title, header, rows, detail, empty: null };
}
