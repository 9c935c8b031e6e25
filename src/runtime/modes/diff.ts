import type { CommentEditor, DiffMode, DiffView } from '../../app/state.js';
import { bufferFrom, emptyBuffer, applyEdit, insertText } from '../../domain/composer.js';
import type { DiffComment } from '../../domain/diff-comment.js';
import {
  anchorFor,
  changeStarts,
  hunkText,
  isLine,
  lineSnapshot,
  nearestLine,
  rowsAt,
  selectionRows,
  stepMatch,
  type DiffRow,
} from '../../domain/diff-rows.js';
import type { Key } from '../../domain/keys.js';
import { actionFor } from '../../domain/key-lookup.js';
import { assertNever } from '../../domain/assert-never.js';
import {
  commentsOnRow,
  diffMatches,
  diffPanes,
  diffTree,
  fileRows,
  loadedDiff,
  scrollToShow,
  sessionComments,
  visibleRows,
  widestVisible,
} from '../../ui/diff-layout.js';
import { sessionPageHeight } from '../../ui/session-layout.js';
import type { KeyContext } from './context.js';
import { editBuffer } from './input.js';

function set(ctx: KeyContext, mode: DiffMode): void {
  ctx.apply({ type: 'mode', mode });
}

function leave(ctx: KeyContext, mode: DiffMode): void {
  ctx.apply({
    type: 'mode',
    mode: {
      kind: 'session',
      sessionId: mode.sessionId,
      scrollBack: 0,
      composer: null,
      question: null,
    },
  });
}

/** The mode with the cursor kept on screen (scroll moved as little as possible). */
function shown(ctx: KeyContext, view: DiffView, mode: DiffMode): DiffMode {
  const file = view.files[mode.fileIndex];
  if (!file) return mode;
  const panes = diffPanes(ctx.state, mode, sessionPageHeight(ctx.state));
  const scroll = scrollToShow(
    fileRows(file),
    mode.cursor,
    mode.scroll,
    panes.bodyHeight,
    panes.textWidth,
    mode.wrap,
  );
  return scroll === mode.scroll ? mode : { ...mode, scroll };
}

/** Shows file `fileIndex` from its first line (or at `row`). */
function toFile(view: DiffView, mode: DiffMode, fileIndex: number, row?: number): DiffMode {
  const file = view.files[fileIndex];
  const rows = file ? fileRows(file) : [];
  const cursor = row ?? nearestLine(rows, 0, 1);
  return {
    ...mode,
    fileIndex,
    cursor,
    scroll: fileIndex === mode.fileIndex ? mode.scroll : Math.max(0, cursor - 2),
    hscroll: 0,
    anchor: null,
  };
}

/** The next line row from the cursor; a selection stays inside its hunk. */
function moveCursor(rows: readonly DiffRow[], mode: DiffMode, step: 1 | -1): number {
  for (let i = mode.cursor + step; i >= 0 && i < rows.length; i += step) {
    const row = rows[i];
    if (mode.anchor !== null && row?.hunk !== rows[mode.anchor]?.hunk) return mode.cursor;
    if (isLine(row)) return i;
  }
  return mode.cursor;
}

/** Where a comment is drawn: its file, and the first of its rows. */
function commentPlace(
  view: DiffView,
  comment: DiffComment,
): { fileIndex: number; row: number } | null {
  const fileIndex = view.files.findIndex((f) => f.path === comment.path);
  const file = view.files[fileIndex];
  if (!file) return null;
  const rows = fileRows(file);
  const first = rowsAt(rows, comment)[0];
  const row = first ? rows.indexOf(first) : nearestLine(rows, 0, 1);
  return { fileIndex, row };
}

function nextChange(view: DiffView, mode: DiffMode, step: 1 | -1): DiffMode {
  const { order } = diffTree(view);
  const file = view.files[mode.fileIndex];
  const starts = file ? changeStarts(fileRows(file)) : [];
  const here =
    step === 1
      ? starts.find((s) => s > mode.cursor)
      : [...starts].reverse().find((s) => s < mode.cursor);
  if (here !== undefined) return { ...mode, cursor: here, anchor: null };
  // On to the next (previous) file that has changes.
  const at = order.indexOf(mode.fileIndex);
  for (let i = at + step; i >= 0 && i < order.length; i += step) {
    const index = order[i] ?? 0;
    const other = view.files[index];
    const otherStarts = other ? changeStarts(fileRows(other)) : [];
    const target = step === 1 ? otherStarts[0] : otherStarts[otherStarts.length - 1];
    if (target !== undefined) return toFile(view, mode, index, target);
  }
  return mode;
}

function openEditor(mode: DiffMode, editor: CommentEditor): DiffMode {
  return { ...mode, editor, anchor: null };
}

/** `c`/Enter: a new comment on the line, the selection or the file; or the one already there. */
function comment(
  ctx: KeyContext,
  view: DiffView,
  mode: DiffMode,
  comments: readonly DiffComment[],
): void {
  if (mode.focus === 'comments') {
    const selected = comments[mode.commentIndex];
    if (selected)
      set(
        ctx,
        openEditor(mode, {
          buffer: bufferFrom(selected.body),
          commentId: selected.id,
          path: selected.path,
          anchor: selected,
          excerpt: selected.excerpt,
          hunk: selected.hunk,
        }),
      );
    return;
  }
  const file = view.files[mode.fileIndex];
  if (!file) return;
  const rows = fileRows(file);
  if (mode.focus === 'files') {
    const anchor = { side: 'file' as const, startLine: null, endLine: null };
    const existing = comments.find(
      (c) => c.path === file.path && c.side === 'file' && c.status === 'draft',
    );
    set(
      ctx,
      openEditor(mode, {
        buffer: bufferFrom(existing?.body ?? ''),
        commentId: existing?.id ?? null,
        path: file.path,
        anchor,
        excerpt: lineSnapshot(rows, anchor),
        hunk: '',
      }),
    );
    return;
  }
  if (!isLine(rows[mode.cursor])) {
    ctx.apply({
      type: 'notice',
      notice: {
        level: 'info',
        text: 'Move to a line of code to comment on it (or press c in the file tree to comment on the whole file).',
      },
    });
    return;
  }
  if (mode.anchor === null) {
    const existing = commentsOnRow(comments, file.path, rows[mode.cursor]).find(
      (c) => c.status === 'draft',
    );
    if (existing) {
      set(
        ctx,
        openEditor(mode, {
          buffer: bufferFrom(existing.body),
          commentId: existing.id,
          path: existing.path,
          anchor: existing,
          excerpt: existing.excerpt,
          hunk: existing.hunk,
        }),
      );
      return;
    }
  }
  const [from, to] =
    mode.anchor !== null
      ? selectionRows(rows, mode.anchor, mode.cursor)
      : [mode.cursor, mode.cursor];
  const anchor = anchorFor(rows, from, to);
  set(
    ctx,
    openEditor(mode, {
      buffer: emptyBuffer,
      commentId: null,
      path: file.path,
      anchor,
      excerpt: lineSnapshot(rows, anchor),
      hunk: hunkText(rows, from, to),
    }),
  );
}

function handleEditorKey(
  ctx: KeyContext,
  mode: DiffMode,
  editor: CommentEditor,
  key: Key,
  id: string,
): void {
  const action = actionFor('comment', id);
  switch (action) {
    case 'save': {
      set(ctx, { ...mode, editor: null });
      const body = editor.buffer.text.trim();
      if (body === '') {
        if (editor.commentId) ctx.intents.deleteDiffComment(mode.sessionId, editor.commentId);
        return;
      }
      ctx.intents.saveDiffComment(mode.sessionId, {
        id: editor.commentId,
        path: editor.path,
        side: editor.anchor.side,
        startLine: editor.anchor.startLine,
        endLine: editor.anchor.endLine,
        body,
        excerpt: editor.excerpt,
        hunk: editor.hunk,
      });
      return;
    }
    case 'newline':
      set(ctx, { ...mode, editor: { ...editor, buffer: applyEdit(editor.buffer, 'newline') } });
      return;
    case 'cancel':
      set(ctx, { ...mode, editor: null });
      return;
    case 'edit':
    case undefined: {
      const next = editBuffer(editor.buffer, key);
      if (next) set(ctx, { ...mode, editor: { ...editor, buffer: next } });
      return;
    }
    default:
      assertNever(action);
  }
}

function handleSearchKey(
  ctx: KeyContext,
  view: DiffView | null,
  mode: DiffMode,
  key: Key,
  id: string,
): void {
  const input = mode.search?.input;
  if (!input) return;
  const action = actionFor('diffSearch', id);
  switch (action) {
    case 'find': {
      const query = input.text.trim();
      const searched: DiffMode = { ...mode, search: query === '' ? null : { query, input: null } };
      if (!view || query === '') return set(ctx, searched);
      const matches = diffMatches(view, query);
      const { order } = diffTree(view);
      const first = stepMatch(
        matches,
        order,
        { fileIndex: mode.fileIndex, row: mode.cursor - 1 },
        1,
      );
      if (!first) {
        set(ctx, searched);
        ctx.apply({ type: 'notice', notice: { level: 'info', text: `No match for "${query}".` } });
        return;
      }
      set(ctx, shown(ctx, view, toFile(view, searched, first.fileIndex, first.row)));
      return;
    }
    case 'cancel':
      set(ctx, {
        ...mode,
        search: mode.search?.query ? { query: mode.search.query, input: null } : null,
      });
      return;
    case undefined: {
      const next = editBuffer(input, key);
      if (next && !next.text.includes('\n'))
        set(ctx, { ...mode, search: { query: mode.search?.query ?? '', input: next } });
      return;
    }
    default:
      assertNever(action);
  }
}

/** Text pasted into the comment editor or the search field. */
export function handleDiffPaste(ctx: KeyContext, mode: DiffMode, text: string): void {
  if (mode.editor)
    set(ctx, { ...mode, editor: { ...mode.editor, buffer: insertText(mode.editor.buffer, text) } });
  else if (mode.search?.input)
    set(ctx, {
      ...mode,
      search: {
        ...mode.search,
        input: insertText(mode.search.input, text.replace(/\s*\n\s*/g, ' ')),
      },
    });
}

export function handleDiffKey(ctx: KeyContext, mode: DiffMode, key: Key, id: string): void {
  const view = loadedDiff(ctx.state, mode);
  if (mode.editor) return handleEditorKey(ctx, mode, mode.editor, key, id);
  if (mode.search?.input) return handleSearchKey(ctx, view, mode, key, id);
  const action = actionFor('diff', id);
  if (!action) return;
  const loading = ctx.state.diff?.sessionId === mode.sessionId && ctx.state.diff.loading;
  switch (action) {
    case 'back':
      if (loading) ctx.intents.cancelDiff(mode.sessionId);
      leave(ctx, mode);
      return;
    case 'escape':
      if (mode.anchor !== null) set(ctx, { ...mode, anchor: null });
      else if (mode.search) set(ctx, { ...mode, search: null });
      else {
        if (loading) ctx.intents.cancelDiff(mode.sessionId);
        leave(ctx, mode);
      }
      return;
    case 'help':
      ctx.apply({ type: 'popup', popup: { kind: 'help' } });
      return;
    default:
      break;
  }
  if (!view) return;
  const comments = sessionComments(ctx.state, mode.sessionId);
  const file = view.files[mode.fileIndex];
  const rows = file ? fileRows(file) : [];
  const panes = diffPanes(ctx.state, mode, sessionPageHeight(ctx.state));
  const page = Math.max(1, Math.floor(panes.bodyHeight / 2));
  const { order } = diffTree(view);
  const go = (next: DiffMode): void => set(ctx, shown(ctx, view, next));
  switch (action) {
    case 'focus': {
      const panesInOrder =
        comments.length > 0
          ? (['files', 'patch', 'comments'] as const)
          : (['files', 'patch'] as const);
      const at = panesInOrder.findIndex((p) => p === mode.focus);
      set(ctx, {
        ...mode,
        focus: panesInOrder[(at + 1) % panesInOrder.length] ?? 'patch',
        anchor: null,
      });
      return;
    }
    case 'down':
    case 'up': {
      const step = action === 'down' ? 1 : -1;
      if (mode.focus === 'files') {
        const at = order.indexOf(mode.fileIndex);
        const index = order[Math.max(0, Math.min(order.length - 1, at + step))] ?? mode.fileIndex;
        if (index !== mode.fileIndex) go(toFile(view, mode, index));
        return;
      }
      if (mode.focus === 'comments') {
        const commentIndex = Math.max(0, Math.min(comments.length - 1, mode.commentIndex + step));
        const target = comments[commentIndex];
        const place = target ? commentPlace(view, target) : null;
        const moved: DiffMode = { ...mode, commentIndex };
        go(
          place ? { ...toFile(view, moved, place.fileIndex, place.row), focus: 'comments' } : moved,
        );
        return;
      }
      go({ ...mode, cursor: moveCursor(rows, mode, step) });
      return;
    }
    case 'pageDown':
    case 'pageUp': {
      const step = action === 'pageDown' ? 1 : -1;
      const cursor = Math.max(0, Math.min(rows.length - 1, mode.cursor + step * page));
      const scroll = Math.max(0, Math.min(Math.max(0, rows.length - 1), mode.scroll + step * page));
      go({ ...mode, cursor: nearestLine(rows, cursor, step), scroll });
      return;
    }
    case 'top':
      go({ ...mode, cursor: nearestLine(rows, 0, 1), scroll: 0 });
      return;
    case 'bottom':
      go({ ...mode, cursor: nearestLine(rows, rows.length - 1, -1) });
      return;
    case 'nextChange':
    case 'prevChange':
      go({ ...nextChange(view, mode, action === 'nextChange' ? 1 : -1), focus: 'patch' });
      return;
    case 'wrap':
      go({ ...mode, wrap: !mode.wrap, hscroll: 0 });
      return;
    case 'scrollRight':
    case 'scrollLeft': {
      if (mode.wrap) {
        ctx.apply({
          type: 'notice',
          notice: {
            level: 'info',
            text: 'Lines are wrapped: nothing is off screen (w turns wrapping off).',
          },
        });
        return;
      }
      const { start, end } = visibleRows(
        rows,
        mode.scroll,
        panes.bodyHeight,
        panes.textWidth,
        false,
      );
      const most = Math.max(0, widestVisible(rows, start, end) - panes.textWidth + 2);
      const step = Math.max(8, Math.floor(panes.textWidth / 2));
      const hscroll =
        action === 'scrollRight'
          ? Math.min(most, mode.hscroll + step)
          : Math.max(0, mode.hscroll - step);
      if (hscroll !== mode.hscroll) set(ctx, { ...mode, hscroll });
      return;
    }
    case 'search':
      set(ctx, {
        ...mode,
        search: { query: mode.search?.query ?? '', input: bufferFrom(mode.search?.query ?? '') },
      });
      return;
    case 'nextMatch':
    case 'prevMatch': {
      const query = mode.search?.query;
      if (!query) {
        ctx.apply({ type: 'notice', notice: { level: 'info', text: 'Press / to search first.' } });
        return;
      }
      const next = stepMatch(
        diffMatches(view, query),
        order,
        { fileIndex: mode.fileIndex, row: mode.cursor },
        action === 'nextMatch' ? 1 : -1,
      );
      if (next) go({ ...toFile(view, mode, next.fileIndex, next.row), focus: 'patch' });
      return;
    }
    case 'select':
      if (mode.focus !== 'patch') return;
      if (mode.anchor !== null) set(ctx, { ...mode, anchor: null });
      else if (isLine(rows[mode.cursor])) set(ctx, { ...mode, anchor: mode.cursor });
      return;
    case 'comment':
      if (mode.focus === 'files' && id === 'enter') {
        // Enter in the file tree shows the file; c comments on it.
        set(ctx, { ...mode, focus: 'patch' });
        return;
      }
      comment(ctx, view, mode, comments);
      return;
    case 'deleteComment': {
      const target =
        mode.focus === 'comments'
          ? comments[mode.commentIndex]
          : file
            ? commentsOnRow(comments, file.path, rows[mode.cursor])[0]
            : undefined;
      if (!target) return;
      ctx.intents.deleteDiffComment(mode.sessionId, target.id);
      if (mode.focus === 'comments')
        set(ctx, {
          ...mode,
          commentIndex: Math.max(0, Math.min(mode.commentIndex, comments.length - 2)),
          focus: comments.length > 1 ? 'comments' : 'patch',
        });
      return;
    }
    case 'submit':
      ctx.intents.submitDiffComments(mode.sessionId);
      return;
    default:
      assertNever(action);
  }
}
