import { execFileSync } from 'node:child_process';
import { chmodSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Session } from '../../src/domain/session.js';
import { KEY_REJECTED } from '../helpers/fake-model/types.js';
import { bare, github, grove, load, model, repo, workId } from '../helpers/github-world.js';
import { git } from '../helpers/grove-env.js';
import {
  publishedSession,
  scriptThreadsTurn,
  setUpReviewThreadsWorld,
} from '../helpers/review-threads-world.js';
import { InboxSchema } from './headless-schema.js';

// Inbox items per kind (issue 25): each appears in `grove inbox --json`, read
// by a separate `grove` process, and leaves it once handled as
// docs/usage/inbox.md says. Through the built binary with the real Claude
// Code CLI against the fake model server, a real repository pushing to a bare
// remote, real SQLite and the GitHub stand-in. Questions, failed turns:
// headless-inbox.test.ts; approvals: approvals-*.test.ts; confirmations:
// mcp-confirm*.test.ts.

setUpReviewThreadsWorld();

/** What `grove inbox --json` lists for the session (another process, from the store). */
async function inboxOf(sessionId: string) {
  const run = await grove(['inbox', '--json']);
  expect(run.code, run.stderr).toBe(0);
  return InboxSchema.parse(JSON.parse(run.stdout)).filter((i) => i.sessionId === sessionId);
}

/**
 * Main adds hello.txt with other words than the session's branch, and the
 * agent Grove asks to resolve the conflict cannot be reached (its model
 * refuses the key): `grove STEP` on the session stops on the conflict.
 */
async function stopOnConflict(step: 'merge' | 'rebase') {
  writeFileSync(join(repo, 'hello.txt'), 'main says hi\n');
  git(repo, 'add', 'hello.txt');
  git(repo, 'commit', '-q', '-m', 'Main adds its own greeting');
  model.script('anthropic', [{ when: 'Grove is rebasing this branch onto', ...KEY_REJECTED }]);
  const id = workId.slice(0, 8);
  const run = await grove([step, id]);
  expect(run.code).toBe(1);
  expect(git(repo, 'show', 'main:hello.txt')).toBe('main says hi');
  return { session: await load(workId), id, items: await inboxOf(workId) };
}

/** The person resolves the conflict in the worktree as the notice says: rebases there, keeps both lines. */
function resolveInWorktree(session: Session): void {
  const dir = session.worktreePath;
  const run = (...args: string[]) =>
    execFileSync('git', args, {
      cwd: dir,
      stdio: 'pipe',
      env: { ...process.env, GIT_EDITOR: 'true' },
    });
  expect(() => run('rebase', 'main')).toThrow(/could not apply/);
  writeFileSync(join(dir, 'hello.txt'), 'main says hi\nhello\n');
  run('add', 'hello.txt');
  run('rebase', '--continue');
  expect(git(dir, 'rev-parse', 'HEAD~1')).toBe(git(repo, 'rev-parse', 'main'));
}

describe('inbox: review threads', () => {
  it('a review thread on the pull request waits as a review item until it is sent to the agent and resolved', async () => {
    const session = await publishedSession();
    expect(await inboxOf(session.id)).toEqual([]);
    const thread = github.addReviewThread(1, {
      path: 'hello.txt',
      line: 1,
      author: 'alice',
      body: 'Capitalise the greeting.\nIt reads better.',
    });
    // Read from GitHub and stored (what the TUI's poller does too).
    expect((await grove(['threads', session.id])).code).toBe(0);

    const open = await inboxOf(session.id);
    expect(open).toEqual([
      expect.objectContaining({
        id: `reviewThreads:${session.id}`,
        kind: 'reviewThreads',
        text: '1 review thread to send to the agent: Capitalise the greeting.',
        action: `Open the threads (t in the session view, or grove threads ${session.id.slice(0, 8)})`,
      }),
    ]);

    scriptThreadsTurn();
    const sent = await grove(['reply', session.id, '--threads']);
    expect(sent.code, sent.stderr).toBe(0);
    // Answered by the agent's commit, not yet resolved: the person still has to say yes.
    expect((await inboxOf(session.id)).map((i) => [i.kind, i.text])).toEqual([
      ['reviewThreads', '1 answered, to resolve: Capitalise the greeting.'],
    ]);

    const resolved = await grove(['threads', session.id, '--resolve']);
    expect(resolved.code, resolved.stderr).toBe(0);
    expect(github.thread(thread.id).isResolved).toBe(true);
    expect(await inboxOf(session.id)).toEqual([]);
  });
});

describe('inbox: failed git steps', () => {
  it("a push the remote rejects waits as a failed git item with the remote's words, and leaves once publishing again works", async () => {
    const hook = join(bare, 'hooks', 'pre-receive');
    writeFileSync(hook, '#!/bin/sh\necho "error: pushes to acme/widgets are frozen" >&2\nexit 1\n');
    chmodSync(hook, 0o755);
    const id = workId.slice(0, 8);

    const rejected = await grove(['publish', workId]);
    expect(rejected.code).toBe(1);

    const items = await inboxOf(workId);
    expect(items).toEqual([
      expect.objectContaining({ kind: 'failedGit', action: expect.any(String) as string }),
    ]);
    expect(items[0]?.text).toMatch(
      /^The publish failed: .*The push to origin was rejected: pre-receive hook declined \(the remote says: pushes to acme\/widgets are frozen\)/,
    );
    expect(items[0]?.action).toBe(`Read the session, then publish again (grove publish ${id})`);
    expect(github.pulls).toHaveLength(0);

    rmSync(hook);
    const again = await grove(['publish', id]);
    expect(again.code, again.stderr).toBe(0);
    expect(github.pulls).toHaveLength(1);
    expect(await inboxOf(workId)).toEqual([]);
  });

  it('a merge into a main checkout with uncommitted changes waits as a failed git item, and leaves once they are committed and the merge is run again', async () => {
    writeFileSync(join(repo, 'scratch.txt'), 'mine\n');
    git(repo, 'add', 'scratch.txt');
    const id = workId.slice(0, 8);

    const refused = await grove(['merge', id]);
    expect(refused.code).toBe(1);

    const items = await inboxOf(workId);
    expect(items.map((i) => i.kind)).toEqual(['failedGit']);
    expect(items[0]?.text).toMatch(/^The merge failed: .*uncommitted changes/);
    expect(items[0]?.action).toBe(`Read the session, then merge again (grove merge ${id})`);

    git(repo, 'commit', '-q', '-m', 'Keep my scratch file');
    const merged = await grove(['merge', id]);
    expect(merged.code, merged.stderr).toBe(0);
    expect(await inboxOf(workId)).toEqual([]);
  });
});

describe('inbox: conflicts', () => {
  it('a merge that stops on conflicts waits as a conflict item; resolved in the worktree and merged again, it leaves', async () => {
    const { session, id, items } = await stopOnConflict('merge');

    expect(items.map((i) => i.kind)).toEqual(['conflict']);
    expect(items[0]?.text).toMatch(
      /^\[Merge Error\] Rebasing onto main stopped on conflicts in hello\.txt \(the agent could not help: .*\)\. The rebase was aborted; the branch is as it was\./,
    );
    expect(items[0]?.action).toBe(
      `Resolve it in the worktree or reply to the agent, then merge again (grove merge ${id})`,
    );

    resolveInWorktree(session);
    const merged = await grove(['merge', id]);
    expect(merged.code, merged.stderr).toBe(0);
    expect(git(repo, 'show', 'main:hello.txt')).toBe('main says hi\nhello');
    expect(await inboxOf(workId)).toEqual([]);
  });

  it('a rebase that stops on conflicts leaves the inbox once resolved in the worktree and rebased again', async () => {
    const { session, id, items } = await stopOnConflict('rebase');

    expect(items.map((i) => [i.kind, i.action])).toEqual([
      [
        'conflict',
        `Resolve it in the worktree or reply to the agent, then rebase again (grove rebase ${id})`,
      ],
    ]);

    resolveInWorktree(session);
    const again = await grove(['rebase', id]);
    expect(again.code, again.stderr).toBe(0);
    expect(await inboxOf(workId)).toEqual([]);
    expect((await load(workId)).status).toBe('Review');
  });
});
