import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { push } from '../../src/infra/git/remote.js';
import { addWorktree } from '../../src/infra/git/worktree.js';
import { commitFiles, pushFromElsewhere } from '../helpers/faults.js';
import { git, makeRepo, makeWorld, type GroveWorld } from '../helpers/grove-env.js';
import { harness } from './headless-harness.js';

// Git failures Grove reports in words that say what happened and what to do,
// on real repositories and bare remotes.

let world: GroveWorld;

beforeEach(() => {
  world = makeWorld();
});

afterEach(() => {
  world.cleanup();
});

describe('push refusals', () => {
  it('says the remote branch moved since the last fetch instead of only "stale info"', async () => {
    const repo = makeRepo(world, 'project', true);
    pushFromElsewhere(
      world,
      join(world.dir, 'project-origin.git'),
      { 'theirs.txt': 'theirs\n' },
      'Their commit',
    );
    commitFiles(world, repo, { 'ours.txt': 'ours\n' }, 'Our commit');

    const error = await push(repo, 'origin', 'main:main', { forceWithLease: true }).catch(
      (e: unknown) => e,
    );

    expect(error).toBeInstanceOf(Error);
    const message = (error as Error).message;
    expect(message).toMatch(
      /main on origin changed since Grove last fetched it \(someone else pushed to it\)/,
    );
    expect(message).toMatch(
      /Nothing was overwritten\. Bring their commits in first \(sync again, or git pull --rebase\), then push\./,
    );
    expect(message).not.toMatch(/stale info/);
  });

  it('says the remote has commits that are not here for a plain non-fast-forward push', async () => {
    const repo = makeRepo(world, 'project', true);
    pushFromElsewhere(
      world,
      join(world.dir, 'project-origin.git'),
      { 'theirs.txt': 'theirs\n' },
      'Their commit',
    );
    git(repo, 'fetch', '-q', 'origin');
    commitFiles(world, repo, { 'ours.txt': 'ours\n' }, 'Our commit');

    const error = await push(repo, 'origin', 'main:main').catch((e: unknown) => e);

    expect((error as Error).message).toMatch(
      /^The push to origin was refused: main on origin has commits that are not here, and pushing would drop them\. Nothing was overwritten\./,
    );
  });
});

describe('an empty repository', () => {
  it('says it has no commits yet and how to make one, instead of "not a valid object name"', async () => {
    const repo = join(world.dir, 'empty');
    execFileSync('git', ['init', '-q', '-b', 'main', repo]);

    const error = await addWorktree(repo, join(world.dir, 'wt'), 'grove/x', 'main').catch(
      (e: unknown) => e,
    );

    expect((error as Error).message).toBe(
      `The repository ${repo} has no commits yet, so a session has nothing to start from. Make a first commit on main (for example: git commit --allow-empty -m "Initial commit"), then start the session again.`,
    );
  });
});

describe('grove run in an empty repository', () => {
  it('says the repository has no commits yet', async () => {
    const h = await harness();
    try {
      const repo = join(h.world.dir, 'empty');
      execFileSync('git', ['init', '-q', '-b', 'main', repo]);
      h.utilities();

      const run = await h.grove(['run', 'Write hello.txt'], { cwd: repo });

      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(
        /has no commits yet, so a session has nothing to start from\. Make a first commit on main/,
      );
      expect(run.stderr).not.toMatch(/not a valid object name/);
    } finally {
      await h.close();
    }
  });
});
