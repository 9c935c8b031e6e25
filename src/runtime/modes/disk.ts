import { actionFor } from '../../domain/key-lookup.js';
import { diskCursor, diskSessions } from '../../ui/disk-layout.js';
import type { KeyContext } from './context.js';

/** D on the Sessions tab: the Disk view opens, and stale worktree sizes are walked in the background. */
export function openDiskView(ctx: KeyContext): void {
  ctx.apply({ type: 'diskView', view: { cursor: 0 } });
  ctx.intents.measureDisk();
}

/** Keys while the Disk view is open. */
export function handleDiskKey(ctx: KeyContext, id: string): void {
  const view = ctx.state.diskView;
  if (!view) return;
  const { sessions, disk, activeProjectId } = ctx.state;
  const count = diskSessions(sessions, disk, activeProjectId).length;
  const cursor = diskCursor(view.cursor, count);
  const action = actionFor('disk', id);
  switch (action) {
    case 'close':
      ctx.apply({ type: 'diskView', view: null });
      return;
    case 'down':
      ctx.apply({ type: 'diskView', view: { cursor: diskCursor(cursor + 1, count) } });
      return;
    case 'up':
      ctx.apply({ type: 'diskView', view: { cursor: diskCursor(cursor - 1, count) } });
      return;
    case undefined:
      return;
  }
}
