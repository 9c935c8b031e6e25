import { Box, Text } from 'ink';
import type { AppState } from '../../app/state.js';
import type { Session } from '../../domain/session.js';
import type { Theme } from '../theme.js';
import { fit, spinner, truncate, visibleWindow } from '../text.js';

interface PatchLine {
  readonly text: string;
  readonly color: string | undefined;
}

function patchLines(patch: string, theme: Theme, width: number): PatchLine[] {
  const out: PatchLine[] = [];
  let oldNo = 0;
  let newNo = 0;
  for (const raw of patch.split('\n')) {
    const hunk = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(raw);
    if (hunk) {
      oldNo = Number(hunk[1]);
      newNo = Number(hunk[2]);
      out.push({ text: truncate(raw, width), color: theme.diffHunk });
      continue;
    }
    if (/^(diff --git|index |--- |\+\+\+ |new file|deleted file|similarity|rename )/.test(raw)) continue;
    const num = (n: number | null): string => (n === null ? '    ' : String(n).padStart(4));
    if (raw.startsWith('+')) {
      out.push({ text: truncate(`${num(null)} ${num(newNo++)} ${raw}`, width), color: theme.diffAdded });
    } else if (raw.startsWith('-')) {
      out.push({ text: truncate(`${num(oldNo++)} ${num(null)} ${raw}`, width), color: theme.diffDeleted });
    } else if (raw.startsWith('\\')) {
      out.push({ text: truncate(raw, width), color: theme.muted });
    } else if (raw !== '' || out.length > 0) {
      out.push({ text: truncate(`${num(oldNo++)} ${num(newNo++)} ${raw}`, width), color: undefined });
    }
  }
  return out;
}

export function DiffPage({ state, theme, height, session }: { state: AppState; theme: Theme; height: number; session: Session }) {
  const width = state.columns;
  const mode = state.mode.kind === 'diff' ? state.mode : null;
  const diff = state.diff?.sessionId === session.id ? state.diff : null;
  const title = `Diff of ${session.branch} against ${session.baseBranch}`;
  if (!diff || diff.loading) {
    return (
      <Box flexDirection="column" height={height} paddingX={1}>
        <Text bold>{truncate(title, width - 2)}</Text>
        <Text color={theme.muted}>{spinner(state.now)} Loading the diff… (q or Esc goes back)</Text>
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
  const listWidth = Math.min(40, Math.max(20, Math.floor(width / 3)));
  const patchWidth = width - listWidth - 1;
  const bodyHeight = Math.max(1, height - 1);
  const fileIndex = Math.min(mode?.fileIndex ?? 0, diff.files.length - 1);
  const [start, end] = visibleWindow(diff.files.length, bodyHeight, fileIndex);
  const file = diff.files[fileIndex];
  const lines = file ? (file.summarized ? [{ text: file.summarized, color: theme.muted }] : patchLines(file.patch, theme, patchWidth)) : [];
  const scroll = Math.max(0, Math.min(mode?.scroll ?? 0, Math.max(0, lines.length - bodyHeight)));
  return (
    <Box flexDirection="column" height={height} width={width}>
      <Text bold wrap="truncate-end">
        {' '}
        {title} <Text color={theme.diffAdded}>+{diff.added}</Text> <Text color={theme.diffDeleted}>-{diff.deleted}</Text>
        <Text color={theme.muted}>{`  ${diff.files.length} file${diff.files.length === 1 ? '' : 's'}`}</Text>
      </Text>
      <Box flexDirection="row" height={bodyHeight}>
        <Box flexDirection="column" width={listWidth}>
          {diff.files.slice(start, end).map((f, offset) => {
            const selected = start + offset === fileIndex;
            const counts = f.binary ? 'bin' : `+${f.added} -${f.deleted}`;
            return (
              <Text key={f.path} inverse={selected} wrap="truncate-end">
                {fit(`${selected ? '▶' : ' '}${f.path}`, listWidth - counts.length - 1)} <Text color={theme.muted}>{counts}</Text>
              </Text>
            );
          })}
        </Box>
        <Box flexDirection="column" width={patchWidth} marginLeft={1}>
          {lines.slice(scroll, scroll + bodyHeight).map((line, i) => (
            <Text key={i} color={line.color} wrap="truncate-end">
              {line.text || ' '}
            </Text>
          ))}
        </Box>
      </Box>
    </Box>
  );
}
