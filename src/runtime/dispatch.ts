import type { TerminalEvent } from '../domain/keys.js';
import { keyId } from '../domain/keys.js';
import { assertNever } from '../domain/assert-never.js';
import type { KeyContext } from './modes/context.js';
import { handleDiffKey, handleDiffPaste } from './modes/diff.js';
import { handleProjectsKey, handleSessionsKey, handleSettingsKey } from './modes/list.js';
import { handlePopupKey, handlePopupPaste } from './modes/popup.js';
import { handleQuestionKey, handleSessionKey } from './modes/session.js';
import { handleComposerKey, handleComposerPaste } from './modes/composer.js';
import { handleThreadsKey } from './modes/threads.js';
import { handleDiskKey } from './modes/disk.js';
import { handleInboxKey, isInboxKey, toggleInbox } from './modes/inbox.js';
import { handleSessionSearchKey, handleSessionSearchPaste } from './modes/session-search.js';
import { insertText } from '../domain/composer.js';
import { sanitizeText } from '../domain/sanitize.js';

/** Routes one terminal event to the handler of the current mode. */
export function dispatchTerminalEvent(ctx: KeyContext, event: TerminalEvent): void {
  const state = ctx.state;
  if (event.type === 'focus') return ctx.intents.setWatched(event.focused);
  if (event.type === 'paste') {
    // The inbox page and the Disk view take no text.
    if ((state.inboxView || state.diskView) && !state.popup) return;
    // Pasted text is drawn in the composer: escape sequences in it become placeholders.
    const text = sanitizeText(event.text);
    if (state.popup) return handlePopupPaste(ctx, state.popup, text);
    if (state.mode.kind === 'session' && state.mode.composer) {
      return handleComposerPaste(ctx, state.mode, state.mode.composer, text);
    }
    if (state.mode.kind === 'diff') return handleDiffPaste(ctx, state.mode, text);
    if (state.mode.kind === 'list' && state.sessionFilter.input)
      return handleSessionSearchPaste(ctx, text);
    if (state.mode.kind === 'session' && state.mode.question) {
      const q = state.mode.question;
      ctx.apply({
        type: 'mode',
        mode: { ...state.mode, question: { ...q, buffer: insertText(q.buffer, text) } },
      });
    }
    return;
  }
  const key = event.key;
  const id = keyId(key);
  if (state.notice && !state.popup) ctx.apply({ type: 'notice', notice: null });
  // The inbox key answers on every page, the composer included; a question popup is answered first.
  if ((!state.popup || state.popup.kind === 'help') && isInboxKey(id)) {
    if (state.popup) ctx.apply({ type: 'popup', popup: null });
    return toggleInbox(ctx);
  }
  if (state.popup) return handlePopupKey(ctx, state.popup, key, id);
  if (state.inboxView) return handleInboxKey(ctx, id);
  if (state.diskView) return handleDiskKey(ctx, id);
  const mode = state.mode;
  switch (mode.kind) {
    case 'list':
      switch (state.tab) {
        case 'sessions':
          if (state.sessionFilter.input) return handleSessionSearchKey(ctx, key, id);
          return handleSessionsKey(ctx, id);
        case 'projects':
          return handleProjectsKey(ctx, id);
        case 'settings':
          return handleSettingsKey(ctx, id);
        default:
          return assertNever(state.tab);
      }
    case 'session':
      if (mode.composer) return handleComposerKey(ctx, mode, mode.composer, key, id);
      if (mode.question) return handleQuestionKey(ctx, mode, mode.question, key, id);
      if (mode.threads) return handleThreadsKey(ctx, mode, mode.threads, id);
      return handleSessionKey(ctx, mode, id);
    case 'diff':
      return handleDiffKey(ctx, mode, key, id);
    default:
      return assertNever(mode);
  }
}
