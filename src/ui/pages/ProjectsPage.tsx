import { Box, Text } from 'ink';
import type { AppState } from '../../app/state.js';
import { PROVIDERS, agentName, isAcpAgentId } from '../../domain/providers.js';
import type { Theme } from '../theme.js';
import { fit, visibleWindow } from '../text.js';

export function ProjectsPage({
  state,
  theme,
  height,
}: {
  state: AppState;
  theme: Theme;
  height: number;
}) {
  const width = state.columns;
  // The ACP agents of agents.json follow the built-in ones once detection has found them.
  const acpAgents = (state.agents ?? []).filter((a) => isAcpAgentId(a.id));
  const agentLines = PROVIDERS.length + acpAgents.length + 2;
  const listHeight = Math.max(1, height - agentLines - 1);
  const selected = Math.max(
    0,
    state.projects.findIndex((p) => p.id === state.selectedProjectId),
  );
  const [start, end] = visibleWindow(state.projects.length, listHeight, selected);
  const nameWidth = Math.min(28, Math.max(10, Math.floor(width / 4)));
  return (
    <Box flexDirection="column" height={height} width={width}>
      <Text color={theme.muted} wrap="truncate-end">
        {'    '}
        {fit('Project', nameWidth)} Path
      </Text>
      <Box flexDirection="column" height={listHeight}>
        {state.projects.length === 0 ? (
          <Text> No projects yet. Start grove inside a git repository to add one.</Text>
        ) : (
          state.projects.slice(start, end).map((project) => {
            const isSelected = project.id === state.selectedProjectId;
            const isActive = project.id === state.activeProjectId;
            return (
              <Text key={project.id} inverse={isSelected} wrap="truncate-end">
                {isSelected ? '▶ ' : '  '}
                <Text color={theme.accent}>{isActive ? '* ' : '  '}</Text>
                {fit(project.displayName, nameWidth)}{' '}
                <Text color={theme.muted}>{project.path}</Text>
              </Text>
            );
          })
        )}
      </Box>
      <Text bold color={theme.accent}>
        {' '}
        Agent CLIs
      </Text>
      {PROVIDERS.map((provider) => {
        const found = state.agents?.find((a) => a.id === provider.id);
        const status =
          state.agents === null
            ? 'checking…'
            : found?.path
              ? `${found.version ?? (found.unasked ? 'asking its version…' : 'unknown version')}  ${found.path}`
              : `not found on PATH (${provider.binary})`;
        return (
          <Text key={provider.id} wrap="truncate-end">
            {'   '}
            {fit(provider.name, 14)}
            <Text color={found?.path ? theme.ok : theme.muted}>{status}</Text>
          </Text>
        );
      })}
      {acpAgents.map((agent) => (
        <Text key={agent.id} wrap="truncate-end">
          {'   '}
          {fit(agentName(agent.id), 14)}
          <Text color={agent.path ? theme.ok : theme.muted}>
            {agent.path
              ? `ACP agent  ${agent.path}`
              : `ACP agent, not found on PATH (${agent.binary})`}
          </Text>
        </Text>
      ))}
    </Box>
  );
}
