import { Box, Text } from 'ink';
import { Fragment, type ReactNode } from 'react';
import type { AppState, DiffMode, DiffView } from '../../app/state.js';
import {
  commentLocation,
  type CommentStatus,
  type DiffComment,
} from '../../domain/diff-comment.js';
import { matchOffsets, selectionRows, type DiffRow, type TreeRow } from '../../domain/diff-rows.js';
import type { Session } from '../../domain/session.js';
import { ComposerBox } from '../components/Composer.js';
import {
  commentsOnRow,
  diffMatches,
  diffPanes,
  diffTree,
  displayText,
  fileRows,
  sessionComments,
  visibleRows,
  wrapRow,
  type DiffPanes,
} from '../diff-layout.js';
import type { Theme } from '../theme.js';
import { fit, sliceCells, spinner, truncate, visibleWindow } from '../text.js';

const STATUS_LABEL: Record<CommentStatus, string> = {
  draft: 'draft',
  sent: 'sent',
  addressed: 'possibly addressed',
  open: 'lines unchanged',
};
/** Draft, sent (waiting for the turn), possibly addressed (its lines changed), lines unchanged. */
const STATUS_MARK: Record<CommentStatus, string> = {
  draft: '●',
  sent: '↗',
  addressed: '✓',
  open: '○',
};

function statusColor(status: CommentStatus, theme: Theme): string | undefined {
  switch (status) {
    case 'draft':
      return theme.accent;
    case 'sent':
      return theme.warn;
    case 'addressed':
      return theme.ok;
    case 'open':
      return theme.muted;
    default:
      return undefined;
  }
}

function rowColor(row: DiffRow, theme: Theme): string | undefined {
  switch (row.kind) {
    case 'add':
      return theme.diffAdded;
    case 'del':
      return theme.diffDeleted;
    case 'hunk':
      return theme.diffHunk;
    case 'note':
      return theme.muted;
    case 'ctx':
      return undefined;
    default:
      return undefined;
  }
}

const num = (n: number | null, digits: number): string =>
  n === null ? ' '.repeat(digits) : String(n).padStart(digits);
const sign = (row: DiffRow): string => (row.kind === 'add' ? '+' : row.kind === 'del' ? '-' : ' ');

/** Line text with the search matches in it highlighted (plain text when nothing matches). */
function highlight(text: string, query: string, theme: Theme): ReactNode {
  const offsets = query === '' ? [] : matchOffsets(text, query);
  if (offsets.length === 0) return text;
  const parts: ReactNode[] = [];
  let at = 0;
  for (const start of offsets) {
    if (start < at) continue;
    if (start > at) parts.push(text.slice(at, start));
    const end = start + query.length;
    parts.push(
      <Text
        key={start}
        backgroundColor={theme.searchMatch}
        color={theme.searchMatch ? 'black' : undefined}
        underline={!theme.searchMatch}
      >
        {text.slice(start, end)}
      </Text>,
    );
    at = end;
  }
  if (at < text.length) parts.push(text.slice(at));
  return parts;
}

interface PatchLine {
  readonly key: string;
  readonly node: ReactNode;
}

/** The patch window: only rows from `scroll` that fit are laid out. */
function patchLines(
  view: DiffView,
  mode: DiffMode,
  panes: DiffPanes,
  comments: readonly DiffComment[],
  theme: Theme,
): PatchLine[] {
  const file = view.files[mode.fileIndex];
  if (!file) return [];
  const rows = fileRows(file);
  const height = panes.bodyHeight;
  const { start, end } = visibleRows(rows, mode.scroll, height, panes.textWidth, mode.wrap);
  const [selFrom, selTo] =
    mode.anchor !== null ? selectionRows(rows, mode.anchor, mode.cursor) : [-1, -1];
  const query = mode.search?.query ?? '';
  const out: PatchLine[] = [];
  for (let i = start; i < end && out.length < height; i++) {
    const row = rows[i];
    if (!row) continue;
    const onRow = commentsOnRow(comments, file.path, row);
    const mark = onRow[0] ? (
      <Text color={statusColor(onRow[0].status, theme)}>{STATUS_MARK[onRow[0].status]}</Text>
    ) : (
      ' '
    );
    const cursor = i === mode.cursor && mode.focus === 'patch';
    const selected = i >= selFrom && i <= selTo;
    const color = rowColor(row, theme);
    const header = row.kind === 'hunk' || row.kind === 'note';
    const blank = ' '.repeat(2 * panes.digits + 2);
    const gutter = header
      ? blank
      : `${num(row.oldNo, panes.digits)} ${num(row.newNo, panes.digits)} `;
    if (mode.wrap) {
      const chunks = wrapRow(row, panes.textWidth);
      chunks.forEach((chunk, c) => {
        if (out.length >= height) return;
        out.push({
          key: `${i}:${c}`,
          node: (
            <Text color={color} inverse={cursor || selected} wrap="truncate-end">
              {c === 0 ? gutter : blank}
              {c === 0 ? mark : ' '}
              {header ? '' : c === 0 ? sign(row) : ' '}
              {highlight(chunk, query, theme)}
            </Text>
          ),
        });
      });
      continue;
    }
    const width = header ? panes.patchWidth - blank.length - 1 : panes.textWidth;
    const shown = displayText(row);
    const shift = header ? 0 : mode.hscroll;
    const before = shift > 0 && shown.width > 0;
    const after = shown.width > shift + width;
    // What is off screen is marked (‹ ›), never cut silently: h/l or w show it.
    const visible = sliceCells(
      shown.text,
      shift + (before ? 1 : 0),
      shift + width - (after ? 1 : 0),
    );
    out.push({
      key: `${i}`,
      node: (
        <Text color={color} inverse={cursor || selected} wrap="truncate-end">
          {gutter}
          {mark}
          {header ? '' : sign(row)}
          {before ? <Text color={theme.muted}>‹</Text> : null}
          {highlight(visible, query, theme)}
          {after ? <Text color={theme.muted}>›</Text> : null}
        </Text>
      ),
    });
  }
  return out;
}

function TreePane({
  view,
  mode,
  panes,
  comments,
  theme,
}: {
  view: DiffView;
  mode: DiffMode;
  panes: DiffPanes;
  comments: readonly DiffComment[];
  theme: Theme;
}) {
  const { tree } = diffTree(view);
  const selectedRow = Math.max(
    0,
    tree.findIndex((row) => row.kind === 'file' && row.fileIndex === mode.fileIndex),
  );
  const [start, end] = visibleWindow(tree.length, panes.filesHeight, selectedRow);
  const commented = new Set(comments.map((c) => c.path));
  const label = (row: TreeRow): string => `${' '.repeat(row.depth)}${row.name}`;
  return (
    <Box flexDirection="column" height={panes.filesHeight}>
      {tree.slice(start, end).map((row, offset) => {
        const counts = `+${row.added} -${row.deleted}`;
        const selected = start + offset === selectedRow;
        const file = row.kind === 'file' ? view.files[row.fileIndex] : undefined;
        const mark = file && commented.has(file.path) ? '●' : selected ? '▶' : ' ';
        return (
          <Text
            key={`${start + offset}`}
            inverse={selected && mode.focus === 'files'}
            bold={selected}
            color={row.kind === 'folder' ? theme.muted : undefined}
            wrap="truncate-end"
          >
            {mark}
            {fit(label(row), panes.listWidth - counts.length - 2)}{' '}
            <Text color={theme.muted}>{file?.binary ? 'bin'.padStart(counts.length) : counts}</Text>
          </Text>
        );
      })}
    </Box>
  );
}

function CommentsPane({
  mode,
  panes,
  comments,
  theme,
}: {
  mode: DiffMode;
  panes: DiffPanes;
  comments: readonly DiffComment[];
  theme: Theme;
}) {
  if (panes.commentsHeight === 0) return null;
  const count = (status: CommentStatus): number =>
    comments.filter((c) => c.status === status).length;
  const drafts = count('draft');
  const tally = [
    `${drafts} draft${drafts === 1 ? '' : 's'}`,
    count('sent') > 0 ? `${count('sent')} sent` : '',
    count('addressed') > 0 ? `${count('addressed')} ✓` : '',
    count('open') > 0 ? `${count('open')} ○` : '',
  ]
    .filter(Boolean)
    .join(' ');
  const listHeight = panes.commentsHeight - 1;
  const [start, end] = visibleWindow(comments.length, listHeight, mode.commentIndex);
  return (
    <Box flexDirection="column" height={panes.commentsHeight}>
      <Text bold color={mode.focus === 'comments' ? theme.accent : theme.muted} wrap="truncate-end">
        {truncate(`Comments ${tally}${drafts > 0 ? ' · S sends' : ''}`, panes.listWidth)}
      </Text>
      {comments.length === 0 ? (
        <Text color={theme.muted}>{truncate(' none yet: c on a line', panes.listWidth)}</Text>
      ) : null}
      {comments.slice(start, end).map((c, offset) => {
        const selected = start + offset === mode.commentIndex;
        const severity = c.severity ? `[${c.severity}] ` : '';
        return (
          <Text key={c.id} inverse={selected && mode.focus === 'comments'} wrap="truncate-end">
            <Text color={statusColor(c.status, theme)}>{STATUS_MARK[c.status]}</Text>
            {truncate(` ${commentLocation(c)} ${severity}${c.body}`, panes.listWidth - 1)}
          </Text>
        );
      })}
    </Box>
  );
}

function StatusLine({
  view,
  mode,
  width,
  comments,
  theme,
}: {
  view: DiffView;
  mode: DiffMode;
  width: number;
  comments: readonly DiffComment[];
  theme: Theme;
}) {
  const file = view.files[mode.fileIndex];
  const rows = file ? fileRows(file) : [];
  const row = rows[mode.cursor];
  const parts: string[] = [];
  if (file) parts.push(`${file.path} +${file.added} -${file.deleted}`);
  if (row && (row.newNo !== null || row.oldNo !== null))
    parts.push(row.newNo !== null ? `line ${row.newNo}` : `old line ${row.oldNo ?? ''}`);
  parts.push(
    mode.wrap ? 'wrap on' : mode.hscroll > 0 ? `wrap off, column ${mode.hscroll + 1}` : 'wrap off',
  );
  if (mode.anchor !== null) parts.push('selecting (c comments, V clears)');
  if (mode.search && !mode.search.input && mode.search.query !== '') {
    const matches = diffMatches(view, mode.search.query);
    const index = matches.findIndex((m) => m.fileIndex === mode.fileIndex && m.row === mode.cursor);
    parts.push(
      `/${mode.search.query}: ${matches.length === 0 ? 'no matches' : `${index >= 0 ? `${index + 1} of ` : ''}${matches.length} match${matches.length === 1 ? '' : 'es'} (n/N)`}`,
    );
  }
  const onRow = file ? commentsOnRow(comments, file.path, row) : [];
  const comment = onRow[0];
  return (
    <Text wrap="truncate-end" color={theme.muted}>
      {' '}
      {truncate(
        comment
          ? `${parts.join(' · ')} · ● ${STATUS_LABEL[comment.status]}: ${comment.body}`
          : parts.join(' · '),
        width - 2,
      )}
    </Text>
  );
}

export function DiffPage({
  state,
  theme,
  height,
  session,
}: {
  state: AppState;
  theme: Theme;
  height: number;
  session: Session;
}) {
  const width = state.columns;
  const mode = state.mode.kind === 'diff' ? state.mode : null;
  const diff = state.diff?.sessionId === session.id ? state.diff : null;
  const title = `Diff of ${diff?.source ?? session.branch} against ${session.baseBranch}`;
  if (!mode || !diff || diff.loading) {
    return (
      <Box flexDirection="column" height={height} paddingX={1}>
        <Text bold>{truncate(title, width - 2)}</Text>
        <Text color={theme.muted}>
          {spinner(state.now)} Loading the diff… (q or Esc stops it and goes back)
        </Text>
      </Box>
    );
  }
  if (diff.error) {
    return (
      <Box flexDirection="column" height={height} paddingX={1}>
        <Text bold>{truncate(title, width - 2)}</Text>
        <Text color={theme.error}>{diff.error}</Text>
      </Box>
    );
  }
  if (diff.files.length === 0) {
    return (
      <Box flexDirection="column" height={height} paddingX={1}>
        <Text bold>{truncate(title, width - 2)}</Text>
        <Text>No changes: the session branch matches its base.</Text>
      </Box>
    );
  }
  const comments = sessionComments(state, session.id);
  const panes = diffPanes(state, mode, height);
  const lines = patchLines(diff, mode, panes, comments, theme);
  const editor = mode.editor;
  const search = mode.search?.input;
  return (
    <Box flexDirection="column" height={height} width={width}>
      <Text bold wrap="truncate-end">
        {' '}
        {truncate(title, Math.max(10, width - 40))}{' '}
        <Text color={theme.diffAdded}>+{diff.added}</Text>{' '}
        <Text color={theme.diffDeleted}>-{diff.deleted}</Text>
        <Text
          color={theme.muted}
        >{`  ${diff.files.length} file${diff.files.length === 1 ? '' : 's'}`}</Text>
      </Text>
      <Box flexDirection="row" height={panes.bodyHeight}>
        <Box flexDirection="column" width={panes.listWidth}>
          <TreePane view={diff} mode={mode} panes={panes} comments={comments} theme={theme} />
          <CommentsPane mode={mode} panes={panes} comments={comments} theme={theme} />
        </Box>
        <Box flexDirection="column" width={panes.patchWidth} marginLeft={1}>
          {lines.map((line) => (
            <Fragment key={line.key}>{line.node}</Fragment>
          ))}
        </Box>
      </Box>
      <StatusLine view={diff} mode={mode} width={width} comments={comments} theme={theme} />
      {editor ? (
        <ComposerBox
          buffer={editor.buffer}
          width={width}
          theme={theme}
          title={`${editor.commentId ? 'Edit the comment on' : 'Comment on'} ${commentLocation({ path: editor.path, ...editor.anchor })}`}
          subtitle="markdown · Enter saves a draft · Shift+Enter new line · Esc cancels"
        />
      ) : null}
      {search ? (
        <Text wrap="truncate-end">
          <Text color={theme.accent}>/</Text>
          {search.text.slice(0, search.cursor)}
          <Text inverse>{search.text.slice(search.cursor, search.cursor + 1) || ' '}</Text>
          {search.text.slice(search.cursor + 1)}
        </Text>
      ) : null}
    </Box>
  );
}
