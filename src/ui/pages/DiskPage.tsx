import { Box, Text } from 'ink';
import type { AppState } from '../../app/state.js';
import { diskLayout } from '../disk-layout.js';
import type { Theme } from '../theme.js';

/** The Disk view over the sessions list: each worktree's size, what it shares, what gc would reclaim. */
export function DiskPage({
  state,
  theme,
  height,
}: {
  state: AppState;
  theme: Theme;
  height: number;
}) {
  const layout = diskLayout(
    {
      sessions: state.sessions,
      disk: state.disk,
      projectId: state.activeProjectId,
      settings: state.settings,
    },
    state.diskView?.cursor ?? 0,
    state.columns,
    height,
    state.now,
  );
  return (
    <Box flexDirection="column" height={height} width={state.columns}>
      <Text bold color={theme.accent} wrap="truncate-end">
        {layout.title}
      </Text>
      <Text color={theme.muted} wrap="truncate-end">
        {layout.header}
      </Text>
      <Box flexDirection="column" flexGrow={1}>
        {layout.empty !== null ? <Text color={theme.muted}>{layout.empty}</Text> : null}
        {layout.rows.map((row) => (
          <Text key={row.key} inverse={row.selected} wrap="truncate-end">
            {row.selected ? '▶ ' : '  '}
            <Text color={row.reclaimable ? theme.warn : undefined}>{row.figures}</Text>
            {row.title}
          </Text>
        ))}
      </Box>
      {layout.detail.map((line, i) => (
        <Text key={i} color={theme.muted} wrap="truncate-end">
          {' '}
          {line}
        </Text>
      ))}
    </Box>
  );
}
