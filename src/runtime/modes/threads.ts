import type { Mode, ThreadPanel } from '../../app/state.js';
import { actionFor } from '../../domain/key-lookup.js';
import { assertNever } from '../../domain/assert-never.js';
import type { KeyContext } from './context.js';

type SessionMode = Extract<Mode, { kind: 'session' }>;

/** The review-thread panel of the session view: pick threads, send them, resolve the answered ones. */
export function handleThreadsKey(
  ctx: KeyContext,
  mode: SessionMode,
  panel: ThreadPanel,
  id: string,
): void {
  const action = actionFor('threads', id);
  if (!action) return;
  const threads = ctx.state.reviewThreads[mode.sessionId]?.threads ?? [];
  const update = (next: ThreadPanel | null): void =>
    ctx.apply({ type: 'mode', mode: { ...mode, threads: next } });
  const cursor = Math.min(panel.cursor, Math.max(0, threads.length - 1));
  switch (action) {
    case 'down':
      update({ ...panel, cursor: Math.min(Math.max(0, threads.length - 1), cursor + 1) });
      return;
    case 'up':
      update({ ...panel, cursor: Math.max(0, cursor - 1) });
      return;
    case 'toggle': {
      const thread = threads[cursor];
      if (!thread) return;
      const selected = panel.selected.includes(thread.id)
        ? panel.selected.filter((t) => t !== thread.id)
        : [...panel.selected, thread.id];
      update({ ...panel, selected });
      return;
    }
    case 'send': {
      // Only picks that still exist (a refresh may have dropped resolved ones).
      const picked = panel.selected.filter((t) => threads.some((thread) => thread.id === t));
      update(null);
      ctx.intents.sendReviewThreads(mode.sessionId, picked.length > 0 ? picked : null);
      return;
    }
    case 'resolve':
      ctx.intents.requestResolveThreads(mode.sessionId);
      return;
    case 'refresh':
      ctx.intents.refreshReviewThreads(mode.sessionId);
      return;
    case 'close':
      update(null);
      return;
    case 'help':
      ctx.apply({ type: 'popup', popup: { kind: 'help' } });
      return;
    default:
      assertNever(action);
  }
}
