import { Box, Text } from 'ink';
import type { AppState } from '../../app/state.js';
import { activeProject, openSession } from '../../app/state.js';
import type { Binding } from '../../domain/keymap.js';
import { displayKey } from '../../domain/keymap.js';
import type { Theme } from '../theme.js';
import { cellWidth, truncate } from '../text.js';

function homeRelative(path: string, home: string | undefined): string {
  return home && path.startsWith(home) ? `~${path.slice(home.length)}` : path;
}

function branchLine(state: AppState): string {
  const git = state.git;
  if (!git?.branch) return '';
  if (!git.upstream) return git.branch;
  return `${git.branch} -> ${git.upstream} ↑${git.ahead} ↓${git.behind}`;
}

function sessionLine(state: AppState): string | null {
  const session = openSession(state);
  if (!session) return null;
  const track = state.git?.sessions[session.id];
  const behind = track
    ? ` ↑${track.ahead} ↓${track.behind} vs ${session.baseBranch}`
    : ` (base ${session.baseBranch})`;
  return `${session.worktreePath}  ${session.branch}${behind}`;
}

/**
 * The hints that fit in `width`, in table order. The last two (help and quit
 * on the lists) always stay: on a narrow terminal the ones before them go.
 */
export function fitHints(hints: readonly string[], width: number): string {
  const pinned = hints.slice(-2);
  const rest = hints.slice(0, -2);
  const shown: string[] = [];
  const length = (parts: readonly string[]): number => cellWidth(parts.join(' · '));
  for (const hint of rest) {
    if (length([...shown, hint, ...pinned]) > width) break;
    shown.push(hint);
  }
  return [...shown, ...pinned].join(' · ');
}

export function Footer({
  state,
  theme,
  hints,
  home,
}: {
  state: AppState;
  theme: Theme;
  hints: readonly Binding[];
  home: string | undefined;
}) {
  const project = activeProject(state);
  const where =
    sessionLine(state) ??
    `${project ? homeRelative(project.path, home) : 'no project'}  ${branchLine(state)}`;
  const keys = fitHints(
    hints
      .filter((row) => row.hint)
      .map((row) => `${displayKey(row.keys[0] ?? '')} ${row.hint ?? ''}`),
    state.columns - 2,
  );
  const notice = state.notice;
  return (
    <Box flexDirection="column" width={state.columns} height={2}>
      <Text wrap="truncate-end">
        {notice ? (
          <Text
            color={
              notice.level === 'error'
                ? theme.error
                : notice.level === 'warn'
                  ? theme.warn
                  : theme.ok
            }
          >
            {' '}
            {truncate(notice.text, state.columns - 2)}
          </Text>
        ) : (
          <Text color={theme.muted}> {truncate(keys, state.columns - 2)}</Text>
        )}
      </Text>
      <Text wrap="truncate-end" color={theme.muted}>
        {' '}
        {truncate(where, state.columns - 2)}
      </Text>
    </Box>
  );
}
