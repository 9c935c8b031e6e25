// The diff view's model: one file's patch as numbered rows, the compacted
// file tree, change blocks, search matches and line ranges. Pure data.

import { compareOrdinal } from './ordinal.js';

export type DiffRowKind = 'hunk' | 'add' | 'del' | 'ctx' | 'note';

/** One displayed line of a file's patch. */
export interface DiffRow {
  readonly kind: DiffRowKind;
  /** The line without its `+`/`-`/` ` prefix; the whole header for hunks and notes. */
  readonly text: string;
  readonly oldNo: number | null;
  readonly newNo: number | null;
  /** Index of the hunk the row belongs to (-1 before the first hunk). */
  readonly hunk: number;
}

const FILE_HEADER =
  /^(diff --git|index |--- |\+\+\+ |new file|deleted file|similarity|rename |old mode|new mode|copy )/;
const HUNK_HEADER = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/;

/** Parses one file's unified patch (as `git diff` prints it) into rows. */
export function parsePatchRows(patch: string): DiffRow[] {
  const rows: DiffRow[] = [];
  let oldNo = 0;
  let newNo = 0;
  let hunk = -1;
  let inHunk = false;
  const lines = patch.split('\n');
  // A patch ends with a newline: its last "line" is empty and not part of it.
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  for (const raw of lines) {
    const header = HUNK_HEADER.exec(raw);
    if (header) {
      oldNo = Number(header[1]);
      newNo = Number(header[2]);
      hunk += 1;
      inHunk = true;
      rows.push({ kind: 'hunk', text: raw, oldNo: null, newNo: null, hunk });
      continue;
    }
    if (!inHunk) {
      if (FILE_HEADER.test(raw) || raw === '') continue;
      rows.push({ kind: 'note', text: raw, oldNo: null, newNo: null, hunk });
      continue;
    }
    const sign = raw.charAt(0);
    if (sign === '+')
      rows.push({ kind: 'add', text: raw.slice(1), oldNo: null, newNo: newNo++, hunk });
    else if (sign === '-')
      rows.push({ kind: 'del', text: raw.slice(1), oldNo: oldNo++, newNo: null, hunk });
    else if (sign === '\\') rows.push({ kind: 'note', text: raw, oldNo: null, newNo: null, hunk });
    else if (sign === ' ' || raw === '')
      rows.push({ kind: 'ctx', text: raw.slice(1), oldNo: oldNo++, newNo: newNo++, hunk });
    else if (FILE_HEADER.test(raw)) inHunk = false;
    else rows.push({ kind: 'note', text: raw, oldNo: null, newNo: null, hunk });
  }
  return rows;
}

export const isChange = (row: DiffRow | undefined): boolean =>
  row !== undefined && (row.kind === 'add' || row.kind === 'del');

/** Rows a cursor may rest on (lines of code, not headers). */
export const isLine = (row: DiffRow | undefined): boolean =>
  row !== undefined && (row.kind === 'add' || row.kind === 'del' || row.kind === 'ctx');

/** The first row of every block of consecutive added/deleted rows. */
export function changeStarts(rows: readonly DiffRow[]): number[] {
  const out: number[] = [];
  for (let i = 0; i < rows.length; i++)
    if (isChange(rows[i]) && !isChange(rows[i - 1])) out.push(i);
  return out;
}

/** The nearest line row at or after `from` (step 1) or at or before it (step -1); `from` itself when none. */
export function nearestLine(rows: readonly DiffRow[], from: number, step: 1 | -1): number {
  for (let i = from; i >= 0 && i < rows.length; i += step) if (isLine(rows[i])) return i;
  return from;
}

// ---- File tree -------------------------------------------------------------

export interface TreeFile {
  readonly path: string;
  readonly added: number;
  readonly deleted: number;
  readonly binary?: boolean;
}

/** One row of the file tree: a folder (possibly a compacted chain `src/app/`) or a file. */
export type TreeRow =
  | {
      readonly kind: 'folder';
      readonly name: string;
      readonly depth: number;
      readonly added: number;
      readonly deleted: number;
    }
  | {
      readonly kind: 'file';
      readonly name: string;
      readonly depth: number;
      readonly fileIndex: number;
      readonly added: number;
      readonly deleted: number;
    };

interface Folder {
  readonly folders: Map<string, Folder>;
  readonly files: { name: string; index: number }[];
  added: number;
  deleted: number;
}

const newFolder = (): Folder => ({ folders: new Map(), files: [], added: 0, deleted: 0 });

/**
 * The files as a tree, folders first, each with its +/- totals. A folder
 * whose only child is one folder is merged with it (`src/app/`), so a deep
 * path with nothing else beside it takes one row.
 */
export function fileTree(files: readonly TreeFile[]): TreeRow[] {
  const root = newFolder();
  files.forEach((file, index) => {
    const parts = file.path.split('/');
    const name = parts.pop() ?? file.path;
    let folder = root;
    folder.added += file.added;
    folder.deleted += file.deleted;
    for (const part of parts) {
      let next = folder.folders.get(part);
      if (!next) {
        next = newFolder();
        folder.folders.set(part, next);
      }
      next.added += file.added;
      next.deleted += file.deleted;
      folder = next;
    }
    folder.files.push({ name, index });
  });
  const out: TreeRow[] = [];
  const walk = (folder: Folder, depth: number): void => {
    for (const name of [...folder.folders.keys()].sort(compareOrdinal)) {
      let child = folder.folders.get(name) ?? newFolder();
      let label = `${name}/`;
      // Compact the chain: a folder holding exactly one folder and no files.
      while (child.files.length === 0 && child.folders.size === 1) {
        const [onlyName, only] = [...child.folders.entries()][0] ?? ['', newFolder()];
        label += `${onlyName}/`;
        child = only;
      }
      out.push({ kind: 'folder', name: label, depth, added: child.added, deleted: child.deleted });
      walk(child, depth + 1);
    }
    for (const file of [...folder.files].sort((a, b) => compareOrdinal(a.name, b.name))) {
      const info = files[file.index];
      out.push({
        kind: 'file',
        name: file.name,
        depth,
        fileIndex: file.index,
        added: info?.added ?? 0,
        deleted: info?.deleted ?? 0,
      });
    }
  };
  walk(root, 0);
  return out;
}

/** The file indexes in tree order (what j/k in the file tree walk through). */
export function treeOrder(tree: readonly TreeRow[]): number[] {
  const out: number[] = [];
  for (const row of tree) if (row.kind === 'file') out.push(row.fileIndex);
  return out;
}

// ---- Search ---------------------------------------------------------------

export interface SearchMatch {
  readonly fileIndex: number;
  readonly row: number;
}

/** Every row holding `query` (case-insensitive unless the query has capitals), file by file. */
export function searchRows(files: readonly (readonly DiffRow[])[], query: string): SearchMatch[] {
  if (query === '') return [];
  const caseless = query === query.toLowerCase();
  const out: SearchMatch[] = [];
  files.forEach((rows, fileIndex) => {
    rows.forEach((row, index) => {
      if (row.kind === 'hunk') return;
      const text = caseless ? row.text.toLowerCase() : row.text;
      if (text.includes(query)) out.push({ fileIndex, row: index });
    });
  });
  return out;
}

/** Where `query` occurs in `text` (start offsets), with the same case rule as searchRows. */
export function matchOffsets(text: string, query: string): number[] {
  if (query === '') return [];
  const hay = query === query.toLowerCase() ? text.toLowerCase() : text;
  const out: number[] = [];
  for (let at = hay.indexOf(query); at !== -1; at = hay.indexOf(query, at + query.length))
    out.push(at);
  return out;
}

/** The next (step 1) or previous (step -1) match from a position, wrapping around. */
export function stepMatch(
  matches: readonly SearchMatch[],
  fileOrder: readonly number[],
  at: SearchMatch,
  step: 1 | -1,
): SearchMatch | undefined {
  if (matches.length === 0) return undefined;
  const rank = (m: SearchMatch): number => fileOrder.indexOf(m.fileIndex) * 1e9 + m.row;
  const sorted = [...matches].sort((a, b) => rank(a) - rank(b));
  const here = rank(at);
  if (step === 1) return sorted.find((m) => rank(m) > here) ?? sorted[0];
  return [...sorted].reverse().find((m) => rank(m) < here) ?? sorted[sorted.length - 1];
}

// ---- Line ranges ------------------------------------------------------------

export type CommentSide = 'new' | 'old' | 'file';

/** Where a comment points: a file, or lines of its new (or, for removed lines, old) side. */
export interface LineAnchor {
  readonly side: CommentSide;
  readonly startLine: number | null;
  readonly endLine: number | null;
}

/**
 * The row range a visual selection covers: from the anchor to the cursor,
 * kept inside the anchor's hunk, on line rows only.
 */
export function selectionRows(
  rows: readonly DiffRow[],
  anchor: number,
  cursor: number,
): [number, number] {
  const hunk = rows[anchor]?.hunk ?? -1;
  let from = Math.min(anchor, cursor);
  let to = Math.max(anchor, cursor);
  while (from < anchor && (rows[from]?.hunk !== hunk || !isLine(rows[from]))) from++;
  while (to > anchor && (rows[to]?.hunk !== hunk || !isLine(rows[to]))) to--;
  return [from, to];
}

/**
 * The lines rows `from..to` stand for. Only removed lines: the old side.
 * Otherwise the new side, from the first to the last new-side line (removed
 * lines between them are part of the excerpt, not of the numbers).
 */
export function anchorFor(rows: readonly DiffRow[], from: number, to: number): LineAnchor {
  const picked = rows.slice(from, to + 1).filter(isLine);
  const newNos = picked.map((r) => r.newNo).filter((n): n is number => n !== null);
  if (newNos.length > 0)
    return { side: 'new', startLine: Math.min(...newNos), endLine: Math.max(...newNos) };
  const oldNos = picked.map((r) => r.oldNo).filter((n): n is number => n !== null);
  if (oldNos.length > 0)
    return { side: 'old', startLine: Math.min(...oldNos), endLine: Math.max(...oldNos) };
  return { side: 'file', startLine: null, endLine: null };
}

const prefix = (row: DiffRow): string =>
  row.kind === 'add' ? '+' : row.kind === 'del' ? '-' : row.kind === 'ctx' ? ' ' : '';

/** Rows as unified-diff text. */
export function rowsText(rows: readonly DiffRow[]): string {
  return rows.map((row) => `${prefix(row)}${row.text}`).join('\n');
}

/** The rows of an anchor's lines, found by line number (empty when none is in the patch). */
export function rowsAt(rows: readonly DiffRow[], anchor: LineAnchor): DiffRow[] {
  const { side, startLine, endLine } = anchor;
  if (side === 'file' || startLine === null || endLine === null) return [];
  const inRange = (n: number | null): boolean => n !== null && n >= startLine && n <= endLine;
  const first = rows.findIndex((r) => isLine(r) && inRange(side === 'new' ? r.newNo : r.oldNo));
  if (first === -1) return [];
  let last = first;
  for (let i = first; i < rows.length; i++) {
    const row = rows[i];
    if (!row || row.kind === 'hunk') break;
    const n = side === 'new' ? row.newNo : row.oldNo;
    if (n !== null && n > endLine) break;
    if (n !== null) last = i;
  }
  return rows.slice(first, last + 1).filter(isLine);
}

const HUNK_CONTEXT = 40;

/**
 * The hunk an anchor lies in, as unified-diff text with its `@@` header; a
 * long hunk is cut to the lines around the anchor.
 */
export function hunkText(rows: readonly DiffRow[], from: number, to: number): string {
  const hunk = rows[from]?.hunk;
  if (hunk === undefined || hunk < 0) return '';
  const header = rows.find((r) => r.kind === 'hunk' && r.hunk === hunk);
  const body: DiffRow[] = [];
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i];
    if (
      row &&
      row.hunk === hunk &&
      row.kind !== 'hunk' &&
      i >= from - HUNK_CONTEXT &&
      i <= to + HUNK_CONTEXT
    )
      body.push(row);
  }
  return [header?.text ?? '', rowsText(body)].filter((part) => part !== '').join('\n');
}

/** A short stable digest (FNV-1a, 32 bits, hex) of a text. */
export function digest(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, '0');
}

/**
 * What a comment's lines look like now, to tell later whether a turn
 * changed them: the lines' diff text, or for a whole-file comment a digest
 * of the file's patch.
 */
export function lineSnapshot(rows: readonly DiffRow[], anchor: LineAnchor): string {
  if (anchor.side === 'file') return `file:${digest(rowsText(rows))}`;
  return rowsText(rowsAt(rows, anchor));
}
