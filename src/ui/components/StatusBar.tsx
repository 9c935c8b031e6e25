import { Box, Text } from 'ink';
import type { AppState } from '../../app/state.js';
import { activeProject } from '../../app/state.js';
import { isWorking } from '../../domain/session-status.js';
import type { Theme } from '../theme.js';
import { spinner } from '../text.js';

export function StatusBar({ state, theme }: { state: AppState; theme: Theme }) {
  const working = state.sessions.filter((s) => isWorking(s.status)).length;
  const project = activeProject(state);
  return (
    <Box width={state.columns} height={1}>
      <Box flexGrow={1}>
        <Text bold color={theme.accent} wrap="truncate-end">
          {' '}Grove {state.version}
          <Text color={theme.muted}>{project ? `  ${project.displayName}` : ''}</Text>
        </Text>
      </Box>
      {working > 0 ? (
        <Text color={theme.status('InProgress')}>
          {spinner(state.now)} {working} working{' '}
        </Text>
      ) : null}
    </Box>
  );
}
