import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { git, makeRepo, makeWorld, startGrove, type GroveWorld } from '../helpers/grove-env.js';
import { seedSessions } from '../helpers/seed.js';
import type { TmuxTerminal } from '../helpers/tmux.js';

// Overlap warnings as a person sees them: live sessions whose branches
// change the same file are marked in the list, and the session view names
// the other session and the file.

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

const TEN_LINES = Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';

/** A session branch (as seedSessions names it) with one commit that writes `files`. */
function branchWith(repo: string, branch: string, files: Record<string, string>): void {
  git(repo, 'checkout', '-q', '-b', branch, 'main');
  for (const [path, content] of Object.entries(files)) writeFileSync(join(repo, path), content);
  git(repo, 'commit', '-qam', `work on ${branch}`);
  git(repo, 'checkout', '-q', 'main');
}

describe('overlap warnings', () => {
  it('marks live sessions that conflict with each other in the list, and names the other session and file in the session view', async () => {
    const repo = makeRepo(world);
    writeFileSync(join(repo, 'shared.txt'), TEN_LINES);
    writeFileSync(join(repo, 'other.txt'), 'other\n');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-qm', 'Add shared files');
    branchWith(repo, 'grove/00000001', {
      'shared.txt': TEN_LINES.replace('line 2\n', 'A was here\n'),
    });
    branchWith(repo, 'grove/00000002', {
      'shared.txt': TEN_LINES.replace('line 2\n', 'B was here\n'),
    });
    branchWith(repo, 'grove/00000003', { 'other.txt': 'C\n' });
    await seedSessions(world.groveHome, repo, [
      { title: 'Session A edits line two', status: 'Review' },
      { title: 'Session B edits line two', status: 'Review' },
      { title: 'Session C edits another file', status: 'Review' },
    ]);

    term = await startGrove(world, repo, { columns: 120 });
    const list = await term.waitFor(/Session A edits line two\s+\[conflicts with 1\] /);

    expect(list).toMatch(/Session B edits line two\s+\[conflicts with 1\] /);
    expect(list).toMatch(/Session C edits another file\s+\+0\/-0/);

    // The newest is first (C), then B.
    await term.keys('j');
    await term.waitFor(/▶ .*Session B edits line two/);
    await term.keys('Enter');
    const view = await term.waitFor('Other sessions changing the same files');

    expect(view).toMatch(/Session B edits line two\s+Conflicts with 1 other session/);
    expect(view).toMatch(/"Session A edits line two" \(00000001\): conflicts in shared\.txt/);
    expect(view).not.toMatch(/Session C edits another file/);
  });

  it('drops the conflict labels of a session once it is canceled, on it and on the other session', async () => {
    const repo = makeRepo(world);
    writeFileSync(join(repo, 'shared.txt'), TEN_LINES);
    git(repo, 'add', '-A');
    git(repo, 'commit', '-qm', 'Add shared files');
    branchWith(repo, 'grove/00000001', {
      'shared.txt': TEN_LINES.replace('line 2\n', 'A was here\n'),
    });
    branchWith(repo, 'grove/00000002', {
      'shared.txt': TEN_LINES.replace('line 2\n', 'B was here\n'),
    });
    await seedSessions(world.groveHome, repo, [
      { title: 'Session A edits line two', status: 'Review' },
      { title: 'Session B edits line two', status: 'Review' },
    ]);
    term = await startGrove(world, repo, { columns: 120 });
    await term.waitFor(/Session A edits line two\s+\[conflicts with 1\] /);
    await term.waitFor(/▶ .*Session B edits line two\s+\[conflicts with 1\] /);

    await term.keys('c');
    await term.waitFor(/Cancel ".*"\?/);
    await term.keys('y');
    const list = await term.waitFor(/Session B edits line two.*Canceled/, 20_000);

    expect(list).not.toContain('[conflicts with');
    await term.keys('Enter');
    const view = await term.waitFor(/Session B edits line two[\s\S]*Canceled/);
    expect(view).not.toContain('Conflicts with 1 other session');
  });
});
