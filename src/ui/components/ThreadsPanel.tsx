import { Box, Text } from 'ink';
import type { AppState, ThreadPanel } from '../../app/state.js';
import { threadSummary } from '../../domain/review-thread.js';
import type { Theme } from '../theme.js';
import { truncate, visibleWindow } from '../text.js';
import { THREADS_PANEL_ROWS } from '../threads-panel-layout.js';

/** The session view's review-thread panel (`t`): one folded line per thread, picks marked. */
export function ThreadsPanel({
  state,
  sessionId,
  panel,
  width,
  theme,
}: {
  state: AppState;
  sessionId: string;
  panel: ThreadPanel;
  width: number;
  theme: Theme;
}) {
  const view = state.reviewThreads[sessionId];
  const threads = view?.threads ?? [];
  const cursor = Math.min(panel.cursor, Math.max(0, threads.length - 1));
  const [from, to] = visibleWindow(threads.length, THREADS_PANEL_ROWS, cursor);
  const inner = width - 4;
  return (
    <Box
      borderStyle="round"
      borderColor={theme.accent}
      flexDirection="column"
      width={width}
      paddingX={1}
    >
      <Text wrap="truncate-end">
        <Text color={theme.accent}>{`Review threads (${threads.length} unresolved)`}</Text>
        <Text color={theme.muted}>
          {panel.selected.length > 0
            ? `  ·  ${panel.selected.length} picked: Enter sends them`
            : '  ·  Enter sends all open ones, Space picks'}
        </Text>
      </Text>
      {view?.error ? (
        <Text color={theme.error} wrap="truncate-end">
          {truncate(view.error, inner)}
        </Text>
      ) : null}
      {threads.length === 0 ? (
        <Text color={theme.muted}>{view ? 'No unresolved review threads.' : 'Loading…'}</Text>
      ) : null}
      {threads.slice(from, to).map((thread, i) => {
        const index = from + i;
        const picked = panel.selected.includes(thread.id);
        const color =
          thread.state === 'answered'
            ? theme.ok
            : thread.state === 'sent'
              ? theme.muted
              : undefined;
        return (
          <Text key={thread.id} inverse={index === cursor} color={color} wrap="truncate-end">
            {`${index === cursor ? '▶' : ' '} ${picked ? '[x]' : '[ ]'} ${truncate(threadSummary(thread), inner - 6)}`}
          </Text>
        );
      })}
    </Box>
  );
}
