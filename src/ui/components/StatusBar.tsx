import { Box, Text } from 'ink';
import type { AppState } from '../../app/state.js';
import { activeProject } from '../../app/state.js';
import { isWorking } from '../../domain/session-status.js';
import { spendingText } from '../../domain/budget.js';
import type { Theme } from '../theme.js';
import { spinner } from '../text.js';
import { inboxBadge } from '../inbox-layout.js';
import { machineText } from '../resources-layout.js';

export function StatusBar({ state, theme }: { state: AppState; theme: Theme }) {
  const working = state.sessions.filter((s) => isWorking(s.status)).length;
  const project = activeProject(state);
  const budget = state.budget?.project;
  const held = Object.keys(state.budget?.held ?? {}).length;
  // The project's spending, against its budget when one is set.
  const usage =
    budget && (budget.tokens !== null || budget.usd !== null || budget.spent.tokens > 0)
      ? `  ${spendingText(budget.spent, budget.tokens, budget.usd)}`
      : '';
  return (
    <Box width={state.columns} height={1}>
      <Box flexGrow={1}>
        <Text bold color={theme.accent} wrap="truncate-end">
          {' '}
          Grove {state.version}
          <Text color={theme.muted}>{project ? `  ${project.displayName}` : ''}</Text>
          <Text color={theme.muted}>{usage}</Text>
          {held > 0 ? <Text color={theme.warn}>{`  ${held} held at a budget limit`}</Text> : null}
          {state.inbox.length > 0 ? (
            <Text color={theme.warn}>{inboxBadge(state.inbox.length)}</Text>
          ) : null}
        </Text>
      </Box>
      {state.resources ? (
        <Box flexShrink={0}>
          <Text
            color={theme.muted}
          >{` ${machineText(state.resources.machine, state.columns)}  `}</Text>
        </Box>
      ) : null}
      {working > 0 ? (
        <Text color={theme.status('InProgress')}>
          {spinner(state.now)} {working} working{' '}
        </Text>
      ) : null}
    </Box>
  );
}
