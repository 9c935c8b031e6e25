import { describe, expect, it } from 'vitest';
import type { AppEvent } from '../../src/app/events.js';
import { loadThreads, queueThreadsTurn } from '../../src/app/services/review/review-threads.js';
import { waitForOperation } from '../../src/cli/headless.js';
import {
  closeDb,
  controllerContext,
  github,
  grove,
  load,
  model,
  remoteHead,
  repo,
  store,
  transcript,
} from '../helpers/github-world.js';
import { git } from '../helpers/grove-env.js';
import {
  publishedSession,
  reply,
  scriptThreadsTurn,
  setUpReviewThreadsWorld,
} from '../helpers/review-threads-world.js';

// Pull-request review threads of a published session, through the real
// layers: the built `grove` binary (run, publish, threads, reply --threads)
// with the real Claude Code CLI against the fake model server, a real
// repository whose pushes go to a bare remote, real SQLite, and the fake
// GitHub serving review threads over GraphQL. The poller and the TUI's
// services run in-process on the same GROVE_HOME. GitHub's failures:
// review-threads-failures.test.ts.

setUpReviewThreadsWorld();

describe('review threads: fetch and store', () => {
  it('the poller stores the unresolved threads with file, line, author and body, sanitized, and they outlast a restart', async () => {
    const session = await publishedSession();
    const first = github.addReviewThread(1, {
      path: 'hello.txt',
      line: 1,
      author: 'alice',
      body: 'Capitalise this.\nIt reads better.',
      replies: [{ author: 'bob', body: '+1' }],
    });
    github.addReviewThread(1, {
      path: 'hello.txt',
      line: 1,
      author: 'carol',
      body: 'Already done',
    }).isResolved = true;
    const second = github.addReviewThread(1, {
      path: 'README.md',
      line: 3,
      startLine: 1,
      author: 'mallory',
      body: 'Look \u001b[31mred\u001b[0m here',
    });
    const ctx = await controllerContext();

    await ctx.controller.review.pullRequests.poll();
    await closeDb();

    const stored = await store().store.reviewThreads.list(session.id);
    expect(stored.map((t) => t.id)).toEqual([first.id, second.id]);
    expect(stored[0]).toMatchObject({ path: 'hello.txt', line: 1, state: 'open', pullNumber: 1 });
    expect(stored[0]?.comments.map((c) => [c.author, c.body])).toEqual([
      ['alice', 'Capitalise this.\nIt reads better.'],
      ['bob', '+1'],
    ]);
    expect(stored[1]).toMatchObject({ path: 'README.md', line: 3, startLine: 1 });
    expect(stored[1]?.comments[0]?.body).not.toContain('\u001b');
    expect(stored[1]?.comments[0]?.body).toMatch(/^Look .+red.+ here$/);
  });

  it('grove threads lists them folded: location, author, first line and replies', async () => {
    const session = await publishedSession();
    const thread = github.addReviewThread(1, {
      path: 'hello.txt',
      line: 1,
      author: 'alice',
      body: 'Capitalise this.\nIt reads better.',
      replies: [{ author: 'bob', body: '+1' }],
    });

    const run = await grove(['threads', session.id]);

    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(
      `Pull request #1: 1 unresolved review thread\n${thread.id}  hello.txt:1  alice: Capitalise this.  (+1 reply)\n`,
    );
  });

  it('grove threads --json gives every comment of every thread', async () => {
    const session = await publishedSession();
    const thread = github.addReviewThread(1, {
      path: 'hello.txt',
      line: 1,
      author: 'alice',
      body: 'Capitalise this.',
    });

    const run = await grove(['threads', session.id, '--json']);

    expect(run.code).toBe(0);
    const list = JSON.parse(run.stdout) as {
      id: string;
      path: string;
      line: number;
      state: string;
      comments: { author: string; body: string }[];
    }[];
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({
      id: thread.id,
      path: 'hello.txt',
      line: 1,
      state: 'open',
      repliedCommit: null,
    });
    expect(list[0]?.comments).toEqual([
      expect.objectContaining({ author: 'alice', body: 'Capitalise this.' }),
    ]);
  });

  it('a thread resolved on GitHub leaves the list at the next fetch', async () => {
    const session = await publishedSession();
    const thread = github.addReviewThread(1, {
      path: 'hello.txt',
      line: 1,
      author: 'alice',
      body: 'Capitalise this.',
    });
    expect((await grove(['threads', session.id])).code).toBe(0);
    github.resolveThread(thread.id);

    const run = await grove(['threads', session.id]);

    expect(run.stdout).toBe('Pull request #1 has no unresolved review threads.\n');
    expect(await store().store.reviewThreads.list(session.id)).toEqual([]);
  });
});

describe('review threads: to the agent and back', () => {
  it('grove reply --threads sends file, line and comments as the turn, pushes, and answers each thread with the commit', async () => {
    const session = await publishedSession();
    const thread = github.addReviewThread(1, {
      path: 'hello.txt',
      line: 1,
      author: 'alice',
      body: 'Capitalise the greeting.',
      replies: [{ author: 'bob', body: 'And greet the world.' }],
    });
    scriptThreadsTurn();

    const run = await grove(['reply', session.id, '--threads']);

    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Capitalised the greeting and added the world.');
    // The prompt the agent got names the file and line and quotes every comment.
    const asked = JSON.stringify(model.modelRequests('anthropic').map((r) => r.body));
    expect(asked).toContain('hello.txt:1');
    expect(asked).toContain('> Capitalise the greeting.');
    expect(asked).toContain('> And greet the world.');
    // The change is pushed, and the thread answered with what changed and that commit.
    const after = await load(session.id);
    expect(git(repo, 'show', `${session.branch}:hello.txt`)).toBe('Hello, world!');
    expect(remoteHead(session.branch)).toBe(after.headCommit);
    const answer = github.thread(thread.id).comments.at(-1);
    expect(answer?.author).toBe('grove-tester');
    expect(answer?.body).toContain(`Addressed in ${after.headCommit?.slice(0, 12)}`);
    expect(answer?.body).toContain('Made the greeting in hello.txt friendlier.');
    // Not resolved without a person's yes.
    expect(github.thread(thread.id).isResolved).toBe(false);
    expect(await store().store.reviewThreads.list(session.id)).toEqual([
      expect.objectContaining({
        id: thread.id,
        state: 'answered',
        repliedCommit: after.headCommit,
      }),
    ]);
    expect(await transcript(session.id)).toContain(
      '[Review Threads] Replied on 1 review thread of pull request #1',
    );
  });

  it('grove threads --resolve resolves the answered threads on GitHub and keeps the others', async () => {
    const session = await publishedSession();
    const answered = github.addReviewThread(1, {
      path: 'hello.txt',
      line: 1,
      author: 'alice',
      body: 'Capitalise the greeting.',
    });
    scriptThreadsTurn();
    expect((await grove(['reply', session.id, '--threads'])).code).toBe(0);
    const later = github.addReviewThread(1, {
      path: 'hello.txt',
      line: 1,
      author: 'dave',
      body: 'One more thing.',
    });

    const run = await grove(['threads', session.id, '--resolve']);

    expect(run.code).toBe(0);
    expect(run.stdout).toBe(
      `Resolved 1 review thread on GitHub.\nPull request #1: 1 unresolved review thread\n${later.id}  hello.txt:1  dave: One more thing.\n`,
    );
    expect(github.thread(answered.id).isResolved).toBe(true);
    expect(github.thread(later.id).isResolved).toBe(false);
  });

  it('sends only the picked threads; after the turn the TUI asks before resolving them, and resolves on yes', async () => {
    const session = await publishedSession();
    const picked = github.addReviewThread(1, {
      path: 'hello.txt',
      line: 1,
      author: 'alice',
      body: 'Capitalise the greeting.',
    });
    const other = github.addReviewThread(1, {
      path: 'README.md',
      line: 2,
      author: 'bob',
      body: 'Unrelated remark.',
    });
    const ctx = await controllerContext();
    await ctx.controller.review.pullRequests.poll();
    scriptThreadsTurn();

    const queued = await queueThreadsTurn(ctx.controller.review.ctx, session.id, [picked.id]);
    if (!('operationId' in queued)) throw new Error(queued.refused);
    const outcome = await waitForOperation(ctx, session.id, queued.operationId, 60_000);
    ctx.app.drain();

    expect(outcome.outcome?.status).toBe('done');
    const asked = JSON.stringify(model.modelRequests('anthropic').map((r) => r.body));
    expect(asked).toContain('Capitalise the greeting.');
    expect(asked).not.toContain('Unrelated remark.');
    const popup = ctx.app.state.popup;
    expect(popup).toMatchObject({
      kind: 'confirm',
      title: 'Resolve 1 review thread on GitHub?',
      intent: { kind: 'resolveThreads', sessionId: session.id, threadIds: [picked.id] },
      yes: false,
    });
    expect(popup?.kind === 'confirm' ? popup.lines[0] : '').toContain(
      'hello.txt:1  alice: Capitalise the greeting.',
    );
    expect(github.thread(picked.id).isResolved).toBe(false);

    ctx.controller.resolveReviewThreads(session.id, [picked.id]);
    await expect.poll(() => github.thread(picked.id).isResolved, { timeout: 10_000 }).toBe(true);
    expect(github.thread(other.id).isResolved).toBe(false);
    expect(github.thread(other.id).comments).toHaveLength(1);
    await expect
      .poll(async () => (await store().store.reviewThreads.list(session.id)).map((t) => t.id), {
        timeout: 10_000,
      })
      .toEqual([other.id]);
  });

  it('a reviewer who writes again on an answered thread reopens it', async () => {
    const session = await publishedSession();
    const thread = github.addReviewThread(1, {
      path: 'hello.txt',
      line: 1,
      author: 'alice',
      body: 'Capitalise the greeting.',
    });
    scriptThreadsTurn();
    expect((await grove(['reply', session.id, '--threads'])).code).toBe(0);
    github.commentOnThread(thread.id, 'alice', 'Not quite: use a period.');

    const run = await grove(['threads', session.id, '--json']);

    expect((JSON.parse(run.stdout) as { state: string }[])[0]?.state).toBe('open');
  });

  it('x right after t waits for the fetch: a thread the reviewer just wrote on again is not offered, and y on an older question leaves it open', async () => {
    const session = await publishedSession();
    const thread = github.addReviewThread(1, {
      path: 'hello.txt',
      line: 1,
      author: 'alice',
      body: 'Capitalise the greeting.',
    });
    scriptThreadsTurn();
    expect((await grove(['reply', session.id, '--threads'])).code).toBe(0);
    const ctx = await controllerContext();
    const events: AppEvent[] = [];
    ctx.app.subscribe((event) => events.push(event));
    // The session view shows the stored threads: this one answered.
    await loadThreads(ctx.controller.review.ctx, session.id);
    ctx.app.drain();
    expect(ctx.app.state.reviewThreads[session.id]?.threads.map((t) => t.state)).toEqual([
      'answered',
    ]);
    github.commentOnThread(thread.id, 'alice', 'Not quite: use a period.');

    ctx.controller.refreshReviewThreads(session.id); // t
    ctx.controller.requestResolveThreads(session.id); // x at once

    await expect
      .poll(() =>
        events.some(
          (e) =>
            e.type === 'notice' &&
            e.notice?.text.startsWith('No answered review thread to resolve') === true,
        ),
      )
      .toBe(true);
    expect(events.filter((e) => e.type === 'threadsAnswered')).toEqual([]);

    // y on a question asked before the reviewer wrote again: GitHub is asked first.
    ctx.controller.resolveReviewThreads(session.id, [thread.id]);

    await expect
      .poll(() => transcript(session.id), { timeout: 10_000 })
      .toContain(
        '[Review Threads] Resolved 0 review threads on GitHub. Left 1 alone: changed on GitHub since Grove answered (a new comment, or resolved there).',
      );
    expect(github.thread(thread.id).isResolved).toBe(false);
    expect(github.thread(thread.id).comments.at(-1)?.body).toBe('Not quite: use a period.');
  });

  it('refuses to send when no thread is open, in words', async () => {
    const session = await publishedSession();

    const run = await grove(['reply', session.id, '--threads']);

    expect(run.code).toBe(1);
    expect(run.stderr).toBe('grove: The pull request has no unresolved review threads.\n');
  });

  it('a session without a pull request has no threads to list', async () => {
    model.script('anthropic', [
      {
        when: 'Create hello.txt',
        toolCall: { kind: 'write_file', path: 'hello.txt', content: 'hello\n' },
      },
      { when: 'Create hello.txt', text: reply('I created hello.txt.') },
    ]);
    const started = await grove(['run', '--output', 'json', 'Create hello.txt with a greeting']);
    const { sessionId } = JSON.parse(started.stdout) as { sessionId: string };

    const run = await grove(['threads', sessionId]);

    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /^grove: session [0-9a-f]{8} has no pull request; publish it first \(grove publish [0-9a-f]{8}\)\.\n$/,
    );
  });
});
