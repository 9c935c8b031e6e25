// The diff view's layout, shared by the page that draws it and the key
// handler that moves through it: pane sizes, each file's rows (parsed once),
// the file tree (built once per loaded diff), and the rows a window shows.
// Only the visible window is ever laid out; per-row wrapping is cached.
import type { AppState, DiffFileView, DiffMode, DiffView } from '../app/state.js';
import type { DiffComment } from '../domain/diff-comment.js';
import {
  fileTree,
  parsePatchRows,
  searchRows,
  treeOrder,
  type DiffRow,
  type SearchMatch,
  type TreeRow,
} from '../domain/diff-rows.js';
import { sanitizeLine } from '../domain/sanitize.js';
import { cellWidth, chunkCells } from './text.js';

/** The smallest gutter: `1234 1234 ●+` (old and new line numbers, the comment mark, the sign). */
const MIN_DIGITS = 4;

const digitsCache = new WeakMap<readonly DiffRow[], number>();

/** Digits of the largest line number in a file's rows (at least 4), so no number is cut. */
export function lineDigits(rows: readonly DiffRow[]): number {
  let digits = digitsCache.get(rows);
  if (digits === undefined) {
    let most = 0;
    for (const row of rows) most = Math.max(most, row.oldNo ?? 0, row.newNo ?? 0);
    digits = Math.max(MIN_DIGITS, String(most).length);
    digitsCache.set(rows, digits);
  }
  return digits;
}

const rowsCache = new WeakMap<DiffFileView, readonly DiffRow[]>();

/** A file's patch as rows: parsed while loading, else once on first use. */
export function fileRows(file: DiffFileView): readonly DiffRow[] {
  if (file.rows) return file.rows;
  let rows = rowsCache.get(file);
  if (!rows) {
    rows =
      file.summarized !== null
        ? [{ kind: 'note', text: file.summarized, oldNo: null, newNo: null, hunk: -1 }]
        : parsePatchRows(file.patch);
    rowsCache.set(file, rows);
  }
  return rows;
}

const treeCache = new WeakMap<DiffView, { tree: TreeRow[]; order: number[] }>();

/** The compacted file tree of a loaded diff and the file indexes in its order. */
export function diffTree(view: DiffView): { tree: readonly TreeRow[]; order: readonly number[] } {
  let cached = treeCache.get(view);
  if (!cached) {
    const tree = fileTree(view.files);
    cached = { tree, order: treeOrder(tree) };
    treeCache.set(view, cached);
  }
  return cached;
}

let matchCache: { view: DiffView; query: string; matches: SearchMatch[] } | null = null;

/** Every row matching the search, over all files (computed once per diff and query). */
export function diffMatches(view: DiffView, query: string): readonly SearchMatch[] {
  if (matchCache?.view === view && matchCache.query === query) return matchCache.matches;
  const matches = searchRows(view.files.map(fileRows), query);
  matchCache = { view, query, matches };
  return matches;
}

/** The loaded diff of the mode's session, or null while loading, failed or absent. */
export function loadedDiff(state: AppState, mode: DiffMode): DiffView | null {
  const view = state.diff;
  if (!view || view.sessionId !== mode.sessionId || view.loading || view.error) return null;
  return view;
}

export function sessionComments(state: AppState, sessionId: string): readonly DiffComment[] {
  return state.diffComments[sessionId] ?? [];
}

export interface DiffPanes {
  readonly width: number;
  /** Rows between the title and the status line. */
  readonly bodyHeight: number;
  readonly listWidth: number;
  readonly patchWidth: number;
  /** Columns left for line text after the gutter. */
  readonly textWidth: number;
  /** Width of each line-number column of the current file. */
  readonly digits: number;
  readonly filesHeight: number;
  readonly commentsHeight: number;
  readonly editorHeight: number;
}

/** The diff page's panes for a page of `height` rows. */
export function diffPanes(state: AppState, mode: DiffMode, height: number): DiffPanes {
  const width = state.columns;
  const editorHeight = mode.editor
    ? Math.min(6, mode.editor.buffer.text.split('\n').length) + 3
    : mode.search?.input
      ? 1
      : 0;
  const bodyHeight = Math.max(1, height - 2 - editorHeight);
  const listWidth = Math.min(40, Math.max(18, Math.floor(width / 4)));
  const file = loadedDiff(state, mode)?.files[mode.fileIndex];
  const digits = file ? lineDigits(fileRows(file)) : MIN_DIGITS;
  const gutter = 2 * digits + 4;
  const patchWidth = Math.max(gutter + 4, width - listWidth - 1);
  const comments = sessionComments(state, mode.sessionId).length;
  const wanted = comments > 0 ? comments + 1 : mode.focus === 'comments' ? 2 : 0;
  const commentsHeight = Math.min(wanted, Math.floor(bodyHeight / 2));
  return {
    width,
    bodyHeight,
    listWidth,
    patchWidth,
    textWidth: patchWidth - gutter,
    digits,
    filesHeight: bodyHeight - commentsHeight,
    commentsHeight,
    editorHeight,
  };
}

const textCache = new WeakMap<DiffRow, { readonly text: string; readonly width: number }>();

/** A row's text as drawn (tabs as four spaces, controls as placeholders) and the cells it takes (cached per row). */
export function displayText(row: DiffRow): { readonly text: string; readonly width: number } {
  let shown = textCache.get(row);
  if (!shown) {
    const text = sanitizeLine(row.text.replace(/\t/g, '    '));
    shown = { text, width: cellWidth(text) };
    textCache.set(row, shown);
  }
  return shown;
}

const wrapCache = new WeakMap<DiffRow, { width: number; chunks: readonly string[] }>();

/** The row's text cut into screen lines of `width` cells (cached per row and width). */
export function wrapRow(row: DiffRow, width: number): readonly string[] {
  const cached = wrapCache.get(row);
  if (cached?.width === width) return cached.chunks;
  const chunks = chunkCells(displayText(row).text, width);
  wrapCache.set(row, { width, chunks });
  return chunks;
}

/** Screen lines a row takes. */
export function rowHeight(row: DiffRow | undefined, textWidth: number, wrap: boolean): number {
  if (!row || !wrap) return 1;
  return wrapRow(row, textWidth).length;
}

/**
 * The first row to draw so that `cursor` is on screen, moving as little as
 * possible from `scroll`. Looks only at the rows between the two.
 */
export function scrollToShow(
  rows: readonly DiffRow[],
  cursor: number,
  scroll: number,
  height: number,
  textWidth: number,
  wrap: boolean,
): number {
  const top = Math.max(0, Math.min(scroll, Math.max(0, rows.length - 1)));
  if (cursor < top) return cursor;
  let used = 0;
  for (let i = top; i <= cursor; i++) {
    used += rowHeight(rows[i], textWidth, wrap);
    if (used > height) break;
  }
  if (used <= height) return top;
  // Walk back from the cursor until the page is full.
  let start = cursor;
  let filled = rowHeight(rows[cursor], textWidth, wrap);
  while (start > 0 && filled + rowHeight(rows[start - 1], textWidth, wrap) <= height) {
    start--;
    filled += rowHeight(rows[start], textWidth, wrap);
  }
  return start;
}

/** The rows from `scroll` that fill `height` screen lines. */
export function visibleRows(
  rows: readonly DiffRow[],
  scroll: number,
  height: number,
  textWidth: number,
  wrap: boolean,
): { start: number; end: number } {
  const start = Math.max(0, Math.min(scroll, rows.length));
  let used = 0;
  let end = start;
  while (end < rows.length && used < height) {
    used += rowHeight(rows[end], textWidth, wrap);
    end++;
  }
  return { start, end };
}

/** The widest visible row (for clamping horizontal scroll). */
export function widestVisible(rows: readonly DiffRow[], start: number, end: number): number {
  let widest = 0;
  for (let i = start; i < end; i++) {
    const row = rows[i];
    if (row) widest = Math.max(widest, displayText(row).width);
  }
  return widest;
}

/** Comments that cover a row of a file (by line number on their side). */
export function commentsOnRow(
  comments: readonly DiffComment[],
  path: string,
  row: DiffRow | undefined,
): DiffComment[] {
  if (!row) return [];
  return comments.filter((c) => {
    if (c.path !== path || c.side === 'file' || c.startLine === null) return false;
    const n = c.side === 'new' ? row.newNo : row.oldNo;
    return n !== null && n >= c.startLine && n <= (c.endLine ?? c.startLine);
  });
}
