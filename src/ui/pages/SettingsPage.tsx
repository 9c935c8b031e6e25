import { Box, Text } from 'ink';
import type { AppState } from '../../app/state.js';
import { SETTING_ROWS, settingValue } from '../../domain/settings.js';
import type { Theme } from '../theme.js';
import { fit, truncate, visibleWindow } from '../text.js';
import { settingsLabelWidth } from '../settings-layout.js';

export function SettingsPage({
  state,
  theme,
  height,
}: {
  state: AppState;
  theme: Theme;
  height: number;
}) {
  const width = state.columns;
  const listHeight = Math.max(1, height - 3);
  const [start, end] = visibleWindow(SETTING_ROWS.length, listHeight, state.selectedSetting);
  const selected = SETTING_ROWS[state.selectedSetting];
  const labelWidth = settingsLabelWidth();
  return (
    <Box flexDirection="column" height={height} width={width}>
      <Box flexDirection="column" height={listHeight}>
        {SETTING_ROWS.slice(start, end).map((row, offset) => {
          const index = start + offset;
          const isSelected = index === state.selectedSetting;
          const value = settingValue(row, state.settings);
          return (
            <Text key={row.key} inverse={isSelected} wrap="truncate-end">
              {isSelected ? '▶ ' : '  '}
              {fit(row.label, labelWidth)}
              <Text color={theme.accent}>{value === '' ? '(none)' : value}</Text>
              <Text color={theme.muted}>{row.scope === 'global' ? '  (all projects)' : ''}</Text>
            </Text>
          );
        })}
      </Box>
      <Text> </Text>
      <Text color={theme.muted} wrap="truncate-end">
        {' '}
        {selected ? truncate(selected.description, width - 2) : ''}
      </Text>
      <Text color={theme.muted} wrap="truncate-end">
        {' '}
        {selected?.kind === 'text' ? 'Enter edits the value.' : 'Enter / ← → change the value.'}
      </Text>
    </Box>
  );
}
