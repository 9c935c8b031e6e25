import { describe, expect, it } from 'vitest';
import { diffMode, type AppState, type DiffFileView, type DiffMode } from '../../src/app/state.js';
import type { DiffComment } from '../../src/domain/diff-comment.js';
import { SPARE_KEYS, bindingRows, pressKeys, unboundKeys, type KeyRun } from '../helpers/keys.js';
import { appState } from '../helpers/render.js';
import { makeSession } from '../helpers/session-factory.js';

// The diff view's keys: every row of its binding table, the comment editor
// and the search field, on a diff with two hunks and a long line.

const LONG = `new 21 ${'x'.repeat(300)} END`;

/** Rows: 0 @@, 1-20 context (lines 1-20), 21 -old 21, 22 +LONG (new 21), 23 +added (new 22), 24-53 context (new 23-52), 54 @@, 55 ctx, 56 -, 57 +, 58 ctx. */
const bPatch = [
  '@@ -1,51 +1,52 @@',
  ...Array.from({ length: 20 }, (_, i) => ` line ${i + 1}`),
  '-old 21',
  `+${LONG}`,
  '+added 22',
  ...Array.from({ length: 30 }, (_, i) => ` line ${i + 23}`),
  '@@ -80,3 +81,3 @@',
  ' line 81',
  '-gone 82',
  '+here 82',
  ' line 83',
].join('\n');

const file = (path: string, patch: string, added = 1, deleted = 1): DiffFileView => ({
  path,
  status: 'modified',
  added,
  deleted,
  binary: false,
  patch,
  summarized: null,
});

const files: DiffFileView[] = [
  file('src/app/a.ts', '@@ -1 +1 @@\n-a\n+b'),
  file('src/app/b.ts', bPatch, 3, 2),
  file('z.md', '@@ -1 +1 @@\n-z\n+Z'),
];

const draft: DiffComment = {
  id: 'c1',
  sessionId: 'x',
  path: 'src/app/b.ts',
  side: 'new',
  startLine: 21,
  endLine: 21,
  body: 'Shorter, please.',
  excerpt: `+${LONG}`,
  hunk: '',
  severity: null,
  origin: 'person',
  status: 'draft',
  createdAt: 0,
  updatedAt: 0,
};

function diffState(
  fields: Partial<Omit<DiffMode, 'kind' | 'sessionId'>> = {},
  extra: Partial<AppState> = {},
): AppState {
  return appState({
    sessions: [makeSession('Review', { id: 'x' })],
    mode: diffMode('x', {
      fileIndex: 1,
      cursor: 22,
      hscroll: 8,
      search: { query: 'line 3', input: null },
      ...fields,
    }),
    diff: { sessionId: 'x', loading: false, error: null, files, added: 5, deleted: 4 },
    diffComments: { x: [draft] },
    ...extra,
  });
}

const mode = (run: KeyRun): DiffMode => {
  if (run.state.mode.kind !== 'diff') throw new Error(`left the diff view: ${run.state.mode.kind}`);
  return run.state.mode;
};

/** What each action does from diffState(): cursor on the long added line (row 22). */
const EXPECTED: Record<string, (run: KeyRun) => void> = {
  back: (run) =>
    expect(run.state.mode).toEqual({
      kind: 'session',
      sessionId: 'x',
      scrollBack: 0,
      composer: null,
      question: null,
    }),
  escape: (run) => expect(mode(run).search).toBeNull(),
  focus: (run) => expect(mode(run).focus).toBe('comments'),
  down: (run) => expect(mode(run).cursor).toBe(23),
  up: (run) => expect(mode(run).cursor).toBe(21),
  pageDown: (run) => expect(mode(run).cursor).toBe(39),
  pageUp: (run) => expect(mode(run).cursor).toBe(5),
  top: (run) => expect(mode(run).cursor).toBe(1),
  bottom: (run) => expect(mode(run).cursor).toBe(58),
  nextChange: (run) => expect(mode(run).cursor).toBe(56),
  prevChange: (run) => expect(mode(run).cursor).toBe(21),
  wrap: (run) => expect(mode(run)).toMatchObject({ wrap: true, hscroll: 0 }),
  scrollRight: (run) => expect(mode(run).hscroll).toBeGreaterThan(8),
  scrollLeft: (run) => expect(mode(run).hscroll).toBe(0),
  search: (run) => expect(mode(run).search?.input?.text).toBe('line 3'),
  // "line 3" matches line 3 (row 3) and lines 30-39 (rows 31-40).
  nextMatch: (run) => expect(mode(run).cursor).toBe(31),
  prevMatch: (run) => expect(mode(run).cursor).toBe(3),
  select: (run) => expect(mode(run).anchor).toBe(22),
  comment: (run) =>
    expect(mode(run).editor).toMatchObject({ commentId: 'c1', path: 'src/app/b.ts' }),
  deleteComment: (run) =>
    expect(run.calls).toEqual([{ method: 'deleteDiffComment', args: ['x', 'c1'] }]),
  submit: (run) => expect(run.calls).toEqual([{ method: 'submitDiffComments', args: ['x'] }]),
  help: (run) => expect(run.state.popup).toEqual({ kind: 'help' }),
};

describe('the diff view keys', () => {
  it.each(bindingRows('diff'))('turns %s (%s) into its intent', (key, action) => {
    const run = pressKeys(diffState(), [key]);
    const check = EXPECTED[action];
    expect(check).toBeDefined();
    check?.(run);
  });

  it.each(unboundKeys('diff', SPARE_KEYS))('does nothing on %s', (key) => {
    const before = diffState();
    const run = pressKeys(before, [key]);
    expect({ events: run.events, calls: run.calls }).toEqual({ events: [], calls: [] });
    expect(run.state).toBe(before);
  });

  it('walks the files in tree order in the file tree', () => {
    const run = pressKeys(diffState({ focus: 'files', fileIndex: 0, cursor: 1 }), ['j', 'j', 'j']);
    expect(mode(run)).toMatchObject({ fileIndex: 2, cursor: 1, anchor: null });
  });

  it('jumps to the next change in the next file after the last change of a file', () => {
    const run = pressKeys(diffState({ cursor: 57 }), [']']);
    expect(mode(run)).toMatchObject({ fileIndex: 2, cursor: 1 });
  });

  it('keeps the cursor line on screen when paging far down', () => {
    const run = pressKeys(diffState({ cursor: 1 }), ['G']);
    expect(mode(run).cursor).toBe(58);
    expect(mode(run).scroll).toBeGreaterThan(0);
  });

  it('stops and leaves a diff that is still loading on Esc', () => {
    const state = diffState(
      {},
      { diff: { sessionId: 'x', loading: true, error: null, files: [], added: 0, deleted: 0 } },
    );
    const run = pressKeys({ ...state, mode: diffMode('x') }, ['escape']);
    expect(run.calls).toEqual([{ method: 'cancelDiff', args: ['x'] }]);
    expect(run.state.mode.kind).toBe('session');
  });

  it('ignores movement keys while the diff loads', () => {
    const state = diffState(
      {},
      { diff: { sessionId: 'x', loading: true, error: null, files: [], added: 0, deleted: 0 } },
    );
    const run = pressKeys(state, ['j', ']', 'w', 'S']);
    expect({ events: run.events, calls: run.calls }).toEqual({ events: [], calls: [] });
  });
});

describe('commenting from the diff view', () => {
  it('comments on a range selected with V and extended with j', () => {
    const run = pressKeys(diffState({ cursor: 21, search: null }), ['V', 'j', 'j', 'c']);
    expect(mode(run).editor).toMatchObject({
      commentId: null,
      path: 'src/app/b.ts',
      anchor: { side: 'new', startLine: 21, endLine: 22 },
      // The new side's lines 21-22 as they are now (the removed line above them is in the hunk).
      excerpt: `+${LONG}\n+added 22`,
    });
    expect(mode(run).editor?.hunk).toMatch(/^@@ -1,51 \+1,52 @@\n line 1\n/);
  });

  it('keeps a selection inside its hunk', () => {
    const run = pressKeys(diffState({ cursor: 52 }), ['V', 'j', 'j', 'j', 'j']);
    expect(mode(run)).toMatchObject({ anchor: 52, cursor: 53 });
  });

  it('saves a typed comment as a draft with its location', () => {
    const run = pressKeys(diffState({ cursor: 56, search: null }), [
      'c',
      'U',
      's',
      'e',
      'space',
      'x',
      'enter',
    ]);
    expect(mode(run).editor).toBeNull();
    expect(run.calls).toEqual([
      {
        method: 'saveDiffComment',
        args: [
          'x',
          {
            id: null,
            path: 'src/app/b.ts',
            side: 'old',
            startLine: 81,
            endLine: 81,
            body: 'Use x',
            excerpt: '-gone 82',
            hunk: '@@ -80,3 +81,3 @@\n line 81\n-gone 82\n+here 82\n line 83',
          },
        ],
      },
    ]);
  });

  it('writes new lines with Shift+Enter and keeps them in the comment', () => {
    const run = pressKeys(diffState({ cursor: 57 }), ['c', 'a', 'shift+enter', 'b', 'enter']);
    expect(run.calls[0]?.args[1]).toMatchObject({
      body: 'a\nb',
      side: 'new',
      startLine: 82,
      endLine: 82,
    });
  });

  it('closes the editor on Esc without saving', () => {
    const run = pressKeys(diffState({ cursor: 57 }), ['c', 'a', 'escape']);
    expect(mode(run).editor).toBeNull();
    expect(run.calls).toEqual([]);
  });

  it('deletes a comment whose text was emptied', () => {
    const run = pressKeys(diffState(), ['enter', 'ctrl+u', 'enter']);
    expect(run.calls).toEqual([{ method: 'deleteDiffComment', args: ['x', 'c1'] }]);
  });

  it('comments on the whole file from the file tree', () => {
    const run = pressKeys(diffState({ focus: 'files' }), ['c']);
    expect(mode(run).editor).toMatchObject({
      path: 'src/app/b.ts',
      anchor: { side: 'file', startLine: null, endLine: null },
    });
  });

  it('edits the selected comment from the comments pane', () => {
    const run = pressKeys(diffState({ focus: 'comments', cursor: 1 }), ['enter']);
    expect(mode(run).editor).toMatchObject({
      commentId: 'c1',
      buffer: { text: 'Shorter, please.' },
    });
  });
});

describe('searching the diff', () => {
  it('moves to the first match after the cursor when the search is confirmed', () => {
    const run = pressKeys(diffState({ cursor: 1, search: null }), [
      '/',
      'h',
      'e',
      'r',
      'e',
      'enter',
    ]);
    expect(mode(run)).toMatchObject({ cursor: 57, search: { query: 'here', input: null } });
  });

  it('types j and k into the search field instead of moving', () => {
    const run = pressKeys(diffState({ search: null }), ['/', 'j', 'k']);
    expect(mode(run)).toMatchObject({ cursor: 22, search: { input: { text: 'jk' } } });
  });

  it('says so when nothing matches', () => {
    const run = pressKeys(diffState({ search: null }), ['/', 'q', 'q', 'enter']);
    expect(run.state.notice?.text).toBe('No match for "qq".');
  });
});
