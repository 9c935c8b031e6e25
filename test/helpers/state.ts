import { initialState, type AppState } from '../../src/app/state.js';

/** A bare snapshot for reducer and loop tests: 100×30, project 1 active but not loaded, no sessions; adjusted by `overrides`. */
export function bareState(overrides: Partial<AppState> = {}): AppState {
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
