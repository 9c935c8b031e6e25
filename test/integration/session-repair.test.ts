import { existsSync, rmSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
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
