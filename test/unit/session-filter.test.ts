import { describe, expect, it } from 'vitest';
import {
  NO_FILTER,
  filterSessions,
  matchesQuery,
  matchesStatus,
  nextStatusFilter,
  type SessionFilter,
} from '../../src/domain/session-filter.js';
import { pressKeys, typeInput } from '../helpers/keys.js';
import { appState, renderFrame } from '../helpers/render.js';
import { makeSession } from '../helpers/session-factory.js';

// The session list's search (`/`) and status filter (`f`): which sessions a
// filter keeps, and the keys a person presses on the list.

const login = makeSession('Review', {
  id: 'login',
  title: 'Fix the Login page',
  branch: 'grove/login-fix',
  prompt: 'The login button does nothing',
  createdAt: 40,
});
const cache = makeSession('InProgress', {
  id: 'cache',
  title: 'Add a cache',
  branch: 'grove/cache',
  prompt: 'Cache the API responses for AUTH tokens',
  createdAt: 30,
});
const docs = makeSession('Done', {
  id: 'docs',
  title: 'Write the docs',
  branch: 'grove/docs',
  prompt: null,
  createdAt: 20,
});
const ask = makeSession('Question', {
  id: 'ask',
  title: 'Rename a module',
  branch: 'grove/rename',
  prompt: 'Rename utils',
  createdAt: 10,
});
const all = [login, cache, docs, ask];
const ids = (list: readonly { id: string }[]) => list.map((s) => s.id);
const filter = (fields: Partial<SessionFilter>): SessionFilter => ({ ...NO_FILTER, ...fields });

describe('matchesQuery', () => {
  it('finds the text in the title, the branch or the prompt, whatever its case', () => {
    expect(matchesQuery(login, 'login PAGE')).toBe(true);
    expect(matchesQuery(login, 'LOGIN-fix')).toBe(true);
    expect(matchesQuery(cache, 'auth')).toBe(true);
    expect(matchesQuery(cache, 'login')).toBe(false);
    expect(matchesQuery(docs, 'docs')).toBe(true);
  });

  it('keeps every session for an empty or blank query', () => {
    expect(matchesQuery(docs, '')).toBe(true);
    expect(matchesQuery(docs, '   ')).toBe(true);
  });

  it('matches a session without a prompt by its title and branch only', () => {
    expect(matchesQuery(docs, 'null')).toBe(false);
  });
});

describe('matchesStatus', () => {
  it('sorts statuses into needs me, running, review and done', () => {
    expect(matchesStatus(ask, 'needsYou', false)).toBe(true);
    expect(matchesStatus(login, 'needsYou', false)).toBe(false);
    expect(matchesStatus(login, 'needsYou', true)).toBe(true);
    expect(matchesStatus(cache, 'running', false)).toBe(true);
    expect(matchesStatus(login, 'review', false)).toBe(true);
    expect(matchesStatus(ask, 'review', false)).toBe(true);
    expect(matchesStatus(docs, 'done', false)).toBe(true);
    expect(matchesStatus(docs, 'running', false)).toBe(false);
  });

  it('cycles all, needs me, running, review, done and back', () => {
    const seen = [NO_FILTER.status];
    for (let i = 0; i < 5; i++) seen.push(nextStatusFilter(seen[seen.length - 1] ?? 'all'));
    expect(seen).toEqual(['all', 'needsYou', 'running', 'review', 'done', 'all']);
  });
});

describe('filterSessions', () => {
  it('returns the same list when nothing is filtered', () => {
    expect(filterSessions(all, NO_FILTER, {})).toBe(all);
  });

  it('combines the query and the status', () => {
    expect(ids(filterSessions(all, filter({ query: 'the' }), {}))).toEqual([
      'login',
      'cache',
      'docs',
    ]);
    expect(ids(filterSessions(all, filter({ query: 'the', status: 'review' }), {}))).toEqual([
      'login',
    ]);
    expect(ids(filterSessions(all, filter({ status: 'needsYou' }), { cache: 'review' }))).toEqual([
      'cache',
      'ask',
    ]);
  });
});

describe('searching the session list', () => {
  const list = () =>
    appState({ sessions: all, selectedSessionId: 'login', columns: 100, rows: 20 });

  it('filters the rows live as the text is typed, and Esc shows every session again', () => {
    const typed = typeInput(list(), '/auth').state;
    const frame = renderFrame(typed).text;
    expect(frame).toContain('/auth');
    expect(frame).toContain('1 of 4');
    expect(frame).toContain('Add a cache');
    expect(frame).not.toContain('Fix the Login page');
    // The selection moved onto the row the filter shows.
    expect(typed.selectedSessionId).toBe('cache');

    const cleared = pressKeys(typed, ['escape']).state;
    expect(cleared.sessionFilter.input).toBeNull();
    expect(cleared.sessionFilter.query).toBe('');
    const back = renderFrame(cleared).text;
    expect(back).toContain('Fix the Login page');
    expect(back).not.toContain('of 4');
  });

  it('keeps the filter on Enter, and the list keys move among the rows it shows', () => {
    const kept = pressKeys(typeInput(list(), '/the').state, ['enter']).state;
    expect(kept.sessionFilter).toEqual({ query: 'the', input: null, status: 'all' });
    expect(renderFrame(kept).text).toContain('3 of 4');
    // j is a list key again, and skips the session the filter hides.
    const moved = pressKeys(kept, ['G']).state;
    expect(moved.selectedSessionId).toBe('docs');
    // Esc on the list clears the kept filter.
    expect(pressKeys(kept, ['escape']).state.sessionFilter.query).toBe('');
  });

  it('types list keys into the open field instead of running them', () => {
    const run = typeInput(list(), '/ac');
    // The only work asked for is the search of the archive in the store, not what 'a' or 'c' do.
    expect(run.calls.filter((call) => call.method !== 'loadArchive')).toEqual([]);
    expect(run.state.sessionFilter.input?.text).toBe('ac');
  });

  it('filters by status with f, shown in the header', () => {
    const run = pressKeys(list(), ['f', 'f']);
    expect(run.state.sessionFilter.status).toBe('running');
    const frame = renderFrame(run.state).text;
    expect(frame).toContain('status: running · 1 of 4');
    expect(frame).toContain('Add a cache');
    expect(frame).not.toContain('Write the docs');
  });

  it('acts on no session when the filter hides them all', () => {
    const run = pressKeys(typeInput(list(), '/nothing like it').state, ['enter', 'enter', 'c']);
    expect(run.calls).toEqual([]);
    expect(renderFrame(run.state).text).toContain('No session matches the filter');
  });

  it('shows a pasted search on one line, with control characters made visible', () => {
    const open = pressKeys(list(), ['/']).state;
    const run = typeInput(open, '\u001b[200~cache\nthe\u001b[201~');
    expect(run.state.sessionFilter.input?.text).toBe('cache the');
  });
});
