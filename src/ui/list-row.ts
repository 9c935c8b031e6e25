import type { SessionOverlap } from '../domain/overlap.js';
import type { Session } from '../domain/session.js';
import { checksBadge } from './checks-layout.js';
import { cellWidth, fit } from './text.js';
import type { RowBadge } from './row-badge.js';

/**
 * The layout of a session-list row, in cells: which columns fit, how wide the
 * title is, and which badges follow it (full, short or left out) so that the
 * title keeps MIN_TITLE_CELLS and the row is never wider than its columns.
 */

/** The optional columns of a list row, most important first: a narrow screen drops from the end. */
export const LIST_COLUMNS = [
  { id: 'status', label: 'Status', width: 12 },
  { id: 'timer', label: 'Timer', width: 9 },
  { id: 'size', label: 'Size', width: 6 },
  { id: 'lines', label: '+/-', width: 13 },
  { id: 'tokens', label: 'Tokens', width: 8 },
  { id: 'model', label: 'Agent/model', width: 26 },
  // What the session's agent process tree uses (empty while no agent runs).
  { id: 'cpu', label: 'CPU', width: 6 },
  { id: 'memory', label: 'Mem', width: 6 },
  // The worktree's size as the Disk view last measured it (empty where not measured).
  { id: 'disk', label: 'Disk', width: 6 },
] as const;

export type ColumnId = (typeof LIST_COLUMNS)[number]['id'];

/** The title column never gets narrower than this: columns go first. */
const MIN_TITLE_COLUMN = 20;

/** Cells of title a row keeps before its badges: badges shorten, then go, first. */
export const MIN_TITLE_CELLS = 12;

/** The columns of what an agent's process tree uses: shown only while some agent runs. */
const RESOURCE_COLUMNS: ReadonlySet<ColumnId> = new Set<ColumnId>(['cpu', 'memory']);

/**
 * The columns a row of `width` cells shows, and the title column's width.
 * Columns are taken in order of importance while the title column keeps
 * MIN_TITLE_COLUMN cells; the CPU and memory columns only when `resources`
 * (some agent runs) and the disk column only when `disk` (the Disk view has
 * measured some worktree), so a list without them keeps their cells for titles.
 */
export function listColumns(
  width: number,
  resources = false,
  disk = false,
): {
  readonly shown: ReadonlySet<ColumnId>;
  readonly titleWidth: number;
} {
  const shown = new Set<ColumnId>();
  let used = 2;
  for (const column of LIST_COLUMNS) {
    if (!resources && RESOURCE_COLUMNS.has(column.id)) continue;
    if (!disk && column.id === 'disk') continue;
    if (width - used - column.width < MIN_TITLE_COLUMN) break;
    shown.add(column.id);
    used += column.width;
  }
  return { shown, titleWidth: Math.max(1, width - used) };
}

/** What colours a badge: the view maps it to a theme token. */
export type { BadgeTone, RowBadge } from './row-badge.js';

/** The badge of a session whose agent asked questions that are still open ("" when none). */
export function questionBadge(session: Pick<Session, 'questions'>): string {
  const open = session.questions.length;
  return open === 0 ? '' : ` [${open} ${open === 1 ? 'question' : 'questions'}]`;
}

/**
 * The badge of a live session that changed the same files as other live
 * sessions ("" when none): `[conflicts with N]` when merging both would
 * conflict, else `[overlaps N]`. The session view names them and the files.
 */
export function overlapBadge(overlaps: readonly SessionOverlap[] | undefined): string {
  if (!overlaps || overlaps.length === 0) return '';
  const conflicting = overlaps.filter((o) => o.conflicts.length > 0).length;
  return conflicting > 0 ? ` [conflicts with ${conflicting}]` : ` [overlaps ${overlaps.length}]`;
}

/** What a row knows about its session besides the session itself. */
export interface RowFacts {
  readonly conflict: boolean;
  readonly overlaps: readonly SessionOverlap[] | undefined;
  readonly held: boolean;
  readonly waiting: string | null;
  readonly variant: string | null;
  readonly needsYou: boolean;
  readonly marked: boolean;
  /** Its host cannot be reached right now and Grove is reconnecting (the progress line says so). */
  readonly reconnecting?: boolean;
}

/** A row's badges, most important first (a narrow row leaves out from the end). */
export function rowBadges(session: Session, facts: RowFacts): RowBadge[] {
  const badges: RowBadge[] = [];
  if (session.status === 'Draft' && session.prompt !== null)
    badges.push(
      facts.marked
        ? { full: ' [draft ✓]', short: ' [d✓]', tone: 'muted' }
        : { full: ' [draft]', short: ' [d]', tone: 'muted' },
    );
  if (facts.needsYou)
    badges.push({ full: ' ● needs you', short: ' ●', tone: 'accent', bold: true });
  const open = session.questions.length;
  if (open > 0) badges.push({ full: questionBadge(session), short: ` [${open}?]`, tone: 'warn' });
  if (facts.conflict)
    badges.push({ full: ' [merge conflict]', short: ' [conflict]', tone: 'error' });
  const overlap = overlapBadge(facts.overlaps);
  if (overlap) {
    const conflicts = overlap.includes('conflicts');
    const count = /\d+/.exec(overlap)?.[0] ?? '';
    badges.push({
      full: overlap,
      short: conflicts ? ` [cfl ${count}]` : ` [ovl ${count}]`,
      tone: conflicts ? 'error' : 'warn',
    });
  }
  // The pull request's checks (issue 28): failing, pending or passed.
  const checks = checksBadge(session);
  if (checks) badges.push(checks);
  if (facts.held) badges.push({ full: ' [budget reached]', short: ' [budget]', tone: 'warn' });
  else if (facts.waiting)
    badges.push({ full: ` [${facts.waiting}]`, short: ' [waiting]', tone: 'warn' });
  if (facts.variant)
    badges.push({
      full: ` [${facts.variant}]`,
      short: ` [${shortVariant(facts.variant)}]`,
      tone: 'accent',
    });
  // Where the agent runs, when not here: the host's name (issue 24), last to go on a narrow row.
  if (session.host)
    badges.push(
      facts.reconnecting
        ? { full: ` [@${session.host} reconnecting]`, short: ' [@…]', tone: 'warn' }
        : { full: ` [@${session.host}]`, short: ' [@]', tone: 'muted' },
    );
  return badges;
}

/** "best of 3 #1 chosen" → "bo3 #1 ✓". */
function shortVariant(variant: string): string {
  return variant
    .replace(/^best of (\d+)/, 'bo$1')
    .replace(/ chosen$/, ' ✓')
    .replace(/ (checking|judging)$/, '…');
}

/**
 * The badge texts that fit in `room` cells: all in full when they fit, else
 * short forms (from the last badge back), else the last ones are left out.
 */
export function fitBadges(badges: readonly RowBadge[], room: number): string[] {
  const texts = badges.map((b) => b.full);
  const width = (): number => cellWidth(texts.join(''));
  for (let i = texts.length - 1; i >= 0 && width() > room; i--) texts[i] = badges[i]?.short ?? '';
  for (let i = texts.length - 1; i >= 0 && width() > room; i--) texts[i] = '';
  return texts;
}

/**
 * The title column of a row: the title's own width and the badges shown.
 * A cell of space always ends it, so a cut title never touches the next column.
 */
export function titleLayout(
  badges: readonly RowBadge[],
  titleWidth: number,
): { readonly textWidth: number; readonly badges: readonly string[] } {
  const room = Math.max(0, titleWidth - MIN_TITLE_CELLS - 1);
  const texts = fitBadges(badges, room);
  const used = cellWidth(texts.join(''));
  return { textWidth: Math.max(1, titleWidth - used - 1), badges: texts };
}

/** A column's text cut to its width less one cell, so a cut text never runs into the next column. */
export function columnCell(text: string, width: number): string {
  return `${fit(text, width - 1)} `;
}

/**
 * Where the columns are drawn, left to right: `size` before the title, the
 * rest after it. A new column goes in LIST_COLUMNS (how important, how wide),
 * here (where), and in the row's cell for it (SessionsPage).
 */
export const COLUMNS_BEFORE_TITLE: readonly ColumnId[] = ['size'];
export const COLUMNS_AFTER_TITLE: readonly ColumnId[] = [
  'lines',
  'tokens',
  'model',
  'status',
  'timer',
  'cpu',
  'memory',
  'disk',
];

/** A column's width in cells. */
export function columnWidth(id: ColumnId): number {
  return LIST_COLUMNS.find((c) => c.id === id)?.width ?? 0;
}

/** The column titles, laid out as the rows are. */
export function headerLine(width: number, resources = false, disk = false): string {
  const { shown, titleWidth } = listColumns(width, resources, disk);
  const cell = (id: ColumnId): string => {
    const column = LIST_COLUMNS.find((c) => c.id === id);
    return column && shown.has(id) ? columnCell(column.label, column.width) : '';
  };
  return `  ${COLUMNS_BEFORE_TITLE.map(cell).join('')}${fit('Session', titleWidth)}${COLUMNS_AFTER_TITLE.map(cell).join('')}`;
}

/** The archive list's last row while some of its sessions are not read yet. */
export function archiveMoreLine(unread: number): string {
  return `   … ${unread.toLocaleString('en-US')} more (they load as the selection comes down)`;
}
