import { actionFor } from '../../domain/key-lookup.js';
import { inboxCursor } from '../../ui/inbox-layout.js';
import type { KeyContext } from './context.js';

/** Whether `id` is the key that opens (and closes) the inbox from anywhere. */
export function isInboxKey(id: string): boolean {
  return actionFor('inbox', id) === 'open';
}

/** The inbox key: opens the inbox page over whatever is on screen, or closes it. */
export function toggleInbox(ctx: KeyContext): void {
  if (ctx.state.inboxView) {
    ctx.apply({ type: 'inboxView', view: null });
    return;
  }
  ctx.apply({ type: 'inboxView', view: { cursor: 0 } });
  ctx.intents.loadInbox();
}

/** Keys while the inbox page is open. */
export function handleInboxKey(ctx: KeyContext, id: string): void {
  const view = ctx.state.inboxView;
  if (!view) return;
  const items = ctx.state.inbox;
  const cursor = inboxCursor(view.cursor, items.length);
  const action = actionFor('inbox', id);
  switch (action) {
    case 'open':
    case 'close':
      ctx.apply({ type: 'inboxView', view: null });
      return;
    case 'down':
      ctx.apply({ type: 'inboxView', view: { cursor: inboxCursor(cursor + 1, items.length) } });
      return;
    case 'up':
      ctx.apply({ type: 'inboxView', view: { cursor: inboxCursor(cursor - 1, items.length) } });
      return;
    case 'jump': {
      const item = items[cursor];
      if (!item) return;
      ctx.apply({ type: 'inboxView', view: null });
      ctx.intents.openInboxItem(item.projectId, item.sessionId);
      return;
    }
    case 'approveOnce':
    case 'approveSession':
    case 'approveAllowList':
    case 'deny': {
      // Only an approval (L only a network one) or a confirmation (a / A confirm, d refuses) is answered here;
      // on any other item the key does nothing.
      const item = items[cursor];
      if (item?.confirmationId) {
        if (action === 'approveAllowList') return;
        ctx.intents.decideConfirmation(item.confirmationId, action !== 'deny');
        return;
      }
      if (!item?.approvalId) return;
      if (action === 'approveAllowList' && item.approvalKind !== 'network') return;
      const choice =
        action === 'approveOnce'
          ? 'once'
          : action === 'approveSession'
            ? 'session'
            : action === 'approveAllowList'
              ? 'allowList'
              : 'denied';
      ctx.intents.decideApproval(item.approvalId, choice);
      return;
    }
    case undefined:
      return;
  }
}
