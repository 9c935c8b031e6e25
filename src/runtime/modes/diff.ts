import type { Mode } from '../../app/state.js';
import { actionFor } from '../../domain/keymap.js';
import { assertNever } from '../../domain/session-status.js';
import type { KeyContext } from './context.js';

type DiffMode = Extract<Mode, { kind: 'diff' }>;

export function handleDiffKey(ctx: KeyContext, mode: DiffMode, id: string): void {
  const action = actionFor('diff', id);
  if (!action) return;
  const files = ctx.state.diff?.sessionId === mode.sessionId ? ctx.state.diff.files.length : 0;
  const set = (next: DiffMode): void => ctx.apply({ type: 'mode', mode: next });
  switch (action) {
    case 'back':
      ctx.apply({ type: 'mode', mode: { kind: 'session', sessionId: mode.sessionId, scrollBack: 0, composer: null, question: null } });
      return;
    case 'nextFile':
      set({ ...mode, fileIndex: Math.min(Math.max(0, files - 1), mode.fileIndex + 1), scroll: 0 });
      return;
    case 'prevFile':
      set({ ...mode, fileIndex: Math.max(0, mode.fileIndex - 1), scroll: 0 });
      return;
    case 'scrollDown':
      set({ ...mode, scroll: mode.scroll + 10 });
      return;
    case 'scrollUp':
      set({ ...mode, scroll: Math.max(0, mode.scroll - 10) });
      return;
    case 'help':
      ctx.apply({ type: 'popup', popup: { kind: 'help' } });
      return;
    default:
      assertNever(action);
  }
}
