import { existsSync, rmSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { git } from '../helpers/grove-env.js';
import { expectExit, harness, reply, show, type Harness } from './headless-harness.js';
import { ResultSchema } from './headless-schema.js';

// A session whose worktree folder or branch was deleted by hand is repaired
// from what is left, not failed. The built binary, the real Claude Code, the
// fake model server, a real repository and a real SQLite store.

let h: Harness;

beforeEach(async () => {
  h = await harness();
});

afterEach(async () => {
  await h.close();
});

/** A session in Review whose turn wrote and committed hello.txt; its id, worktree and branch. */
async function helloSession(): Promise<{ id: string; worktree: string; branch: string }> {
  h.utilities();
  h.server.script('anthropic', [
    {
      when: 'Create hello.txt',
      toolCall: { kind: 'write_file', path: 'hello.txt', content: 'hello\nworld\n' },
    },
    { when: 'Create hello.txt', text: reply('Done.') },
  ]);
  const run = await h.grove(['run', '--output', 'json', 'Create hello.txt']);
  expectExit(run, 0);
  const result = ResultSchema.parse(JSON.parse(run.stdout));
  return { id: result.sessionId, worktree: result.worktree, branch: result.branch };
}

describe('grove diff on a session whose worktree folder was deleted', () => {
  it('recreates the worktree from the branch, says so, and prints the diff', async () => {
    const session = await helloSession();
    rmSync(session.worktree, { recursive: true, force: true });

    const diff = await h.grove(['diff', session.id]);

    expectExit(diff, 0);
    expect(diff.stdout, show(diff)).toContain('+++ b/hello.txt');
    expect(diff.stdout).toContain('+hello');
    expect(diff.stderr).toContain(`[Worktree] ${session.worktree} was deleted outside Grove`);
    expect(existsSync(`${session.worktree}/hello.txt`)).toBe(true);
  });
});

describe('a session whose branch was deleted by hand', () => {
  it('gets its branch back at the commit its worktree is at (HEAD left on the deleted branch), and its diff', async () => {
    const session = await helloSession();
    const tip = git(h.repo, 'rev-parse', session.branch);
    // `git branch -D` refuses a branch checked out in a worktree; this does not.
    git(h.repo, 'update-ref', '-d', `refs/heads/${session.branch}`);

    const diff = await h.grove(['diff', session.id]);

    expectExit(diff, 0);
    expect(git(h.repo, 'rev-parse', session.branch)).toBe(tip);
    expect(diff.stdout, show(diff)).toContain('+++ b/hello.txt');
    expect(diff.stderr).toContain(
      `[Worktree] The branch ${session.branch} was deleted outside Grove`,
    );
  });

  it('gets its branch back at the worktree’s detached HEAD, and the next turn commits on it', async () => {
    const session = await helloSession();
    git(session.worktree, 'checkout', '-q', '--detach');
    git(h.repo, 'branch', '-D', session.branch);
    h.utilities('Add a second file', 'Add the second file');
    h.server.script('anthropic', [
      {
        when: 'Create second.txt',
        toolCall: { kind: 'write_file', path: 'second.txt', content: 'two\n' },
      },
      { when: 'Create second.txt', text: reply('Done again.') },
    ]);

    const run = await h.grove(['reply', session.id, 'Create second.txt']);

    expectExit(run, 0);
    // Grove keeps one commit per session, amended by each turn: it holds both turns' files.
    expect(git(h.repo, 'show', `${session.branch}:hello.txt`)).toBe('hello\nworld');
    expect(git(h.repo, 'show', `${session.branch}:second.txt`)).toBe('two');
    expect(git(session.worktree, 'symbolic-ref', 'HEAD')).toBe(`refs/heads/${session.branch}`);
  });
});
