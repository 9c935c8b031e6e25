import { describe, expect, it } from 'vitest';
import { reduce } from '../../src/app/reducer.js';
import { initialState, type AppState } from '../../src/app/state.js';
import { makeSession } from '../helpers/session-factory.js';

// Services say a session was opened; the reducer decides what the screen shows.

function state(overrides: Partial<AppState> = {}): AppState {
  return {
    ...initialState({
      version: 't',
      columns: 100,
      rows: 30,
      now: 0,
      tab: 'sessions',
      projects: [],
      activeProjectId: 1,
      sessions: [],
      settings: {},
    }),
    ...overrides,
  };
}

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
