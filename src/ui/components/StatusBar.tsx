import { Box, Text } from 'ink';
import type { AppState } from '../../app/state.js';
import { activeProject } from '../../app/state.js';
import { isWorking } from '../../domain/session-status.js';
import { spendingText } from '../../domain/budget.js';
import type { Theme } from '../theme.js';
import { cellWidth, spinner } from '../text.js';
import { inboxBadge } from '../inbox-layout.js';
import { headerHostsText, headerMachineText } from '../resources-layout.js';

/** The header's mark while the database is damaged; `grove doctor` says what and what to do. */
const DATABASE_DAMAGED_BADGE = '  database damaged: quit and run grove doctor';

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
  const heldText = held > 0 ? `  ${held} held at a budget limit` : '';
  const inbox = inboxBadge(state.inbox.length);
  // Stays for the rest of the run: the notice that came with it goes after a few seconds.
  const damaged = state.databaseDamage !== null ? DATABASE_DAMAGED_BADGE : '';
  const left = ` Grove ${state.version}${project ? `  ${project.displayName}` : ''}${usage}${heldText}${inbox}${damaged}`;
  const right = working > 0 ? `${spinner(state.now)} ${working} working ` : '';
  // The machine's figures take what the left and right parts leave.
  const machine = state.resources
    ? headerMachineText(
        state.resources.machine,
        state.columns,
        state.columns - cellWidth(left) - cellWidth(right),
      )
    : '';
  // Each host's load, free memory and turns running/most: in what the machine's figures leave.
  const hosts = headerHostsText(
    state.hosts,
    state.columns,
    state.columns - cellWidth(left) - cellWidth(right) - cellWidth(machine),
  );
  return (
    <Box width={state.columns} height={1}>
      <Box flexGrow={1}>
        <Text bold color={theme.accent} wrap="truncate-end">
          {' '}
          Grove {state.version}
          <Text color={theme.muted}>{project ? `  ${project.displayName}` : ''}</Text>
          <Text color={theme.muted}>{usage}</Text>
          {heldText !== '' ? <Text color={theme.warn}>{heldText}</Text> : null}
          {inbox !== '' ? <Text color={theme.warn}>{inbox}</Text> : null}
          {damaged !== '' ? <Text color={theme.error}>{damaged}</Text> : null}
        </Text>
      </Box>
      {hosts !== '' ? (
        <Box flexShrink={0}>
          <Text color={theme.muted}>{hosts}</Text>
        </Box>
      ) : null}
      {machine !== '' ? (
        <Box flexShrink={0}>
          <Text color={theme.muted}>{machine}</Text>
        </Box>
      ) : null}
      {right !== '' ? <Text color={theme.status('InProgress')}>{right}</Text> : null}
    </Box>
  );
}
