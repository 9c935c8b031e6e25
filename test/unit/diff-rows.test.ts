import { describe, expect, it } from 'vitest';
import {
  anchorFor,
  changeStarts,
  fileTree,
  hunkText,
  lineSnapshot,
  matchOffsets,
  parsePatchRows,
  rowsAt,
  searchRows,
  selectionRows,
  stepMatch,
  treeOrder,
} from '../../src/domain/diff-rows.js';

// The diff view's model: patch rows, the compacted file tree, change
// blocks, search, and the line ranges comments point at.

const PATCH = [
  'diff --git a/src/a.ts b/src/a.ts',
  'index 1111111..2222222 100644',
  '--- a/src/a.ts',
  '+++ b/src/a.ts',
  '@@ -1,4 +1,5 @@',
  ' one',
  '-two',
  '+TWO',
  '+two and a half',
  ' three',
  ' four',
  '@@ -10,2 +11,2 @@',
  ' ten',
  '-eleven',
  '+ELEVEN',
  '\\ No newline at end of file',
  '',
].join('\n');

const rows = parsePatchRows(PATCH);

describe('patch rows', () => {
  it('numbers each side and skips the file header', () => {
    expect(rows.map((r) => [r.kind, r.text, r.oldNo, r.newNo])).toEqual([
      ['hunk', '@@ -1,4 +1,5 @@', null, null],
      ['ctx', 'one', 1, 1],
      ['del', 'two', 2, null],
      ['add', 'TWO', null, 2],
      ['add', 'two and a half', null, 3],
      ['ctx', 'three', 3, 4],
      ['ctx', 'four', 4, 5],
      ['hunk', '@@ -10,2 +11,2 @@', null, null],
      ['ctx', 'ten', 10, 11],
      ['del', 'eleven', 11, null],
      ['add', 'ELEVEN', null, 12],
      ['note', '\\ No newline at end of file', null, null],
    ]);
  });

  it('finds the first row of every block of changes', () => {
    expect(changeStarts(rows)).toEqual([2, 9]);
  });

  it('keeps a removed line that looks like a file header', () => {
    const tricky = parsePatchRows('@@ -1,2 +1,1 @@\n--- not a header\n keep\n');
    expect(tricky.map((r) => r.kind)).toEqual(['hunk', 'del', 'ctx']);
  });
});

describe('the file tree', () => {
  const files = [
    { path: 'src/app/services/review/diff-view.ts', added: 10, deleted: 2 },
    { path: 'src/app/services/review/diff-comments.ts', added: 5, deleted: 0 },
    { path: 'src/domain/diff-rows.ts', added: 7, deleted: 1 },
    { path: 'README.md', added: 1, deleted: 1 },
    { path: 'docs/usage/workflow.md', added: 3, deleted: 0 },
  ];

  it('compacts folder chains with one child into one row and totals each folder', () => {
    const tree = fileTree(files).map(
      (r) => `${'  '.repeat(r.depth)}${r.name} +${r.added} -${r.deleted}`,
    );
    expect(tree).toEqual([
      'docs/usage/ +3 -0',
      '  workflow.md +3 -0',
      'src/ +22 -3',
      '  app/services/review/ +15 -2',
      '    diff-comments.ts +5 -0',
      '    diff-view.ts +10 -2',
      '  domain/ +7 -1',
      '    diff-rows.ts +7 -1',
      'README.md +1 -1',
    ]);
  });

  it('lists the files in tree order for j/k', () => {
    expect(treeOrder(fileTree(files))).toEqual([4, 1, 0, 2, 3]);
  });

  it('does not compact a folder that also holds files', () => {
    const tree = fileTree([
      { path: 'a/b/c.ts', added: 1, deleted: 0 },
      { path: 'a/top.ts', added: 1, deleted: 0 },
    ]).map((r) => r.name);
    expect(tree).toEqual(['a/', 'b/', 'c.ts', 'top.ts']);
  });
});

describe('line ranges', () => {
  it('numbers a range of new lines by its first and last new line', () => {
    expect(anchorFor(rows, 2, 4)).toEqual({ side: 'new', startLine: 2, endLine: 3 });
  });

  it('numbers removed lines alone by the old side', () => {
    expect(anchorFor(rows, 2, 2)).toEqual({ side: 'old', startLine: 2, endLine: 2 });
  });

  it('keeps a selection inside the hunk it started in', () => {
    expect(selectionRows(rows, 5, 10)).toEqual([5, 6]);
    expect(selectionRows(rows, 9, 1)).toEqual([8, 9]);
  });

  it('finds the rows of an anchor by line number', () => {
    expect(rowsAt(rows, { side: 'new', startLine: 2, endLine: 4 }).map((r) => r.text)).toEqual([
      'TWO',
      'two and a half',
      'three',
    ]);
    expect(rowsAt(rows, { side: 'old', startLine: 11, endLine: 11 }).map((r) => r.text)).toEqual([
      'eleven',
    ]);
    expect(rowsAt(rows, { side: 'new', startLine: 40, endLine: 41 })).toEqual([]);
  });

  it('gives the hunk of a range with its header', () => {
    expect(hunkText(rows, 9, 10)).toBe(
      '@@ -10,2 +11,2 @@\n ten\n-eleven\n+ELEVEN\n\\ No newline at end of file',
    );
  });

  it('snapshots the lines of an anchor as diff text', () => {
    expect(lineSnapshot(rows, { side: 'new', startLine: 2, endLine: 3 })).toBe(
      '+TWO\n+two and a half',
    );
    expect(lineSnapshot(rows, { side: 'file', startLine: null, endLine: null })).toMatch(
      /^file:[0-9a-f]{8}$/,
    );
  });
});

describe('search', () => {
  const other = parsePatchRows('@@ -1 +1 @@\n-Two\n+three twos\n');

  it('matches without case for a lowercase query, across files, but not hunk headers', () => {
    expect(searchRows([rows, other], 'two')).toEqual([
      { fileIndex: 0, row: 2 },
      { fileIndex: 0, row: 3 },
      { fileIndex: 0, row: 4 },
      { fileIndex: 1, row: 1 },
      { fileIndex: 1, row: 2 },
    ]);
  });

  it('matches case exactly for a query with capitals', () => {
    expect(searchRows([rows, other], 'TWO')).toEqual([{ fileIndex: 0, row: 3 }]);
  });

  it('steps to the next match in file order and wraps around', () => {
    const matches = searchRows([rows, other], 'two');
    expect(stepMatch(matches, [1, 0], { fileIndex: 1, row: 2 }, 1)).toEqual({
      fileIndex: 0,
      row: 2,
    });
    expect(stepMatch(matches, [1, 0], { fileIndex: 0, row: 4 }, 1)).toEqual({
      fileIndex: 1,
      row: 1,
    });
    expect(stepMatch(matches, [0, 1], { fileIndex: 0, row: 2 }, -1)).toEqual({
      fileIndex: 1,
      row: 2,
    });
  });

  it('finds every occurrence in a line for highlighting', () => {
    expect(matchOffsets('two, Two and TWO', 'two')).toEqual([0, 5, 13]);
  });
});
