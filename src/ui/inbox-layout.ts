// The inbox page's layout: which items fit, and each row's text in cells.
// The page (pages/InboxPage.tsx) only draws what this returns.
import { inboxKindLabel, type InboxItem } from '../domain/inbox.js';
import { formatDuration } from '../domain/session.js';
import { fit, visibleWindow, wrapPlain } from './text.js';

/** The highlighted item kept within the list (0 when it is empty). */
export function inboxCursor(cursor: number, count: number): number {
  return Math.max(0, Math.min(cursor, count - 1));
}

export interface InboxRow {
  readonly key: string;
  readonly selected: boolean;
  /** How long it waits, its kind: fitted to their columns. */
  readonly lead: string;
  /** Project / session: fitted. */
  readonly where: string;
  /** What waits: fitted to the rest of the line. */
  readonly text: string;
}

export interface InboxLayout {
  /** The title line: how many items. */
  readonly title: string;
  readonly rows: readonly InboxRow[];
  /** What to do about the highlighted item, wrapped (at most 2 lines). */
  readonly action: readonly string[];
  /** Shown instead of rows when nothing waits. */
  readonly empty: string | null;
}

const AGE_WIDTH = 7;
const KIND_WIDTH = 11;
/** Rows the page keeps for the title, a blank line, the action lines and a blank line above them. */
const CHROME_ROWS = 5;

/** The inbox page of `height` rows at `width` cells, at `now`. */
export function inboxLayout(
  items: readonly InboxItem[],
  cursor: number,
  width: number,
  height: number,
  now: number,
): InboxLayout {
  const count = items.length;
  const title = count === 0 ? ' Inbox' : ` Inbox: ${count} waiting on you, oldest first`;
  if (count === 0)
    return {
      title,
      rows: [],
      action: [],
      empty: ' Nothing waits on you.',
    };
  const selected = inboxCursor(cursor, count);
  const listHeight = Math.max(1, height - CHROME_ROWS);
  const [start, end] = visibleWindow(count, listHeight, selected);
  // Marker (2) + age + space + kind + space; the rest is shared by where and text.
  const leadWidth = 2 + AGE_WIDTH + 1 + KIND_WIDTH + 1;
  const rest = Math.max(0, width - leadWidth);
  const whereWidth = Math.min(36, Math.max(8, Math.floor(rest * 0.4)));
  const textWidth = Math.max(0, rest - whereWidth - 1);
  const rows = items.slice(start, end).map((item, i) => ({
    key: item.id,
    selected: start + i === selected,
    lead: `${fit(formatDuration((now - item.since) / 1000), AGE_WIDTH)} ${fit(inboxKindLabel(item.kind), KIND_WIDTH)} `,
    where: fit(`${item.project} / ${item.session}`, whereWidth),
    text: fit(item.text, textWidth),
  }));
  const item = items[selected];
  const action = item
    ? wrapPlain(`→ ${item.action}`, Math.max(1, width - 2))
        .slice(0, 2)
        .map((line) => fit(line, Math.max(1, width - 2)))
    : [];
  return { title, rows, action, empty: null };
}

/** The header's count: empty when nothing waits. */
export function inboxBadge(count: number): string {
  return count > 0 ? `  ${count} in the inbox` : '';
}
