import type { ConfirmIntent, Popup } from '../../app/state.js';
import { insertText } from '../../domain/composer.js';
import type { Key } from '../../domain/keys.js';
import { actionFor } from '../../domain/key-lookup.js';
import { assertNever } from '../../domain/assert-never.js';
import type { KeyContext } from './context.js';
import { editBuffer } from './input.js';
import { helpLinesFor, helpWindow } from '../../ui/popup-layout.js';

function runIntent(ctx: KeyContext, intent: ConfirmIntent): void {
  switch (intent.kind) {
    case 'quit':
      ctx.intents.quit();
      return;
    case 'cancelSession':
      ctx.intents.confirmCancel(intent.sessionId);
      return;
    case 'merge':
      if (intent.acknowledge) ctx.intents.confirmMerge(intent.sessionId, true);
      else ctx.intents.confirmMerge(intent.sessionId);
      return;
    case 'regenerateReview':
      ctx.intents.forceReview(intent.sessionId);
      return;
    case 'syncMain':
      ctx.intents.confirmSync(intent.branch, intent.head);
      return;
    case 'closeComposer': {
      // The composer closes; its text stays as the session's draft.
      const mode = ctx.state.mode;
      if (mode.kind === 'session' && mode.sessionId === intent.sessionId) {
        const { assist: _assist, ...rest } = mode;
        ctx.apply({ type: 'mode', mode: { ...rest, composer: null } });
      }
      ctx.intents.saveDraft(intent.sessionId, intent.text);
      return;
    }
    case 'chooseWinner':
      if (intent.how === 'merge') ctx.intents.chooseWinner(intent.sessionId);
      else ctx.intents.publishWinner(intent.sessionId);
      return;
    case 'resolveThreads':
      ctx.intents.resolveReviewThreads(intent.sessionId, intent.threadIds);
      return;
    case 'raiseBudget':
      ctx.intents.raiseBudget(intent.sessionId, intent.scope, intent.measure, intent.limit);
      return;
    default:
      assertNever(intent);
  }
}

export function handlePopupKey(ctx: KeyContext, popup: Popup, key: Key, id: string): void {
  const close = (): void => ctx.apply({ type: 'popup', popup: null });
  switch (popup.kind) {
    case 'help': {
      const action = actionFor('help', id);
      if (action === 'close') return close();
      if (!action) return;
      // The scroll is kept within the rows, so moving back up starts at once.
      const { start, visible, total } = helpWindow(ctx.state, helpLinesFor(ctx.state).lines.length);
      const step =
        action === 'down' ? 1 : action === 'up' ? -1 : action === 'pageDown' ? visible : -visible;
      const scroll = Math.max(0, Math.min(start + step, total - visible));
      if (scroll !== start) ctx.apply({ type: 'popup', popup: { kind: 'help', scroll } });
      return;
    }
    case 'info':
      if (id === 'enter' || id === 'escape' || id === 'q') close();
      return;
    case 'confirm': {
      const action = actionFor('confirm', id);
      if (action === 'yes' || (action === 'choose' && popup.yes)) {
        close();
        runIntent(ctx, popup.intent);
      } else if (action === 'no' || action === 'choose') {
        close();
      } else if (action === 'toggle') {
        ctx.apply({ type: 'popup', popup: { ...popup, yes: !popup.yes } });
      }
      return;
    }
    case 'input': {
      if (id === 'escape') {
        close();
        return;
      }
      if (id === 'enter') {
        close();
        const value = popup.buffer.text.trim();
        const purpose = popup.purpose;
        switch (purpose.kind) {
          case 'setting':
            ctx.intents.setSetting(purpose.key, value);
            return;
          case 'publishBranch':
            ctx.intents.publish(purpose.sessionId, value);
            return;
          default:
            assertNever(purpose);
        }
      }
      const next = editBuffer(popup.buffer, key);
      // Single-line input: newline edits are ignored.
      if (next && !next.text.includes('\n'))
        ctx.apply({ type: 'popup', popup: { ...popup, buffer: next } });
      return;
    }
    default:
      assertNever(popup);
  }
}

export function handlePopupPaste(ctx: KeyContext, popup: Popup, text: string): void {
  if (popup.kind !== 'input') return;
  const firstLine = text.split('\n')[0] ?? '';
  ctx.apply({ type: 'popup', popup: { ...popup, buffer: insertText(popup.buffer, firstLine) } });
}
