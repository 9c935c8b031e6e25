import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeRepo, makeWorld, startGrove, type GroveWorld } from '../helpers/grove-env.js';
import { seedSessions } from '../helpers/seed.js';
import type { TmuxTerminal } from '../helpers/tmux.js';

// The built Grove in a real terminal: `/` searches the session list as the
// person types, `f` filters it by status, Esc shows every session again.

let world: GroveWorld;
let term: TmuxTerminal | null = null;

beforeEach(() => {
  world = makeWorld();
});

afterEach(async () => {
  await term?.kill();
  term = null;
  world.cleanup();
});

describe('the session list filter', () => {
  it('filters the rows by the typed text and by status, and Esc clears it', async () => {
    const repo = makeRepo(world);
    await seedSessions(world.groveHome, repo, [
      { title: 'Old finished docs', status: 'Done' },
      { title: 'Fix the login page', status: 'Review' },
      { title: 'Cache the LOGIN tokens', status: 'InProgress' },
      { title: 'Rename the utils module', status: 'Question' },
    ]);
    term = await startGrove(world, repo, { columns: 120, rows: 30 });
    const t = term;
    await t.waitFor('Rename the utils module');

    await t.keys('/');
    await t.type('login');
    const filtered = await t.waitFor('2 of 4');
    expect(filtered).toContain('/login');
    expect(filtered).toContain('Fix the login page');
    expect(filtered).toContain('Cache the LOGIN tokens');
    expect(filtered).not.toContain('Rename the utils module');
    expect(filtered).not.toContain('Old finished docs');

    // Esc clears the search: every session is back. The archive (Done) is read
    // from the store again after the search, so its row can come a frame later.
    await t.keys('Escape');
    const all = await t.waitFor('Old finished docs');
    expect(all).toContain('Rename the utils module');
    expect(all).not.toContain('of 4');

    // Enter keeps the filter; list keys work again (j moves, f filters by status).
    await t.keys('/');
    await t.type('the');
    await t.waitFor('3 of 4');
    await t.keys('Enter');
    await t.keys('f', 'f', 'f');
    const review = await t.waitFor('status: review · 2 of 4');
    expect(review).toContain('Fix the login page');
    expect(review).toContain('Rename the utils module');
    expect(review).not.toContain('Cache the LOGIN tokens');

    await t.keys('Escape');
    const back = await t.waitFor('Old finished docs');
    expect(back).toContain('Cache the LOGIN tokens');
    expect(back).not.toContain('of 4');
  });
});
