import { Box, Text } from 'ink';
import type { AppState, Tab } from '../../app/state.js';
import { TABS } from '../../app/state.js';
import type { Theme } from '../theme.js';

const TITLES: Record<Tab, string> = {
  projects: 'Projects',
  sessions: 'Sessions',
  settings: 'Settings',
};

export function TabBar({ state, theme }: { state: AppState; theme: Theme }) {
  return (
    <Box width={state.columns} height={1}>
      <Text wrap="truncate-end">
        {TABS.map((tab, index) => (
          <Text key={tab}>
            {index > 0 ? <Text color={theme.muted}> │ </Text> : ' '}
            {tab === state.tab ? (
              <Text bold inverse color={theme.accent}>
                {` ${TITLES[tab]} `}
              </Text>
            ) : (
              <Text color={theme.muted}>{` ${TITLES[tab]} `}</Text>
            )}
          </Text>
        ))}
      </Text>
    </Box>
  );
}
