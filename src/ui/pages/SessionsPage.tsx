import type { SessionGroup } from '../../domain/best-of.js';
import { isReconnectingLine } from '../../domain/reconnect.js';
import { waitingText, type UsageLimit } from '../../domain/usage-limit.js';
import { admissionText, type AdmissionWait } from '../../domain/admission.js';
import { Box, Text } from 'ink';
import { memo } from 'react';
import { archiveNotShown, sessionsStored, type AppState } from '../../app/state.js';
import { GROUP_TITLES, groupSessions } from '../../domain/session-order.js';
import type { Session } from '../../domain/session.js';
import { activeWorkSeconds, formatDuration, formatTokens } from '../../domain/session.js';
import type { SessionOverlap } from '../../domain/overlap.js';
import type { Theme } from '../theme.js';
import { assertNever } from '../../domain/assert-never.js';
import type { TreeResources } from '../../domain/resources.js';
import { compactBytes, resourceCells } from '../resources-layout.js';
import { cellWidth, fit, paint, visibleWindow } from '../text.js';
import { filterSessions, isFiltering, matchesStatus } from '../../domain/session-filter.js';
import { SessionFilterBar } from '../components/SessionFilterBar.js';
import {
  COLUMNS_AFTER_TITLE,
  COLUMNS_BEFORE_TITLE,
  columnCell,
  columnWidth,
  type ColumnId,
  headerLine,
  listColumns,
  archiveMoreLine,
  rowBadges,
  titleLayout,
  type BadgeTone,
} from '../list-row.js';

type Row =
  | { kind: 'header'; key: string; label: string }
  | { kind: 'session'; key: string; session: Session }
  /** The archive's sessions not read yet (they come as the selection nears them). */
  | { kind: 'more'; key: string; label: string };

function prBadge(session: Session): string {
  const pr = session.reviewRequest;
  if (!pr) return session.publishedBranch ? ' ↑' : '';
  const mark = pr.state === 'merged' ? '✓' : pr.state === 'closed' ? '✗' : '⊙';
  return ` ${mark} #${pr.number}`;
}

export { overlapBadge, questionBadge } from '../list-row.js';

// A row draws again only when its own props change: agents streaming into
// one session, and the tick, leave the other rows of a long list alone
// (inactive rows get now = 0, since their duration does not move).
const SessionRow = memo(function SessionRow({
  session,
  selected,
  conflict,
  overlaps,
  held,
  waiting = null,
  variant = null,
  needsYou = false,
  marked = false,
  reconnecting = false,
  width,
  resourceColumns,
  diskColumn,
  activeSeconds,
  resources,
  diskBytes,
  theme,
}: {
  session: Session;
  selected: boolean;
  conflict: boolean;
  overlaps: readonly SessionOverlap[] | undefined;
  /** Its prompts wait at a budget limit. */
  held: boolean;
  /** "waiting for claude until 15:00": its next prompt waits for the agent's usage limit to lift. */
  waiting?: string | null;
  /** Best of N: "best of 3 #1" (its rank once judged). */
  variant?: string | null;
  /** Needs the person (questions, ready for review, a failed merge, its PR merged or closed); cleared on open. */
  needsYou?: boolean;
  /** Its host cannot be reached right now: Grove is reconnecting. */
  reconnecting?: boolean;
  /** Marked (Space) for R to start. */
  marked?: boolean;
  width: number;
  /**
   * Its timer, in whole seconds (not the clock: the clock moves ten times a
   * second, and a row drawn again for each would redraw twenty live rows at
   * every tick of the spinner).
   */
  activeSeconds: number;
  /** Whether the list shows the CPU and memory columns (some agent runs). */
  resourceColumns: boolean;
  /** Whether the list shows the disk column (the Disk view has measured some worktree). */
  diskColumn: boolean;
  /** What its agent's process tree uses (absent while no agent runs). */
  resources?: TreeResources | undefined;
  /** Its worktree's size as the Disk view last measured it (absent: not measured). */
  diskBytes?: number | undefined;
  theme: Theme;
}) {
  const { shown, titleWidth } = listColumns(width, resourceColumns, diskColumn);
  const badges = rowBadges(session, {
    conflict,
    overlaps,
    held,
    waiting,
    variant,
    needsYou,
    marked,
    reconnecting,
  });
  const layout = titleLayout(badges, titleWidth);
  const tones: Record<BadgeTone, string | undefined> = {
    muted: theme.muted,
    accent: theme.accent,
    warn: theme.warn,
    error: theme.error,
  };
  const title = `${session.title || '(untitled)'}${prBadge(session)}`;
  const lines = `+${session.addedLines}/-${session.deletedLines}`;
  const usage = resourceCells(resources);
  const cell = (id: ColumnId): string => {
    if (!shown.has(id)) return '';
    const width = columnWidth(id);
    switch (id) {
      case 'size':
        return paint(fit(`[${session.size}]`, width), theme.muted);
      case 'lines':
        return (
          paint(`+${session.addedLines}`, theme.diffAdded) +
          paint('/', theme.muted) +
          paint(`-${session.deletedLines}`, theme.diffDeleted) +
          ' '.repeat(Math.max(1, width - cellWidth(lines)))
        );
      case 'tokens':
        return paint(
          columnCell(formatTokens(session.inputTokens + session.outputTokens), width),
          theme.muted,
        );
      case 'model':
        return paint(
          columnCell(`${session.agent}/${session.model} [${session.reasoning}]`, width),
          theme.muted,
        );
      case 'status':
        return paint(columnCell(session.status, width), theme.status(session.status));
      case 'timer':
        return paint(columnCell(formatDuration(activeSeconds), width), theme.muted);
      case 'cpu':
        return paint(columnCell(usage.cpu, width), theme.muted);
      case 'memory':
        return paint(columnCell(usage.memory, width), theme.muted);
      case 'disk':
        return paint(
          columnCell(diskBytes === undefined ? '' : compactBytes(diskBytes), width),
          theme.muted,
        );
      default:
        return assertNever(id);
    }
  };
  // One Text for the whole row (a Text per piece made a dozen components a row).
  const row =
    paint(selected ? '▶ ' : '  ', theme.accent) +
    COLUMNS_BEFORE_TITLE.map(cell).join('') +
    paint(fit(title, layout.textWidth), undefined) +
    badges
      .map((badge, i) => paint(layout.badges[i] ?? '', tones[badge.tone], badge.bold))
      .join('') +
    // A cell of space between the title and the next column, always.
    ' ' +
    COLUMNS_AFTER_TITLE.map(cell).join('');
  return (
    <Text wrap="truncate-end" inverse={selected}>
      {row}
    </Text>
  );
});

export function SessionsPage({
  state,
  theme,
  height,
}: {
  state: AppState;
  theme: Theme;
  height: number;
}) {
  const width = state.columns;
  if (state.activeProjectId === null) {
    return (
      <Box flexDirection="column" height={height} paddingX={1}>
        <Text bold>No project is active.</Text>
        <Text>
          Grove was not started inside a git repository, so there is no project here to run sessions
          in.
        </Text>
        <Text>
          To add one, start Grove in a repository (
          <Text color={theme.accent}>cd ~/code/app && grove</Text>) or name it with -C (
          <Text color={theme.accent}>grove -C ~/code/app</Text>). Projects used before are on the
          Projects tab: <Text color={theme.accent}>Tab</Text>, then{' '}
          <Text color={theme.accent}>Enter</Text> to switch.
        </Text>
      </Box>
    );
  }
  if (state.sessions.length === 0 && (state.archive.total ?? 0) === 0) {
    return (
      <Box flexDirection="column" height={height} paddingX={1} paddingTop={1}>
        <Text bold>No sessions yet.</Text>
        <Text>
          Press <Text color={theme.accent}>a</Text> to start an agent session: it gets its own
          worktree and branch, and you review its diff before anything lands.
        </Text>
      </Box>
    );
  }
  const filter = state.sessionFilter;
  const filtered = filter.input !== null || isFiltering(filter);
  const shown = filterSessions(state.sessions, filter, state.attention);
  const rows: Row[] = [];
  // The archive's sessions not read yet count in its header and make one last row.
  const sections = groupSessions(shown, Object.values(state.groups));
  const archived = sections.find((s) => s.group === 'archive')?.sessions ?? [];
  const unread = matchesStatus({ status: 'Done' }, filter.status, false)
    ? archiveNotShown(state, archived.length)
    : 0;
  if (unread > 0 && archived.length === 0) sections.push({ group: 'archive', sessions: [] });
  for (const section of sections) {
    const more = section.group === 'archive' ? unread : 0;
    rows.push({
      kind: 'header',
      key: `h-${section.group}`,
      label: `${GROUP_TITLES[section.group].toUpperCase()} (${section.sessions.length + more})`,
    });
    for (const session of section.sessions)
      rows.push({ kind: 'session', key: session.id, session });
    if (more > 0) rows.push({ kind: 'more', key: 'more', label: archiveMoreLine(more) });
  }
  const selectedIndex = rows.findIndex(
    (r) => r.kind === 'session' && r.session.id === state.selectedSessionId,
  );
  const bodyHeight = Math.max(1, height - (filtered ? 2 : 1));
  const [start, end] = visibleWindow(rows.length, bodyHeight, Math.max(0, selectedIndex));
  const conflicts = new Set(state.git?.conflicts ?? []);
  const resourceColumns = Object.keys(state.resources?.sessions ?? {}).length > 0;
  const diskColumn = Object.keys(state.disk).length > 0;
  return (
    <Box flexDirection="column" height={height} width={width}>
      {filtered ? (
        <SessionFilterBar
          filter={filter}
          shown={shown.length + unread}
          total={sessionsStored(state)}
          theme={theme}
        />
      ) : null}
      <Text color={theme.muted} wrap="truncate-end">
        {headerLine(width, resourceColumns, diskColumn)}
      </Text>
      {shown.length === 0 && unread === 0 ? (
        <Text color={theme.muted} wrap="truncate-end">
          {'  No session matches the filter (Esc clears it).'}
        </Text>
      ) : null}
      {rows.slice(start, end).map((row) =>
        row.kind === 'header' ? (
          <Text key={row.key} bold color={theme.accent} wrap="truncate-end">
            {' '}
            {row.label}
          </Text>
        ) : row.kind === 'more' ? (
          <Text key={row.key} color={theme.muted} wrap="truncate-end">
            {row.label}
          </Text>
        ) : (
          <SessionRow
            key={row.key}
            session={row.session}
            selected={row.session.id === state.selectedSessionId}
            conflict={conflicts.has(row.session.id)}
            overlaps={state.git?.overlaps?.[row.session.id]}
            held={state.budget?.held[row.session.id] !== undefined}
            waiting={
              waitingFor(state.waiting[row.session.id], state.now) ??
              admissionFor(state.admission[row.session.id])
            }
            variant={variantBadge(state.groups, row.session.id)}
            needsYou={state.attention[row.session.id] !== undefined}
            marked={state.marked.includes(row.session.id)}
            reconnecting={isReconnectingLine(state.progress[row.session.id])}
            width={width}
            resourceColumns={resourceColumns}
            diskColumn={diskColumn}
            activeSeconds={activeWorkSeconds(row.session, state.now)}
            resources={state.resources?.sessions[row.session.id]}
            diskBytes={state.disk[row.session.id]?.allocated}
            theme={theme}
          />
        ),
      )}
    </Box>
  );
}

function waitingFor(limit: UsageLimit | undefined, now: number): string | null {
  return limit && limit.until > now ? waitingText(limit, now) : null;
}

/** "waiting for memory: 1.2 GB free, needs 2.0 GB": its next turn waits at the admission gate. */
function admissionFor(wait: AdmissionWait | undefined): string | null {
  return wait ? admissionText(wait) : null;
}

/** "best of 2 #1" for a ranked variant, "best of 2" before the ranking. */
function variantBadge(
  groups: Readonly<Record<string, SessionGroup>>,
  sessionId: string,
): string | null {
  const group = Object.values(groups).find((g) => g.members.some((m) => m.sessionId === sessionId));
  if (!group) return null;
  const rank = group.ranking.find((r) => r.sessionId === sessionId);
  return `best of ${group.members.length}${rank ? ` #${rank.rank}` : group.status === 'checking' || group.status === 'judging' ? ` ${group.status}` : ''}${group.chosenSessionId === sessionId ? ' chosen' : ''}`;
}
