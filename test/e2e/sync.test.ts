import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { git, makeRepo, makeWorld, startGrove, type GroveWorld } from '../helpers/grove-env.js';
import { seedSessions, withStore } from '../helpers/seed.js';
import type { TmuxTerminal } from '../helpers/tmux.js';

// Sync (s) as a person sees it: it says how it ended, the footer's ↑/↓ shows
// the branch against its upstream at once, and a session whose merge commit
// the pull rebased names the commit that is on the branch now.

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

describe('sync (s)', () => {
  it('reports its result, shows ↑0 ↓0 at once, and renames the merge commit it rebased', async () => {
    const repo = makeRepo(world, 'project', true);
    // Someone else pushed to origin meanwhile.
    const elsewhere = join(world.dir, 'elsewhere');
    git(world.dir, 'clone', '-q', join(world.dir, 'project-origin.git'), elsewhere);
    writeFileSync(join(elsewhere, 'theirs.txt'), 'theirs\n');
    git(elsewhere, 'add', '-A');
    git(
      elsewhere,
      '-c',
      'user.name=T',
      '-c',
      'user.email=t@example.com',
      'commit',
      '-qm',
      'Their change',
    );
    git(elsewhere, 'push', '-q', 'origin', 'main');
    // A session merged here (its squash commit is on main, not pushed yet).
    writeFileSync(join(repo, 'landed.txt'), 'landed\n');
    git(repo, 'add', '-A');
    git(
      repo,
      '-c',
      'user.name=G',
      '-c',
      'user.email=g@example.com',
      'commit',
      '-qm',
      'Session A landed',
    );
    const merged = git(repo, 'rev-parse', 'main');
    const [id = ''] = await seedSessions(world.groveHome, repo, [
      { title: 'Session A landed', status: 'Done' },
    ]);
    await withStore(world.groveHome, (store) =>
      store.sessions.update(id, { mergedCommit: merged }, Date.now()),
    );

    term = await startGrove(world, repo, { columns: 120 });
    await term.waitFor('main -> origin/main ↑1 ↓0');
    await term.keys('s');
    await term.waitFor('Sync main with origin/main?', 20_000);
    await term.keys('y');
    const done = await term.waitFor('Sync finished', 20_000);

    expect(done).toContain('Pulled 1 commit(s) from origin/main:');
    expect(done).toContain('Pushed 1 commit(s) to origin/main:');
    await term.keys('Enter');
    await term.waitFor('main -> origin/main ↑0 ↓0');
    const rebased = git(repo, 'rev-parse', 'main');
    expect(rebased).not.toBe(merged);
    await term.keys('Enter');
    // The transcript of a session not opened before is read from the store as it opens.
    const view = await term.waitFor(
      `this session's merge commit is now ${rebased.slice(0, 12)} (was ${merged.slice(0, 12)})`,
    );
    expect(view).toContain(`Merged as ${rebased.slice(0, 12)} on main`);
  });
});
