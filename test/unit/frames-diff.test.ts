// Frame snapshots of the diff view: the file tree and the patch (Chinese and
// emoji lines, a binary file), wrapped and cut, comments, the comment editor,
// a search, and the loading, error and empty states. Text in
// __snapshots__/frames/diff-*.txt; after a deliberate layout change:
// `npx vitest run -u test/unit/frames-diff.test.ts`, then read the diff.
import { describe, expect, it } from 'vitest';
import { diffMode, type AppState, type DiffMode } from '../../src/app/state.js';
import { bufferFrom } from '../../src/domain/composer.js';
import { FRAME_SIZES, drawScreen, expectFrame } from '../helpers/frames.js';
import { diffComments, diffFiles, frameSession } from '../helpers/frame-fixtures.js';
import { appState, cellWidth } from '../helpers/render.js';

const session = frameSession('Review', 1, {
  title: '修复登录错误提示 🔐',
  addedLines: 6,
  deletedLines: 2,
});

function diffScreen(
  columns: number,
  rows: number,
  mode: Partial<Omit<DiffMode, 'kind' | 'sessionId'>> = {},
  fields: Partial<AppState> = {},
): AppState {
  return appState({
    columns,
    rows,
    sessions: [session],
    mode: diffMode(session.id, { cursor: 4, ...mode }),
    diff: {
      sessionId: session.id,
      loading: false,
      error: null,
      files: diffFiles,
      added: 6,
      deleted: 2,
    },
    ...fields,
  });
}

describe.each(FRAME_SIZES)('the diff view at %i×%i', (columns, rows) => {
  it('draws the file tree and the patch, long lines cut at the edge', async () => {
    await expectFrame('diff-patch', diffScreen(columns, rows));
  });

  it('draws the patch wrapped', async () => {
    await expectFrame('diff-wrapped', diffScreen(columns, rows, { wrap: true }));
  });

  it('draws the file tree focused on the Chinese file name', async () => {
    await expectFrame(
      'diff-files',
      diffScreen(columns, rows, { focus: 'files', fileIndex: 1, cursor: 1 }),
    );
  });

  it('draws a binary file', async () => {
    await expectFrame('diff-binary', diffScreen(columns, rows, { fileIndex: 2, cursor: 0 }));
  });

  it('draws comments on the lines and in their pane', async () => {
    await expectFrame(
      'diff-comments',
      diffScreen(
        columns,
        rows,
        { focus: 'comments', commentIndex: 1 },
        { diffComments: { f1: diffComments } },
      ),
    );
  });

  it('draws the comment editor under a selection', async () => {
    await expectFrame(
      'diff-comment-editor',
      diffScreen(columns, rows, {
        anchor: 5,
        cursor: 6,
        editor: {
          buffer: bufferFrom('这里也要测试 🧪'),
          commentId: null,
          path: 'src/login.ts',
          anchor: { side: 'new', startLine: 13, endLine: 14 },
          excerpt: '',
          hunk: '',
        },
      }),
    );
  });

  it('draws a search being typed, its matches marked', async () => {
    await expectFrame(
      'diff-search',
      diffScreen(columns, rows, { search: { query: '', input: bufferFrom('密码') } }),
    );
  });

  it('draws the diff while it loads', async () => {
    await expectFrame('diff-loading', {
      ...diffScreen(columns, rows),
      diff: { sessionId: session.id, loading: true, error: null, files: [], added: 0, deleted: 0 },
    });
  });

  it('draws a diff that failed to load', async () => {
    await expectFrame('diff-error', {
      ...diffScreen(columns, rows),
      diff: {
        sessionId: session.id,
        loading: false,
        error: 'git diff failed: the worktree is gone (工作树不存在)',
        files: [],
        added: 0,
        deleted: 0,
      },
    });
  });

  it('draws a diff with no changes', async () => {
    await expectFrame('diff-empty', {
      ...diffScreen(columns, rows),
      diff: { sessionId: session.id, loading: false, error: null, files: [], added: 0, deleted: 0 },
    });
  });
});

describe('wide text in the diff view', () => {
  it.each(FRAME_SIZES)(
    'keeps the patch pane beside the tree on every row at %i×%i',
    (columns, rows) => {
      const { lines } = drawScreen(diffScreen(columns, rows));
      for (const line of lines) expect(cellWidth(line), line).toBeLessThanOrEqual(columns);
      // The patch starts in the same cell on a row whose tree side is ASCII and on one whose
      // tree side is Chinese (中文.ts sits beside the patch's first added line).
      const ascii = lines.find((line) => line.includes('+  const ok')) ?? '';
      const wide = lines.find((line) => line.includes('中文.ts')) ?? '';
      expect(wide).toContain('+  if (attempts');
      const cellOf = (line: string, text: string): number =>
        cellWidth(line.slice(0, line.indexOf(text)));
      expect(cellOf(wide, '+  if')).toBe(cellOf(ascii, '+  const'));
    },
  );
});
