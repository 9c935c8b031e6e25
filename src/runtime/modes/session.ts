import type { Mode, QuestionState } from '../../app/state.js';
import { sessionById } from '../../app/state.js';
import { winnerPopup } from '../../app/popups.js';
import { bufferFrom, emptyBuffer } from '../../domain/composer.js';
import type { Key } from '../../domain/keys.js';
import { actionFor } from '../../domain/key-lookup.js';
import { nextPermissionMode } from '../../domain/permission-mode.js';
import { assertNever } from '../../domain/assert-never.js';
import type { KeyContext } from './context.js';
import { editBuffer } from './input.js';
import { sessionLayout, sessionPageHeight } from '../../ui/session-layout.js';

type SessionMode = Extract<Mode, { kind: 'session' }>;

function setMode(ctx: KeyContext, mode: SessionMode): void {
  ctx.apply({ type: 'mode', mode });
}

const PAGE = 10;

export function handleSessionKey(ctx: KeyContext, mode: SessionMode, id: string): void {
  const session = sessionById(ctx.state, mode.sessionId);
  if (!session) {
    ctx.apply({ type: 'mode', mode: { kind: 'list' } });
    return;
  }
  const action = actionFor('session', id, session);
  if (!action) return;
  // Scrolling starts from where the view really is (a scroll-back past the
  // top, as after `g`, is clamped the way the view draws it).
  const scroll = (delta: number): void => {
    const shown = sessionLayout(ctx.state, session, sessionPageHeight(ctx.state)).view.scrollBack;
    setMode(ctx, { ...mode, scrollBack: Math.max(0, shown + delta) });
  };
  switch (action) {
    case 'back':
      ctx.apply({ type: 'mode', mode: { kind: 'list' } });
      ctx.apply({ type: 'selectSession', sessionId: session.id });
      return;
    case 'reply':
      if (session.status === 'Question' && session.questions.length > 0) {
        setMode(ctx, {
          ...mode,
          question: { index: 0, selected: 0, answers: [], buffer: emptyBuffer },
        });
        return;
      }
      // The session's draft (text left in the composer earlier) comes back.
      setMode(ctx, {
        ...mode,
        composer: bufferFrom(ctx.state.drafts[session.id] ?? ''),
        scrollBack: 0,
      });
      ctx.intents.loadFiles(session.id);
      return;
    case 'diff':
      ctx.intents.openDiff(session.id);
      return;
    case 'merge':
      ctx.intents.requestMerge(session.id);
      return;
    case 'rebase':
      ctx.intents.rebase(session.id);
      return;
    case 'publish':
      ctx.intents.requestPublish(session.id);
      return;
    case 'review':
      ctx.intents.regenerateReview(session.id);
      return;
    case 'cancel':
      ctx.intents.requestCancel(session.id);
      return;
    case 'reviewComments':
      ctx.intents.reviewToComments(session.id);
      return;
    case 'stop':
      ctx.intents.stop(session.id);
      return;
    case 'copy':
      ctx.intents.copyHandle(session.id);
      return;
    case 'fork':
      ctx.intents.fork(session.id);
      return;
    case 'chooseWinner':
    case 'publishWinner': {
      // Like m, it asks first: the other variants are canceled.
      const how = action === 'chooseWinner' ? 'merge' : 'publish';
      const popup = winnerPopup(ctx.state, session.id, how);
      if (popup) ctx.apply({ type: 'popup', popup });
      else if (how === 'merge') ctx.intents.chooseWinner(session.id);
      else ctx.intents.publishWinner(session.id);
      return;
    }
    case 'continue':
      ctx.intents.continueSession(session.id);
      return;
    case 'shell':
    case 'editor':
      ctx.intents.openWorktree(session.id, action);
      return;
    case 'threads':
      if (!session.reviewRequest) {
        ctx.apply({
          type: 'notice',
          notice: {
            level: 'warn',
            text: 'Review threads come from the pull request: publish the session first (p).',
          },
        });
        return;
      }
      setMode(ctx, { ...mode, threads: { cursor: 0, selected: [] } });
      ctx.intents.refreshReviewThreads(session.id);
      return;
    case 'mode':
      ctx.intents.setPermissionMode(session.id, nextPermissionMode(session.permissionMode));
      return;
    case 'toolCalls':
      setMode(ctx, { ...mode, toolsExpanded: !(mode.toolsExpanded ?? false) });
      return;
    case 'scrollDown':
      scroll(-1);
      return;
    case 'scrollUp':
      scroll(1);
      return;
    case 'pageDown':
      scroll(-PAGE);
      return;
    case 'pageUp':
      scroll(PAGE);
      return;
    case 'top':
      setMode(ctx, { ...mode, scrollBack: Number.MAX_SAFE_INTEGER });
      return;
    case 'bottom':
      setMode(ctx, { ...mode, scrollBack: 0 });
      return;
    case 'help':
      ctx.apply({ type: 'popup', popup: { kind: 'help' } });
      return;
    default:
      assertNever(action);
  }
}

export function handleQuestionKey(
  ctx: KeyContext,
  mode: SessionMode,
  question: QuestionState,
  key: Key,
  id: string,
): void {
  const session = sessionById(ctx.state, mode.sessionId);
  const current = session?.questions[question.index];
  if (!session || !current) {
    setMode(ctx, { ...mode, question: null });
    return;
  }
  const optionCount = current.options.length;
  const freeText = question.selected >= optionCount;
  const action = actionFor('question', id);
  const update = (q: QuestionState): void => setMode(ctx, { ...mode, question: q });
  if (action === 'end') {
    setMode(ctx, { ...mode, question: null });
    ctx.intents.endQuestions(session.id);
    return;
  }
  if (action === 'answer') {
    const answer = freeText
      ? question.buffer.text.trim() || 'no answer'
      : (current.options[question.selected] ?? 'no answer');
    const answers = [...question.answers, answer];
    if (answers.length >= session.questions.length) {
      setMode(ctx, { ...mode, question: null });
      ctx.intents.answerQuestions(session.id, answers);
      return;
    }
    update({ index: question.index + 1, selected: 0, answers, buffer: emptyBuffer });
    return;
  }
  // In the free-text line, letters are typed (j/k included); arrows still move.
  if (
    freeText &&
    (key.text !== undefined ||
      key.name === 'backspace' ||
      key.name === 'left' ||
      key.name === 'right')
  ) {
    const next = editBuffer(question.buffer, key);
    if (next) update({ ...question, buffer: next });
    return;
  }
  if (action === 'down')
    update({ ...question, selected: Math.min(optionCount, question.selected + 1) });
  else if (action === 'up') update({ ...question, selected: Math.max(0, question.selected - 1) });
}
