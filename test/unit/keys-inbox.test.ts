import { describe, expect, it } from 'vitest';
import type { InboxItem } from '../../src/domain/inbox.js';
import { bufferFrom } from '../../src/domain/composer.js';
import { pressKeys } from '../helpers/keys.js';
import { bareState } from '../helpers/state.js';

function item(n: number, projectId = 1): InboxItem {
  return {
    id: `question:s${n}`,
    kind: 'question',
    sessionId: `s${n}`,
    projectId,
    project: 'p',
    session: `t${n}`,
    since: n,
    until: null,
    text: 'A question: which?',
    action: 'Answer it',
  };
}

describe('the inbox key', () => {
  it('opens the inbox from the composer, reads it, and Esc closes it back to the composer', () => {
    const state = bareState({
      mode: {
        kind: 'session',
        sessionId: 's1',
        scrollBack: 0,
        composer: bufferFrom('half a prompt'),
        question: null,
      },
    });
    const opened = pressKeys(state, ['ctrl+o']);
    expect(opened.state.inboxView).toEqual({ cursor: 0 });
    expect(opened.calls.map((c) => c.method)).toEqual(['loadInbox']);
    const closed = pressKeys(opened.state, ['escape']);
    expect(closed.state.inboxView).toBeNull();
    expect(closed.state.mode).toEqual(state.mode);
  });

  it('moves down the items and Enter opens the highlighted one in its project', () => {
    const state = bareState({ inbox: [item(1), item(2, 7)], inboxView: { cursor: 0 } });
    const run = pressKeys(state, ['j', 'j', 'enter']);
    expect(run.state.inboxView).toBeNull();
    expect(run.calls).toEqual([{ method: 'openInboxItem', args: [7, 's2'] }]);
  });

  it('does nothing on Enter when the inbox is empty', () => {
    const run = pressKeys(bareState({ inboxView: { cursor: 0 } }), ['enter']);
    expect(run.calls).toEqual([]);
    expect(run.state.inboxView).toEqual({ cursor: 0 });
  });
});
