import { describe, expect, it } from 'vitest';
import { reduce } from '../../src/app/reducer.js';
import { diffMode, type DiffFileView, type DiffView } from '../../src/app/state.js';
import { parsePatchRows } from '../../src/domain/diff-rows.js';
import { scrollToShow, visibleRows, wrapRow } from '../../src/ui/diff-layout.js';
import { appState } from '../helpers/render.js';

// The diff view's window: only the rows on screen are laid out (wrapped
// rows take several lines), and a loaded diff puts the cursor in its place.

const rows = parsePatchRows(
  [
    '@@ -0,0 +1,6 @@',
    '+short',
    `+${'x'.repeat(25)}`,
    '+short',
    `+${'y'.repeat(35)}`,
    '+short',
    '+last',
  ].join('\n'),
);

describe('the patch window', () => {
  it('wraps a row into lines of the text width', () => {
    expect(wrapRow(rows[4] ?? rows[0]!, 10)).toEqual([
      'yyyyyyyyyy',
      'yyyyyyyyyy',
      'yyyyyyyyyy',
      'yyyyy',
    ]);
  });

  it('fills the height with rows, counting wrapped rows by their lines', () => {
    expect(visibleRows(rows, 1, 5, 10, false)).toEqual({ start: 1, end: 6 });
    // short (1) + 25 x (3) + short (1) = 5 lines.
    expect(visibleRows(rows, 1, 5, 10, true)).toEqual({ start: 1, end: 4 });
  });

  it('keeps the scroll while the cursor is on screen', () => {
    expect(scrollToShow(rows, 3, 1, 5, 10, true)).toBe(1);
  });

  it('scrolls as little as needed to show a cursor below the window', () => {
    // Row 4 takes 4 lines: with row 3 above it the page of 5 lines is full.
    expect(scrollToShow(rows, 4, 0, 5, 10, true)).toBe(3);
    expect(scrollToShow(rows, 6, 0, 5, 10, false)).toBe(2);
  });

  it('scrolls up to a cursor above the window', () => {
    expect(scrollToShow(rows, 1, 4, 5, 10, false)).toBe(1);
  });
});

const file = (path: string, patch: string): DiffFileView => ({
  path,
  status: 'modified',
  added: 1,
  deleted: 1,
  binary: false,
  patch,
  summarized: null,
  rows: parsePatchRows(patch),
});
const view = (generation: number, files: DiffFileView[]): DiffView => ({
  sessionId: 'x',
  generation,
  loading: false,
  error: null,
  files,
  added: 1,
  deleted: 1,
});

describe('a loaded diff in the reducer', () => {
  const a = file('z.ts', '@@ -1,2 +1,2 @@\n one\n-two\n+TWO');
  const b = file('src/b.ts', '@@ -1 +1 @@\n-b\n+B');

  it('starts on the first line of the first file of the tree', () => {
    const state = appState({ mode: diffMode('x') });
    const next = reduce(state, { type: 'diffLoaded', diff: view(1, [a, b]), place: 'start' });
    // The tree lists the src/ folder first.
    expect(next.mode).toMatchObject({ fileIndex: 1, cursor: 1, scroll: 0 });
  });

  it('keeps the same file, by path, when a refresh changed the list', () => {
    const state = appState({
      mode: diffMode('x', { fileIndex: 0, cursor: 3 }),
      diff: view(1, [a, b]),
    });
    const c = file('a.ts', '@@ -1 +1 @@\n-c\n+C');
    const next = reduce(state, { type: 'diffLoaded', diff: view(2, [c, a, b]), place: 'keep' });
    expect(next.mode).toMatchObject({ fileIndex: 1, cursor: 3 });
  });

  it('drops the result of an older load', () => {
    const state = appState({ mode: diffMode('x'), diff: { ...view(5, []), loading: true } });
    const next = reduce(state, { type: 'diffLoaded', diff: view(4, [a]), place: 'start' });
    expect(next).toBe(state);
  });
});
