import { Box, Text } from 'ink';
import type { AppState, QuestionState } from '../../app/state.js';
import type { Session } from '../../domain/session.js';
import { nextPermissionMode, permissionModeLabel, type PermissionMode } from '../../domain/permission-mode.js';
import { activeWorkSeconds, formatDuration, formatTokens, restoreCommand } from '../../domain/session.js';
import { isWorking } from '../../domain/session-status.js';
import { ALLOW_UNCONFINED_KEY } from '../../domain/settings.js';
import type { TextBuffer } from '../../domain/composer.js';
import type { Theme } from '../theme.js';
import { spinner, truncate, wrapPlain } from '../text.js';
import type { LineStyle, StyledLine } from '../transcript-lines.js';
import { windowLines } from '../transcript-lines.js';

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

function Header({ session, state, theme }: { session: Session; state: AppState; theme: Theme }) {
  const timer = formatDuration(activeWorkSeconds(session, state.now));
  const tokens = `${formatTokens(session.inputTokens)} in / ${formatTokens(session.outputTokens)} out`;
  const conflict = state.git?.conflicts.includes(session.id);
  const pr = session.reviewRequest;
  return (
    <Box flexDirection="column" width={state.columns}>
      <Text wrap="truncate-end">
        {' '}
        <Text bold color={theme.status(session.status)}>
          {session.title || '(untitled)'}
        </Text>
        {conflict ? <Text color={theme.error}>{`  Merge conflict with ${session.baseBranch}`}</Text> : null}
      </Text>
      <Text wrap="truncate-end" color={theme.muted}>
        {' '}
        <Text color={theme.status(session.status)}>{session.status}</Text>
        {`  [${session.size}]  `}
        <Text color={theme.diffAdded}>+{session.addedLines}</Text>/
        <Text color={theme.diffDeleted}>-{session.deletedLines}</Text>
        {`  ${timer}  ${session.agent}/${session.model} [${session.reasoning}]  `}
        <Text color={session.permissionMode === 'auto_edit' ? theme.muted : theme.accent}>{permissionModeLabel(session.permissionMode)}</Text>
        {state.sandboxMissing === true && state.settings[ALLOW_UNCONFINED_KEY] === 'on' ? <Text color={theme.error}>{'  unconfined'}</Text> : null}
        {`  ${tokens}`}
        {pr ? `  PR #${pr.number} ${pr.state}${pr.isDraft ? ' draft' : ''} ${pr.url}` : ''}
      </Text>
    </Box>
  );
}

function summaryLines(session: Session, width: number): StyledLine[] {
  const out: StyledLine[] = [];
  if (session.summary && (session.summary.turn || session.summary.session)) {
    out.push({ text: '── Summary ──', style: 'heading' });
    if (session.summary.turn) for (const t of wrapPlain(`This turn: ${session.summary.turn}`, width)) out.push({ text: t, style: 'summary' });
    if (session.summary.session) for (const t of wrapPlain(`Session: ${session.summary.session}`, width)) out.push({ text: t, style: 'summary' });
    out.push({ text: '', style: 'muted' });
  }
  if (session.focusedReviewStatus === 'running') out.push({ text: 'Focused review running…', style: 'muted' });
  if (session.focusedReviewText) {
    out.push({ text: '── Focused review ──', style: 'heading' });
    for (const t of wrapPlain(session.focusedReviewText, width)) out.push({ text: t, style: 'answer' });
    out.push({ text: '', style: 'muted' });
  }
  if (session.mainCheckoutWarning) {
    out.push({ text: '[Main Checkout Warning] The agent changed files in the main checkout during a turn.', style: 'error' });
  }
  if (session.keptBranch) {
    out.push({ text: `Branch kept: ${session.keptBranch}`, style: 'notice' });
    out.push({ text: `Restore it with: ${restoreCommand(session.keptBranch)}  (y copies it)`, style: 'notice' });
  }
  if (session.mergedCommit) out.push({ text: `Merged as ${session.mergedCommit.slice(0, 12)} on ${session.baseBranch}`, style: 'summary' });
  return out;
}

function ComposerBox({ buffer, width, theme, title, mode }: { buffer: TextBuffer; width: number; theme: Theme; title: string; mode: PermissionMode }) {
  const before = buffer.text.slice(0, buffer.cursor);
  const at = buffer.text.slice(buffer.cursor, buffer.cursor + 1);
  const after = buffer.text.slice(buffer.cursor + 1);
  const lines = (before + '\u0000' + (at === '\n' ? ' \n' : at || ' ') + after).split('\n');
  const shown = lines.slice(-6);
  return (
    <Box borderStyle="round" borderColor={theme.accent} flexDirection="column" width={width} paddingX={1}>
      <Text wrap="truncate-end">
        <Text color={theme.accent}>{title}</Text>
        <Text color={theme.muted}>{`  ·  ${permissionModeLabel(mode)} (Shift+Tab: ${permissionModeLabel(nextPermissionMode(mode))})`}</Text>
      </Text>
      {shown.map((line, i) => {
        const mark = line.indexOf('\u0000');
        if (mark === -1) return <Text key={i}>{line || ' '}</Text>;
        const cursorChar = line.slice(mark + 1, mark + 2) || ' ';
        return (
          <Text key={i}>
            {line.slice(0, mark)}
            <Text inverse>{cursorChar}</Text>
            {line.slice(mark + 2)}
          </Text>
        );
      })}
    </Box>
  );
}

function QuestionPanel({ session, question, width, theme }: { session: Session; question: QuestionState; width: number; theme: Theme }) {
  const current = session.questions[question.index];
  if (!current) return null;
  const freeText = question.selected >= current.options.length;
  return (
    <Box borderStyle="round" borderColor={theme.status('Question')} flexDirection="column" width={width} paddingX={1}>
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
        {question.buffer.text === '' && !freeText ? <Text color={theme.muted}>Type your own answer…</Text> : question.buffer.text}
        {freeText ? '▏' : ''}
      </Text>
    </Box>
  );
}

/** The page height the session view gets (the screen minus bars and footer). */
export function sessionPageHeight(state: AppState): number {
  return Math.max(1, state.rows - 4);
}

/**
 * The transcript window of the session view, laid out exactly as it is
 * drawn. Key handlers use it to clamp scrolling to what exists.
 */
export function sessionLayout(state: AppState, session: Session, height: number) {
  const width = state.columns;
  const mode = state.mode.kind === 'session' ? state.mode : null;
  const composer = mode?.composer ?? null;
  const question = mode?.question ?? null;
  const queued = state.queued[session.id] ?? [];
  const panelHeight = composer
    ? Math.min(6, composer.text.split('\n').length) + 3
    : question
      ? (session.questions[question.index]?.options.length ?? 0) + 5 + Math.ceil((session.questions[question.index]?.text.length ?? 0) / Math.max(1, width - 4))
      : 0;
  const progress = state.progress[session.id];
  const tail: StyledLine[] = [...summaryLines(session, width - 2)];
  for (const prompt of queued) tail.push({ text: `≡ queued › ${truncate(prompt, width - 14)}`, style: 'muted' });
  if (isWorking(session.status)) {
    tail.push({
      text: `${spinner(state.now)} ${progress ?? `${session.status}…`}  ${formatDuration(activeWorkSeconds(session, state.now))}`,
      style: 'notice',
    });
  }
  const bodyHeight = Math.max(1, height - 3 - panelHeight);
  const entries = state.transcripts[session.id];
  const view = windowLines(session.id, entries ?? [], tail, width - 2, bodyHeight, mode?.scrollBack ?? 0);
  return { width, composer, question, entries, bodyHeight, view };
}

export function SessionView({ state, theme, height, session }: { state: AppState; theme: Theme; height: number; session: Session }) {
  const { width, composer, question, entries, bodyHeight, view } = sessionLayout(state, session, height);
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
        <ComposerBox
          buffer={composer}
          width={width}
          theme={theme}
          mode={session.permissionMode}
          title={isWorking(session.status) ? 'Prompt (queued until the turn ends)' : session.prompt === null ? 'Task for the agent' : 'Reply'}
        />
      ) : null}
      {question && !composer ? <QuestionPanel session={session} question={question} width={width} theme={theme} /> : null}
    </Box>
  );
}
