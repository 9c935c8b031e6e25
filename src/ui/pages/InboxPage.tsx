import { Box, Text } from 'ink';
import type { AppState } from '../../app/state.js';
import { inboxLayout } from '../inbox-layout.js';
import type { Theme } from '../theme.js';

/** The inbox over whatever page is open: everything waiting on the person, every project. */
export function InboxPage({
  state,
  theme,
  height,
}: {
  state: AppState;
  theme: Theme;
  height: number;
}) {
  const layout = inboxLayout(
    state.inbox,
    state.inboxView?.cursor ?? 0,
    state.columns,
    height,
    state.now,
  );
  return (
    <Box flexDirection="column" height={height} width={state.columns}>
      <Text bold color={theme.accent} wrap="truncate-end">
        {layout.title}
      </Text>
      <Text> </Text>
      <Box flexDirection="column" flexGrow={1}>
        {layout.empty !== null ? <Text color={theme.muted}>{layout.empty}</Text> : null}
        {layout.rows.map((row) => (
          <Text key={row.key} inverse={row.selected} wrap="truncate-end">
            {row.selected ? '▶ ' : '  '}
            <Text color={theme.warn}>{row.lead}</Text>
            <Text color={theme.accent}>{row.where}</Text> {row.text}
          </Text>
        ))}
      </Box>
      {layout.action.map((line, i) => (
        <Text key={i} color={theme.muted} wrap="truncate-end">
          {' '}
          {line}
        </Text>
      ))}
    </Box>
  );
}
