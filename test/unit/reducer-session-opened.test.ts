import { describe, expect, it } from 'vitest';
import { reduce } from '../../src/app/reducer.js';
import { makeSession } from '../helpers/session-factory.js';
import { bareState } from '../helpers/state.js';

// Services say a session was opened; the reducer decides what the screen shows.

const state = bareState;

describe('reducer: sessionOpened', () => {
  it('shows a new session with an empty composer', () => {
    const s = makeSession('Draft');
    const next = reduce(state({ sessions: [s] }), {
      type: 'sessionOpened',
      sessionId: s.id,
      compose: true,
    });
    expect(next.mode).toEqual({
      kind: 'session',
      sessionId: s.id,
      scrollBack: 0,
      composer: { text: '', cursor: 0, undo: [], redo: [] },
      question: null,
    });
  });

  it('shows an existing session with its composer closed', () => {
    const s = makeSession('Review');
    const next = reduce(state({ sessions: [s] }), {
      type: 'sessionOpened',
      sessionId: s.id,
      compose: false,
    });
    expect(next.mode).toEqual({
      kind: 'session',
      sessionId: s.id,
      scrollBack: 0,
      composer: null,
      question: null,
    });
  });

  it('clears the opened session\'s "needs you" marker', () => {
    const s = makeSession('Review');
    const next = reduce(state({ sessions: [s], attention: { [s.id]: 'review' } }), {
      type: 'sessionOpened',
      sessionId: s.id,
      compose: false,
    });
    expect(next.attention).toEqual({});
  });
});
