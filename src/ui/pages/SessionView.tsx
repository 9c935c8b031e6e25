import { Box, Text } from 'ink';
import type { AppState, QuestionState } from '../../app/state.js';
import type { Session } from '../../domain/session.js';
import {
  nextPermissionMode,
  permissionModeLabel,
  type PermissionMode,
} from '../../domain/permission-mode.js';
import { activeWorkSeconds, formatDuration, formatTokens, shortId } from '../../domain/session.js';
import { isWorking } from '../../domain/session-status.js';
import { ALLOW_UNCONFINED_KEY } from '../../domain/settings.js';
import { knownHosts } from '../../domain/host.js';
import type { TextBuffer } from '../../domain/composer.js';
import type { Theme } from '../theme.js';
import { ComposerBox } from '../components/Composer.js';
import { ComposerAssistLines } from '../components/ComposerAssist.js';
import { ThreadsPanel } from '../components/ThreadsPanel.js';
import { wrapPlain } from '../text.js';
import type { LineStyle } from '../transcript-lines.js';
import { headerSpending } from '../../domain/budget.js';
import { sessionLayout } from '../session-layout.js';
import { sessionFiguresText } from '../resources-layout.js';

function styleColor(style: LineStyle, theme: Theme): string | undefined {
  switch (style) {
    case 'prompt':
      return theme.accent;
    case 'notice':
      return theme.warn;
    case 'error':
      return theme.error;
    case 'summary':
    case 'heading':
      return theme.ok;
    case 'muted':
    case 'output':
      return theme.muted;
    case 'answer':
      return undefined;
    default:
      return undefined;
  }
}

/** The fork links of a session: "forked from X" and "forks: Y, Z" (names: titles, else short ids). */
export function forkLinks(session: Session, sessions: readonly Session[]): string {
  const name = (s: Session): string => `"${s.title || shortId(s.id)}"`;
  const parts: string[] = [];
  if (session.parentSessionId) {
    const parent = sessions.find((s) => s.id === session.parentSessionId);
    parts.push(`forked from ${parent ? name(parent) : shortId(session.parentSessionId)}`);
  }
  const forks = sessions.filter((s) => s.parentSessionId === session.id);
  if (forks.length > 0) parts.push(`forks: ${forks.map(name).join(', ')}`);
  return parts.join('  ');
}

function Header({ session, state, theme }: { session: Session; state: AppState; theme: Theme }) {
  const timer = formatDuration(activeWorkSeconds(session, state.now));
  const conflict = state.git?.conflicts.includes(session.id);
  const overlaps = state.git?.overlaps?.[session.id] ?? [];
  const conflicting = overlaps.filter((o) => o.conflicts.length > 0).length;
  const budget = state.budget?.sessions[session.id];
  // The spending (with Grove's own part) once known and worth saying, else the raw in/out figure.
  const tokens =
    (budget ? headerSpending(budget.spent, budget.tokens, budget.usd).trim() : '') ||
    `${formatTokens(session.inputTokens)} in / ${formatTokens(session.outputTokens)} out`;
  const pr = session.reviewRequest;
  const links = forkLinks(session, state.sessions);
  const usage = sessionFiguresText(state.resources?.sessions[session.id], state.disk[session.id]);
  return (
    <Box flexDirection="column" width={state.columns}>
      <Text wrap="truncate-end">
        {' '}
        <Text bold color={theme.status(session.status)}>
          {session.title || '(untitled)'}
        </Text>
        {links ? <Text color={theme.muted}>{`  ${links}`}</Text> : null}
        {session.issue ? (
          <Text color={theme.accent}>
            {`  Issue #${session.issue.number} ${session.issue.title} ${session.issue.url}`}
          </Text>
        ) : null}
        {conflict ? (
          <Text color={theme.error}>{`  Merge conflict with ${session.baseBranch}`}</Text>
        ) : null}
        {overlaps.length > 0 ? (
          <Text color={conflicting > 0 ? theme.error : theme.warn}>
            {conflicting > 0
              ? `  Conflicts with ${conflicting} other session${conflicting === 1 ? '' : 's'}`
              : `  Overlaps ${overlaps.length} other session${overlaps.length === 1 ? '' : 's'}`}
          </Text>
        ) : null}
      </Text>
      <Text wrap="truncate-end" color={theme.muted}>
        {' '}
        <Text color={theme.status(session.status)}>{session.status}</Text>
        {`  [${session.size}]  `}
        <Text color={theme.diffAdded}>+{session.addedLines}</Text>/
        <Text color={theme.diffDeleted}>-{session.deletedLines}</Text>
        {`  ${timer}  ${session.agent}/${session.model} [${session.reasoning}]${session.host ? ` on ${session.host}` : ''}  `}
        {usage ? `${usage}  ` : ''}
        <Text color={session.permissionMode === 'auto_edit' ? theme.muted : theme.accent}>
          {permissionModeLabel(session.permissionMode)}
        </Text>
        {state.sandboxMissing === true && state.settings[ALLOW_UNCONFINED_KEY] === 'on' ? (
          <Text color={theme.error}>{'  unconfined'}</Text>
        ) : null}
        {/* The pull request before the spending: on a narrow line the spending's detail is what goes. */}
        {pr ? `  PR #${pr.number} ${pr.state}${pr.isDraft ? ' draft' : ''} ${pr.url}` : ''}
        {`  ${tokens}`}
      </Text>
    </Box>
  );
}

function SessionComposer({
  buffer,
  width,
  theme,
  title,
  mode,
}: {
  buffer: TextBuffer;
  width: number;
  theme: Theme;
  title: string;
  mode: PermissionMode;
}) {
  return (
    <ComposerBox
      buffer={buffer}
      width={width}
      theme={theme}
      title={title}
      subtitle={`${permissionModeLabel(mode)} (Shift+Tab: ${permissionModeLabel(nextPermissionMode(mode))})`}
    />
  );
}

function QuestionPanel({
  session,
  question,
  width,
  theme,
}: {
  session: Session;
  question: QuestionState;
  width: number;
  theme: Theme;
}) {
  const current = session.questions[question.index];
  if (!current) return null;
  const freeText = question.selected >= current.options.length;
  return (
    <Box
      borderStyle="round"
      borderColor={theme.status('Question')}
      flexDirection="column"
      width={width}
      paddingX={1}
    >
      <Text bold color={theme.status('Question')}>
        Question {question.index + 1} of {session.questions.length}
      </Text>
      {wrapPlain(current.text, width - 4).map((line, i) => (
        <Text key={i}>{line}</Text>
      ))}
      {current.options.map((option, i) => (
        <Text key={`o${i}`} inverse={question.selected === i} wrap="truncate-end">
          {question.selected === i ? '▶ ' : '  '}
          {option}
        </Text>
      ))}
      <Text inverse={freeText} wrap="truncate-end">
        {freeText ? '▶ ' : '  '}
        {question.buffer.text === '' && !freeText ? (
          <Text color={theme.muted}>Type your own answer…</Text>
        ) : (
          question.buffer.text
        )}
        {freeText ? '▏' : ''}
      </Text>
    </Box>
  );
}

export function SessionView({
  state,
  theme,
  height,
  session,
}: {
  state: AppState;
  theme: Theme;
  height: number;
  session: Session;
}) {
  const { width, composer, question, threads, entries, bodyHeight, view } = sessionLayout(
    state,
    session,
    height,
  );
  return (
    <Box flexDirection="column" height={height} width={width}>
      <Header session={session} state={state} theme={theme} />
      <Box flexDirection="column" height={bodyHeight + 1} paddingX={1} paddingTop={1}>
        {entries === undefined ? <Text color={theme.muted}>Loading transcript…</Text> : null}
        {view.lines.map((line, i) => (
          <Text key={i} color={styleColor(line.style, theme)} wrap="truncate-end">
            {line.text}
          </Text>
        ))}
      </Box>
      {composer ? (
        <SessionComposer
          buffer={composer}
          width={width}
          theme={theme}
          mode={session.permissionMode}
          title={composerTitle(state, session)}
        />
      ) : null}
      {composer && state.mode.kind === 'session' ? (
        <ComposerAssistLines
          assist={state.mode.assist}
          history={state.promptHistory}
          issues={state.issueList}
          width={width}
          theme={theme}
        />
      ) : null}
      {question && !composer ? (
        <QuestionPanel session={session} question={question} width={width} theme={theme} />
      ) : null}
      {threads ? (
        <ThreadsPanel
          state={state}
          sessionId={session.id}
          panel={threads}
          width={width}
          theme={theme}
        />
      ) : null}
    </Box>
  );
}

/** The composer's title: a new session's says where it runs once there are hosts to choose from (`/host`). */
function composerTitle(state: AppState, session: Session): string {
  if (isWorking(session.status)) return 'Prompt (queued until the turn ends)';
  if (session.prompt !== null) return 'Reply';
  const n = bestOfComposer(state);
  const where = session.placeAuto
    ? ' · on auto: this machine or a host with room (/host)'
    : session.host || knownHosts(state.settings).length > 0
      ? ` · on ${session.host ?? 'this machine'} (/host)`
      : '';
  return `Task for the agent${n > 1 ? ` · best of ${n}` : ''}${where}`;
}

/** Best of N set in the composer (`alt+n`), 1 when not set. */
function bestOfComposer(state: AppState): number {
  return state.mode.kind === 'session' ? (state.mode.bestOf ?? 1) : 1;
}
