// The session view's layout, shared by the page that draws it and the key
// handlers that scroll it: the page height, the panel at the bottom, and the
// transcript window with the lines under it (summary, overlaps, review
// threads, best of N, queued prompts, progress), laid out exactly as drawn.
import { checkText, type GroupStatus } from '../domain/best-of.js';
import { waitingText } from '../domain/usage-limit.js';
import { admissionText } from '../domain/admission.js';
import type { AppState } from '../app/state.js';
import type { Session } from '../domain/session.js';
import { activeWorkSeconds, formatDuration, restoreCommand } from '../domain/session.js';
import { isWorking, workingText } from '../domain/session-status.js';
import { threadSummary } from '../domain/review-thread.js';
import { overlapLines, sessionLabel } from '../domain/overlap.js';
import { stopText } from '../domain/budget.js';
import { spinner, truncate, wrapPlain } from './text.js';
import type { StyledLine } from './transcript-lines.js';
import { markdownLines, windowLines } from './transcript-lines.js';
import { composerAssistHeight } from './composer-assist-layout.js';
import { threadsPanelHeight } from './threads-panel-layout.js';
import { checkLines } from './checks-layout.js';

/** The page height the session view gets (the screen minus bars and footer). */
export function sessionPageHeight(state: AppState): number {
  return Math.max(1, state.rows - 4);
}

const FOLDED_THREADS = 5;

/** The pull request's unresolved review threads, folded to one line each (the panel, `t`, shows them all). */
function threadLines(state: AppState, session: Session, width: number): StyledLine[] {
  const view = state.reviewThreads[session.id];
  if (!session.reviewRequest || !view || (view.threads.length === 0 && !view.error)) return [];
  const out: StyledLine[] = [
    {
      text: `── Review threads on PR #${session.reviewRequest.number}: ${view.threads.length} unresolved (t: pick and send) ──`,
      style: 'heading',
    },
  ];
  if (view.error) out.push({ text: truncate(view.error, width), style: 'error' });
  for (const thread of view.threads.slice(0, FOLDED_THREADS))
    out.push({
      text: truncate(`  ${threadSummary(thread)}`, width),
      style: thread.state === 'open' ? 'answer' : 'muted',
    });
  if (view.threads.length > FOLDED_THREADS)
    out.push({ text: `  … ${view.threads.length - FOLDED_THREADS} more (t)`, style: 'muted' });
  out.push({ text: '', style: 'muted' });
  return out;
}

/** The other live sessions that changed the same files (and would conflict), and a budget that holds the queue. */
function overlapTail(state: AppState, session: Session, width: number): StyledLine[] {
  const out: StyledLine[] = [];
  const overlaps = state.git?.overlaps?.[session.id] ?? [];
  if (overlaps.length > 0) {
    out.push({ text: '── Other sessions changing the same files ──', style: 'heading' });
    const lines = overlapLines(overlaps, (id) =>
      sessionLabel(
        state.sessions.find((s) => s.id === id),
        id,
      ),
    );
    overlaps.forEach((o, i) => {
      for (const t of wrapPlain(`  ${lines[i] ?? ''}`, width))
        out.push({ text: t, style: o.conflicts.length > 0 ? 'error' : 'notice' });
    });
    out.push({ text: '', style: 'muted' });
  }
  const held = state.budget?.held[session.id];
  if (held)
    for (const t of wrapPlain(
      `${stopText(held)} Queued prompts are held until the limit is raised (Settings, or the popup when you send one).`,
      width,
    ))
      out.push({ text: t, style: 'error' });
  out.push(...groupLines(state, session.id, width));
  const waiting = state.waiting[session.id];
  if (waiting && waiting.until > state.now)
    for (const t of wrapPlain(
      `The next prompt is ${waitingText(waiting, state.now)} (its usage limit); Grove sends it then.`,
      width,
    ))
      out.push({ text: t, style: 'notice' });
  const admission = state.admission[session.id];
  if (admission)
    for (const t of wrapPlain(
      `The next turn is queued, ${admissionText(admission)}; it starts when there is room, in the order turns were queued.`,
      width,
    ))
      out.push({ text: t, style: 'notice' });
  return out;
}

/** Lines the question's text takes in the question panel (it is wrapped as drawn there). */
function questionTextHeight(text: string, width: number): number {
  return text === '' ? 0 : wrapPlain(text, width - 4).length;
}

/** Rows the panel at the bottom of the session view takes: composer, question or threads (0: none). */
export function sessionPanelRows(state: AppState, session: Session): number {
  const width = state.columns;
  const mode = state.mode.kind === 'session' ? state.mode : null;
  const composer = mode?.composer ?? null;
  const question = mode?.question ?? null;
  const threads = !composer && !question ? (mode?.threads ?? null) : null;
  return composer
    ? Math.min(6, composer.text.split('\n').length) +
        3 +
        composerAssistHeight(mode?.assist, state.promptHistory, width, state.issueList)
    : question
      ? (session.questions[question.index]?.options.length ?? 0) +
        5 +
        questionTextHeight(session.questions[question.index]?.text ?? '', width)
      : threads
        ? threadsPanelHeight(state, session.id)
        : 0;
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
  const threads = !composer && !question ? (mode?.threads ?? null) : null;
  const panelHeight = sessionPanelRows(state, session);
  const progress = state.progress[session.id];
  const tail: StyledLine[] = [
    ...summaryLines(session, width - 2),
    ...overlapTail(state, session, width - 2),
    ...(threads ? [] : threadLines(state, session, width - 2)),
    ...checkLines(state.pullRequestChecks[session.id], session, width - 2),
  ];
  for (const prompt of queued)
    tail.push({ text: `≡ queued › ${truncate(prompt, width - 14)}`, style: 'muted' });
  // The questions wait behind Enter: say so, with how many, until the panel is open.
  const asked = session.questions.length;
  if (session.status === 'Question' && asked > 0 && !question && !composer)
    tail.push({
      text: `? Enter answers ${asked === 1 ? 'the question' : `${asked} questions`} of the agent (Esc there ends the round without replying).`,
      style: 'notice',
    });
  if (isWorking(session.status)) {
    tail.push({
      text: `${spinner(state.now)} ${progress ?? workingText(session.status)}  ${formatDuration(activeWorkSeconds(session, state.now))}`,
      style: 'notice',
    });
  }
  const bodyHeight = Math.max(1, height - 3 - panelHeight);
  const entries = state.transcripts[session.id];
  const view = windowLines(
    session.id,
    entries ?? [],
    tail,
    width - 2,
    bodyHeight,
    mode?.scrollBack ?? 0,
    mode?.toolsExpanded ?? false,
  );
  return { width, composer, question, threads, entries, bodyHeight, view };
}

function summaryLines(session: Session, width: number): StyledLine[] {
  const out: StyledLine[] = [];
  if (session.summary && (session.summary.turn || session.summary.session)) {
    out.push({ text: '── Summary ──', style: 'heading' });
    if (session.summary.turn)
      for (const t of wrapPlain(`This turn: ${session.summary.turn}`, width))
        out.push({ text: t, style: 'summary' });
    if (session.summary.session)
      for (const t of wrapPlain(`Session: ${session.summary.session}`, width))
        out.push({ text: t, style: 'summary' });
    out.push({ text: '', style: 'muted' });
  }
  if (session.focusedReviewStatus === 'running')
    out.push({ text: 'Focused review running…', style: 'muted' });
  if (session.focusedReviewText) {
    out.push({ text: '── Focused review ──', style: 'heading' });
    out.push(...markdownLines(session.focusedReviewText, width));
    out.push({ text: '', style: 'muted' });
  }
  if (session.mainCheckoutWarning) {
    out.push({
      text: '[Main Checkout Warning] The agent changed files in the main checkout during a turn.',
      style: 'error',
    });
  }
  if (session.guardFlag) {
    out.push({
      text: '[Guard] An agent changed git state outside its worktree; Grove put it back:',
      style: 'error',
    });
    for (const line of session.guardFlag.split('\n')) out.push({ text: line, style: 'error' });
    out.push({
      text: 'Not merged or published until you acknowledge it: the merge dialog (m) shows it and asks.',
      style: 'error',
    });
  }
  if (session.keptBranch) {
    out.push({ text: `Branch kept: ${session.keptBranch}`, style: 'notice' });
    out.push({
      text: `Restore it with: ${restoreCommand(session.keptBranch)}  (y copies it)`,
      style: 'notice',
    });
  }
  if (session.mergedCommit)
    out.push({
      text: `Merged as ${session.mergedCommit.slice(0, 12)} on ${session.baseBranch}`,
      style: 'summary',
    });
  return out;
}

/** Best of N: the session's group, its variants in ranking order with their checks and the judge's reasons. */
function groupLines(state: AppState, sessionId: string, width: number): StyledLine[] {
  const group = Object.values(state.groups).find((g) =>
    g.members.some((m) => m.sessionId === sessionId),
  );
  if (!group) return [];
  const out: StyledLine[] = [
    {
      text: `── Best of ${group.members.length}: ${groupStatusText(group.status)} ──`,
      style: 'heading',
    },
  ];
  const order =
    group.ranking.length > 0
      ? group.ranking.map((r) => r.sessionId)
      : group.members.map((m) => m.sessionId);
  for (const id of order) {
    const member = group.members.find((m) => m.sessionId === id);
    const variant = state.sessions.find((s) => s.id === id);
    const rank = group.ranking.find((r) => r.sessionId === id);
    const name = variant
      ? `${variant.title || variant.branch} (${variant.agent}/${variant.model})`
      : id.slice(0, 8);
    const mark = id === sessionId ? '▶' : ' ';
    const line = `${mark} ${rank ? `#${rank.rank}` : '  '} ${name} · check ${checkText(member?.check ?? null)}${rank?.reason ? ` · ${rank.reason}` : ''}${group.chosenSessionId === id ? ' · chosen' : ''}`;
    for (const t of wrapPlain(line, width))
      out.push({ text: t, style: rank?.rank === 1 ? 'notice' : 'muted' });
  }
  if (group.note)
    for (const t of wrapPlain(group.note, width)) out.push({ text: t, style: 'error' });
  if (group.status === 'ranked')
    out.push({
      text: 'W merges the winner and cancels the others (their branches are kept).',
      style: 'muted',
    });
  out.push({ text: '', style: 'muted' });
  return out;
}

function groupStatusText(status: GroupStatus): string {
  switch (status) {
    case 'running':
      return 'the variants are working';
    case 'checking':
      return 'running the check command';
    case 'judging':
      return 'the judge is comparing';
    case 'ranked':
      return 'ranked';
    case 'chosen':
      return 'winner chosen';
    case 'failed':
      return 'not ranked';
    default: {
      const never: never = status;
      return never;
    }
  }
}
