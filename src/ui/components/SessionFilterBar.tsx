import { Text } from 'ink';
import { filterSummary, type SessionFilter } from '../../domain/session-filter.js';
import { sanitizeLine } from '../../domain/sanitize.js';
import type { Theme } from '../theme.js';

/**
 * The session list's filter line, above its column titles: the search text
 * (with the cursor while the field is open), the status filter and how many
 * sessions it shows ("3 of 40").
 */
export function SessionFilterBar({
  filter,
  shown,
  total,
  theme,
}: {
  filter: SessionFilter;
  shown: number;
  total: number;
  theme: Theme;
}) {
  const input = filter.input;
  const summary = filterSummary(filter, shown, total);
  if (!input) {
    const query = filter.query === '' ? '' : `/${sanitizeLine(filter.query)}  `;
    return (
      <Text wrap="truncate-end">
        {' '}
        <Text color={theme.accent}>{query}</Text>
        <Text color={theme.muted}>{summary}</Text>
      </Text>
    );
  }
  const { text, cursor } = input;
  return (
    <Text wrap="truncate-end">
      {' '}
      <Text color={theme.accent}>/</Text>
      {sanitizeLine(text.slice(0, cursor))}
      <Text inverse>{sanitizeLine(text.slice(cursor, cursor + 1)) || ' '}</Text>
      {sanitizeLine(text.slice(cursor + 1))}
      <Text color={theme.muted}>{`  ${summary}`}</Text>
    </Text>
  );
}
