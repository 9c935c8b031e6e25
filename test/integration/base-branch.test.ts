import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { commitFiles, seedReviewSession, startGrove } from '../helpers/faults.js';
import { git, makeRepo, makeWorld, type GroveWorld } from '../helpers/grove-env.js';

// The base branch moves under a session: deleted by hand, or rewound to an
// earlier commit. Grove says so in words. The built binary, a real
// repository and database.

let world: GroveWorld;
let repo: string;

beforeEach(() => {
  world = makeWorld();
  repo = makeRepo(world);
});

afterEach(() => {
  world.cleanup();
});

async function grove(args: string[]): Promise<{ code: number | null; output: string }> {
  const run = startGrove(args, repo, world.env());
  const { code } = await run.exited;
  return { code, output: run.output() };
}

describe('a deleted base branch', () => {
  it('grove diff and grove merge say the base is gone and how to pick another, and change nothing', async () => {
    const session = await seedReviewSession(world, repo, {
      files: { 'feature.txt': 'feature\n' },
      message: 'Add the feature',
    });
    git(repo, 'checkout', '-q', '-b', 'trunk');
    git(repo, 'branch', '-D', 'main');
    const branchTip = git(repo, 'rev-parse', session.branch);

    const diff = await grove(['diff', session.id]);
    const merge = await grove(['merge', session.id]);

    for (const run of [diff, merge]) {
      expect(run.code, run.output).toBe(1);
      expect(run.output).toContain(`the session's base branch main no longer exists in ${repo}`);
      expect(run.output).toContain(`git -C ${repo} branch main <other-branch>`);
    }
    expect(git(repo, 'rev-parse', session.branch)).toBe(branchTip);
    expect(git(repo, 'branch', '--list', 'main')).toBe('');
  });
});

describe('a base branch rewound under a session', () => {
  it('grove merge warns that the merge brings back the commits the base dropped', async () => {
    commitFiles(world, repo, { 'dropped.txt': 'soon gone\n' }, 'A commit main will drop');
    const session = await seedReviewSession(world, repo, {
      files: { 'feature.txt': 'feature\n' },
      message: 'Add the feature',
    });
    git(repo, 'reset', '-q', '--hard', 'HEAD~1');

    const merge = await grove(['merge', session.id]);

    expect(merge.output).toContain('main was rewound since this session started from it');
    expect(merge.output).toContain('A commit main will drop');
    expect(merge.output).toContain(`rebase --onto main`);
  });
});
