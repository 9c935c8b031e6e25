import { describe, expect, it } from 'vitest';
import type { AppState, ConfirmIntent, Popup } from '../../src/app/state.js';
import { bufferFrom } from '../../src/domain/composer.js';
import {
  SPARE_KEYS,
  bindingRows,
  pressKeys,
  typeInput,
  unboundKeys,
  type IntentCall,
} from '../helpers/keys.js';
import { appState } from '../helpers/render.js';
import { makeSession } from '../helpers/session-factory.js';

// Popups take every key while they are open: help, confirmations, notices
// and one-line inputs.

const call = (method: IntentCall['method'], ...args: unknown[]): IntentCall => ({ method, args });

function withPopup(popup: Popup): AppState {
  return appState({
    sessions: [makeSession('Review', { id: 'x' })],
    selectedSessionId: 'x',
    popup,
  });
}

const confirm = (intent: ConfirmIntent, yes = false): Popup => ({
  kind: 'confirm',
  title: 'Sure?',
  lines: ['Really.'],
  intent,
  yes,
});

describe('the help popup', () => {
  it.each(bindingRows('help').filter(([, action]) => action === 'close'))('closes on %s', (key) => {
    const run = pressKeys(withPopup({ kind: 'help' }), [key]);
    expect(run.state.popup).toBeNull();
    expect(run.calls).toEqual([]);
  });

  it('scrolls the keys down and back up on a short terminal', () => {
    const short = { ...withPopup({ kind: 'help' }), rows: 14 };
    const down = pressKeys(short, ['j', 'j', 'j']);
    expect(down.state.popup).toEqual({ kind: 'help', scroll: 3 });
    expect(pressKeys(down.state, ['k']).state.popup).toEqual({ kind: 'help', scroll: 2 });
  });

  it('stops scrolling at the last key row', () => {
    const short = { ...withPopup({ kind: 'help' }), rows: 14 };
    const run = pressKeys(
      short,
      Array.from({ length: 40 }, () => 'j'),
    );
    const end = run.state.popup?.kind === 'help' ? (run.state.popup.scroll ?? 0) : -1;
    expect(end).toBeGreaterThan(0);
    expect(pressKeys(run.state, ['j']).state).toBe(run.state);
  });

  it('does not scroll when every key fits', () => {
    const before = withPopup({ kind: 'help' });
    expect(pressKeys(before, ['j']).state).toBe(before);
  });

  it.each(unboundKeys('help', [...SPARE_KEYS, 'j', 'a', 'm']))(
    'keeps the page under it from seeing %s',
    (key) => {
      const before = withPopup({ kind: 'help' });
      const run = pressKeys(before, [key]);
      expect(run.state).toBe(before);
      expect(run.calls).toEqual([]);
    },
  );
});

/** What the confirmation's yes runs, for each intent (typed so a new intent must be added here). */
const INTENT_CALLS: {
  readonly [K in ConfirmIntent['kind']]: readonly [Extract<ConfirmIntent, { kind: K }>, IntentCall];
} = {
  quit: [{ kind: 'quit' }, call('quit')],
  cancelSession: [{ kind: 'cancelSession', sessionId: 'x' }, call('confirmCancel', 'x')],
  merge: [{ kind: 'merge', sessionId: 'x' }, call('confirmMerge', 'x')],
  regenerateReview: [{ kind: 'regenerateReview', sessionId: 'x' }, call('forceReview', 'x')],
  syncMain: [
    { kind: 'syncMain', branch: 'main', head: 'abc123' },
    call('confirmSync', 'main', 'abc123'),
  ],
  chooseWinner: [{ kind: 'chooseWinner', sessionId: 'x', how: 'merge' }, call('chooseWinner', 'x')],
  resolveThreads: [
    { kind: 'resolveThreads', sessionId: 'x', threadIds: ['PRRT_1', 'PRRT_2'] },
    call('resolveReviewThreads', 'x', ['PRRT_1', 'PRRT_2']),
  ],
  closeComposer: [
    { kind: 'closeComposer', sessionId: 'x', text: 'half a prompt' },
    call('saveDraft', 'x', 'half a prompt'),
  ],
  raiseBudget: [
    { kind: 'raiseBudget', sessionId: 'x', scope: 'session', measure: 'tokens', limit: 2000 },
    call('raiseBudget', 'x', 'session', 'tokens', 2000),
  ],
};

describe('a confirmation', () => {
  it.each(Object.values(INTENT_CALLS))('runs %o on yes', (intent, expected) => {
    const run = pressKeys(withPopup(confirm(intent)), ['y']);
    expect(run.calls).toEqual([expected]);
    expect(run.state.popup).toBeNull();
  });

  it('acknowledges the agent guard flag the merge dialog showed, on yes', () => {
    const intent = { kind: 'merge', sessionId: 'x', acknowledge: true } as const;
    const run = pressKeys(withPopup(confirm(intent)), ['y']);
    expect(run.calls).toEqual([call('confirmMerge', 'x', true)]);
  });

  const rows = bindingRows('confirm');

  it.each(rows.filter(([, action]) => action === 'yes'))('confirms on %s', (key) => {
    const run = pressKeys(withPopup(confirm({ kind: 'merge', sessionId: 'x' })), [key]);
    expect(run.calls).toEqual([call('confirmMerge', 'x')]);
  });

  it.each(rows.filter(([, action]) => action === 'no'))(
    'closes without running anything on %s',
    (key) => {
      const run = pressKeys(withPopup(confirm({ kind: 'merge', sessionId: 'x' }, true)), [key]);
      expect(run.calls).toEqual([]);
      expect(run.state.popup).toBeNull();
    },
  );

  it.each(rows.filter(([, action]) => action === 'toggle'))(
    'moves the highlight between Yes and No on %s',
    (key) => {
      const run = pressKeys(withPopup(confirm({ kind: 'merge', sessionId: 'x' })), [key]);
      expect(run.state.popup).toMatchObject({ kind: 'confirm', yes: true });
      expect(run.calls).toEqual([]);
    },
  );

  it.each(rows.filter(([, action]) => action === 'choose'))(
    'runs the intent on %s when Yes is highlighted',
    (key) => {
      const run = pressKeys(withPopup(confirm({ kind: 'merge', sessionId: 'x' }, true)), [key]);
      expect(run.calls).toEqual([call('confirmMerge', 'x')]);
      expect(run.state.popup).toBeNull();
    },
  );

  it.each(rows.filter(([, action]) => action === 'choose'))(
    'closes without running anything on %s when No is highlighted',
    (key) => {
      const run = pressKeys(withPopup(confirm({ kind: 'merge', sessionId: 'x' }, false)), [key]);
      expect(run.calls).toEqual([]);
      expect(run.state.popup).toBeNull();
    },
  );

  it.each(unboundKeys('confirm', SPARE_KEYS))('ignores %s', (key) => {
    const before = withPopup(confirm({ kind: 'quit' }));
    const run = pressKeys(before, [key]);
    expect(run.state).toBe(before);
    expect(run.calls).toEqual([]);
  });
});

describe('a notice popup', () => {
  const info: Popup = { kind: 'info', title: 'Merged', lines: ['Done.'], busy: false };

  it.each(['enter', 'escape', 'q'])('closes on %s', (key) => {
    const run = pressKeys(withPopup(info), [key]);
    expect(run.state.popup).toBeNull();
  });

  it.each(['j', 'y', 'space', 'ctrl+c'])('ignores %s', (key) => {
    const before = withPopup(info);
    expect(pressKeys(before, [key]).state).toBe(before);
  });
});

describe('an input popup', () => {
  const input = (text: string, purpose: Extract<Popup, { kind: 'input' }>['purpose']): Popup => ({
    kind: 'input',
    title: 'Value',
    purpose,
    buffer: bufferFrom(text),
  });

  it('saves a setting on Enter, trimmed', () => {
    const run = pressKeys(
      withPopup(input('  /tmp/wt ', { kind: 'setting', key: 'worktree.dir' })),
      ['enter'],
    );
    expect(run.calls).toEqual([call('setSetting', 'worktree.dir', '/tmp/wt')]);
    expect(run.state.popup).toBeNull();
  });

  it('publishes to the typed branch on Enter', () => {
    const run = pressKeys(
      withPopup(input('feature/x', { kind: 'publishBranch', sessionId: 'x' })),
      ['enter'],
    );
    expect(run.calls).toEqual([call('publish', 'x', 'feature/x')]);
  });

  it('closes without saving on Esc', () => {
    const run = pressKeys(withPopup(input('abc', { kind: 'setting', key: 'setup.command' })), [
      'escape',
    ]);
    expect(run.calls).toEqual([]);
    expect(run.state.popup).toBeNull();
  });

  it('types and edits, q and y included, without leaving the popup', () => {
    const run = pressKeys(withPopup(input('ab', { kind: 'setting', key: 'setup.command' })), [
      'q',
      'y',
      'backspace',
      'ctrl+a',
      'x',
    ]);
    expect(run.state.popup).toMatchObject({ kind: 'input', buffer: { text: 'xabq' } });
    expect(run.calls).toEqual([]);
  });

  it('stays one line: new-line keys are ignored and a paste keeps its first line', () => {
    const run = typeInput(
      withPopup(input('', { kind: 'setting', key: 'setup.command' })),
      '\x1b\r\x1b[200~npm ci\nrm -rf /\x1b[201~',
    );
    expect(run.state.popup).toMatchObject({ kind: 'input', buffer: { text: 'npm ci' } });
  });
});
