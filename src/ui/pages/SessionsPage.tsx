import { Box, Text } from 'ink';
import type { AppState } from '../../app/state.js';
import { GROUP_TITLES, groupSessions } from '../../domain/session-order.js';
import type { Session } from '../../domain/session.js';
import { activeWorkSeconds, formatDuration } from '../../domain/session.js';
import type { Theme } from '../theme.js';
import { fit, visibleWindow } from '../text.js';

type Row =
  | { kind: 'header'; key: string; label: string }
  | { kind: 'session'; key: string; session: Session };

function prBadge(session: Session): string {
  const pr = session.reviewRequest;
  if (!pr) return session.publishedBranch ? ' ↑' : '';
  const mark = pr.state === 'merged' ? '✓' : pr.state === 'closed' ? '✗' : '⊙';
  return ` ${mark} #${pr.number}`;
}

function SessionRow({
  session,
  selected,
  conflict,
  width,
  now,
  theme,
}: {
  session: Session;
  selected: boolean;
  conflict: boolean;
  width: number;
  now: number;
  theme: Theme;
}) {
  const model = `${session.agent}/${session.model} [${session.reasoning}]`;
  const timer = formatDuration(activeWorkSeconds(session, now));
  const fixed = 2 + 6 + 26 + 12 + 9;
  const titleWidth = Math.max(8, width - fixed);
  const conflictLabel = conflict ? ' [merge conflict]' : '';
  const textWidth = Math.max(1, titleWidth - conflictLabel.length);
  const title = `${session.title || '(untitled)'}${prBadge(session)}`;
  return (
    <Text wrap="truncate-end" inverse={selected}>
      <Text color={theme.accent}>{selected ? '▶ ' : '  '}</Text>
      <Text color={theme.muted}>{fit(`[${session.size}]`, 6)}</Text>
      <Text>{fit(title, textWidth)}</Text>
      {conflict ? <Text color={theme.error}>{conflictLabel}</Text> : null}
      <Text color={theme.muted}>{fit(model, 26)}</Text>
      <Text color={theme.status(session.status)}>{fit(session.status, 12)}</Text>
      <Text color={theme.muted}>{fit(timer, 9)}</Text>
    </Text>
  );
}

export function SessionsPage({ state, theme, height }: { state: AppState; theme: Theme; height: number }) {
  const width = state.columns;
  if (state.activeProjectId === null) {
    return (
      <Box flexDirection="column" height={height} paddingX={1}>
        <Text>No project is active. Pick one on the Projects tab.</Text>
      </Box>
    );
  }
  if (state.sessions.length === 0) {
    return (
      <Box flexDirection="column" height={height} paddingX={1} paddingTop={1}>
        <Text bold>No sessions yet.</Text>
        <Text>
          Press <Text color={theme.accent}>a</Text> to start an agent session: it gets its own worktree and
          branch, and you review its diff before anything lands.
        </Text>
      </Box>
    );
  }
  const rows: Row[] = [];
  for (const section of groupSessions(state.sessions)) {
    rows.push({
      kind: 'header',
      key: `h-${section.group}`,
      label: `${GROUP_TITLES[section.group].toUpperCase()} (${section.sessions.length})`,
    });
    for (const session of section.sessions) rows.push({ kind: 'session', key: session.id, session });
  }
  const selectedIndex = rows.findIndex((r) => r.kind === 'session' && r.session.id === state.selectedSessionId);
  const bodyHeight = Math.max(1, height - 1);
  const [start, end] = visibleWindow(rows.length, bodyHeight, Math.max(0, selectedIndex));
  const conflicts = new Set(state.git?.conflicts ?? []);
  return (
    <Box flexDirection="column" height={height} width={width}>
      <Text color={theme.muted} wrap="truncate-end">
        {'  '}
        {fit('Size', 6)}
        {fit('Session', Math.max(8, width - 55))}
        {fit('Agent/model', 26)}
        {fit('Status', 12)}
        {fit('Timer', 9)}
      </Text>
      {rows.slice(start, end).map((row) =>
        row.kind === 'header' ? (
          <Text key={row.key} bold color={theme.accent} wrap="truncate-end">
            {' '}
            {row.label}
          </Text>
        ) : (
          <SessionRow
            key={row.key}
            session={row.session}
            selected={row.session.id === state.selectedSessionId}
            conflict={conflicts.has(row.session.id)}
            width={width}
            now={state.now}
            theme={theme}
          />
        ),
      )}
    </Box>
  );
}
