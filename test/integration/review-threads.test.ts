import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AppEvent } from '../../src/app/events.js';
import { loadThreads, queueThreadsTurn } from '../../src/app/services/review/review-threads.js';
import {
  headlessContext,
  shutdownContexts,
  waitForOperation,
  type HeadlessContext,
} from '../../src/cli/headless.js';
import { openInfra, type Infra } from '../../src/compose.js';
import type { Session } from '../../src/domain/session.js';
import { agentEnv } from '../helpers/agent-env.js';
import {
  startFakeGitHub,
  startGitHubProject,
  type FailureRule,
  type FakeGitHub,
} from '../helpers/fake-github.js';
import { startFakeModelServer, type FakeModelServer } from '../helpers/fake-model/server.js';
import {
  GROVE_BIN,
  agentWorldEnv,
  git,
  makeWorld,
  snapshotWorld,
  type GroveWorld,
} from '../helpers/grove-env.js';

// Pull-request review threads of a published session, through the real
// layers: the built `grove` binary (run, publish, threads, reply --threads)
// with the real Claude Code CLI against the fake model server, a real
// repository whose pushes go to a bare remote, real SQLite, and the fake
// GitHub serving review threads over GraphQL. The poller and the TUI's
// services run in-process on the same GROVE_HOME.

const TOKEN = 'grove-secret-threads-5c1e';
const reply = (answer: string, turn = `turn: ${answer}`) =>
  JSON.stringify({ answer, questions: [], summary: { turn, session: `session: ${answer}` } });

let world: GroveWorld;
let repo: string;
let bare: string;
let model: FakeModelServer;
let github: FakeGitHub;
let env: Record<string, string>;
let infra: Infra | null = null;
/** The world after sessionWithWork (made once: a real Claude Code turn takes seconds), put back before each test. */
let snapshot: ReturnType<typeof snapshotWorld>;
let workId: string;

function worldEnv(): Record<string, string> {
  return {
    ...agentWorldEnv(world, agentEnv(model, world.home)),
    HOME: world.home,
    TZ: 'UTC',
    GITHUB_TOKEN: TOKEN,
    GROVE_GITHUB_API_URL: github.url,
    GH_CONFIG_DIR: join(world.home, 'gh-config'),
  };
}

async function closeAll(): Promise<void> {
  await shutdownContexts();
  await infra?.db.close();
  infra = null;
  await github.stop();
  await model.close();
}

beforeAll(async () => {
  world = makeWorld();
  ({ repo, bare, github } = await startGitHubProject(world, TOKEN));
  model = await startFakeModelServer();
  mkdirSync(join(world.home, 'gh-config'), { recursive: true });
  env = worldEnv();
  workId = await sessionWithWork();
  await closeAll();
  snapshot = snapshotWorld(world);
}, 120_000);

beforeEach(async () => {
  snapshot.restore();
  // Each test its own GitHub (no pull requests, no threads, no requests seen) and model server.
  github = await startFakeGitHub({ owner: 'acme', repo: 'widgets', token: TOKEN, bareRepo: bare });
  model = await startFakeModelServer();
  env = worldEnv();
});

afterEach(closeAll);

afterAll(() => {
  snapshot?.drop();
  world?.cleanup();
});

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

function grove(args: readonly string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [GROVE_BIN, ...args],
      { cwd: repo, env, timeout: 90_000 },
      (error, stdout, stderr) => {
        resolve({
          code: error ? (typeof error.code === 'number' ? error.code : 1) : 0,
          stdout,
          stderr,
        });
      },
    );
  });
}

function store(): Infra {
  infra ??= openInfra(env);
  return infra;
}

async function load(id: string): Promise<Session> {
  const session = await store().store.sessions.get(id);
  if (!session) throw new Error(`no session ${id}`);
  return session;
}

function controllerContext(): Promise<HeadlessContext> {
  const io = {
    stdout: new PassThrough(),
    stderr: new PassThrough(),
    stdin: new PassThrough(),
    stderrIsTTY: false,
    env,
    cwd: repo,
  };
  return headlessContext(store(), io, repo, false);
}

function remoteHead(branch: string): string | null {
  try {
    return execFileSync('git', ['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`], {
      cwd: bare,
      encoding: 'utf8',
    }).trim();
  } catch {
    return null;
  }
}

async function transcript(id: string): Promise<string> {
  return (await store().store.transcript.list(id)).map((e) => e.content).join('\n');
}

/** A session whose one turn wrote hello.txt (in beforeAll, kept in the snapshot); its id. */
async function sessionWithWork(): Promise<string> {
  model.script('anthropic', [
    { when: 'Write a title for a coding task', text: reply('Add a greeting file') },
    { when: 'Write the git commit message for the changes', text: reply('Add the greeting file') },
    {
      when: 'Create hello.txt',
      toolCall: { kind: 'write_file', path: 'hello.txt', content: 'hello\n' },
    },
    { when: 'Create hello.txt', text: reply('I created hello.txt.') },
  ]);
  const run = await grove(['run', '--output', 'json', 'Create hello.txt with a greeting']);
  expect(run.code).toBe(0);
  const { sessionId } = JSON.parse(run.stdout) as { sessionId: string };
  const session = await load(sessionId);
  expect(session.status).toBe('Review');
  expect(git(repo, 'show', `${session.branch}:hello.txt`)).toBe('hello');
  return sessionId;
}

/** The snapshot's session, published (pull request #1). */
async function publishedSession(): Promise<Session> {
  const published = await grove(['publish', workId]);
  expect(published.code).toBe(0);
  return load(workId);
}

/** The agent's turn on the threads: it edits hello.txt and says so. */
function scriptThreadsTurn(): void {
  model.script('anthropic', [
    {
      when: 'Write the git commit message for the changes',
      text: reply('Add a friendlier greeting file'),
    },
    {
      when: 'Reviewers left',
      toolCall: { kind: 'write_file', path: 'hello.txt', content: 'Hello, world!\n' },
    },
    {
      when: 'Reviewers left',
      text: reply(
        'Capitalised the greeting and added the world.',
        'Made the greeting in hello.txt friendlier.',
      ),
    },
  ]);
}

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
    await infra?.db.close();
    infra = null;

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

const RESET = Math.floor(Date.UTC(2031, 0, 1, 17, 45) / 1000);

interface ErrorCase {
  readonly name: string;
  readonly rule: FailureRule;
  readonly message: string | RegExp;
}

const FETCH_ERRORS: readonly ErrorCase[] = [
  {
    name: 'a token without permission (GraphQL FORBIDDEN)',
    rule: { kind: 'graphql_forbidden', path: /^\/graphql$/ },
    message:
      'grove: GitHub refused: Resource not accessible by personal access token. The token needs the `repo` scope (or pull-request write access) on acme/widgets.\n',
  },
  {
    name: 'a token without permission (HTTP 403)',
    rule: { kind: 'missing_scope', path: /^\/graphql$/ },
    message:
      'grove: GitHub refused (403): Resource not accessible by personal access token. The token needs the `repo` scope (or pull-request write access) on acme/widgets.\n',
  },
  {
    name: 'GitHub Enterprise without GraphQL (404)',
    rule: { kind: 'not_found', path: /^\/graphql$/ },
    message:
      /^grove: GitHub answered 404 at http:\/\/127\.0\.0\.1:\d+\/graphql: this server has no GraphQL API \(GitHub Enterprise Server without it\), which review threads need\. Publishing and following the pull request still work\.\n$/,
  },
  {
    name: 'a used-up rate limit (HTTP 403)',
    rule: { kind: 'rate_limited', path: /^\/graphql$/, resetAt: RESET },
    message: "grove: GitHub's rate limit is used up; it resets at 17:45. Try again then.\n",
  },
  {
    name: 'a used-up rate limit (GraphQL RATE_LIMITED)',
    rule: { kind: 'graphql_rate_limited', path: /^\/graphql$/, resetAt: RESET },
    message: "grove: GitHub's rate limit is used up; it resets at 17:45. Try again then.\n",
  },
];

describe('review threads: GitHub failures in words', () => {
  it.each(FETCH_ERRORS)(
    'grove threads says so for $name and lists what is stored',
    async ({ rule, message }) => {
      const session = await publishedSession();
      const thread = github.addReviewThread(1, {
        path: 'hello.txt',
        line: 1,
        author: 'alice',
        body: 'Capitalise this.',
      });
      expect((await grove(['threads', session.id])).code).toBe(0);
      github.fail(rule);

      const run = await grove(['threads', session.id]);

      expect(run.code).toBe(1);
      if (typeof message === 'string') expect(run.stderr).toBe(message);
      else expect(run.stderr).toMatch(message);
      expect(run.stdout).toBe(
        `Pull request #1: 1 unresolved review thread (as last fetched)\n${thread.id}  hello.txt:1  alice: Capitalise this.\n`,
      );
    },
  );

  it('the poller keeps following the pull request when threads cannot be fetched, and shows why', async () => {
    const session = await publishedSession();
    const ctx = await controllerContext();
    github.fail({ kind: 'not_found', path: /^\/graphql$/ });
    github.review(1, 'alice', 'APPROVED');

    await ctx.controller.review.pullRequests.poll();
    ctx.app.drain();

    expect((await load(session.id)).reviewRequest?.reviewDecision).toBe('approved');
    expect(ctx.app.state.reviewThreads[session.id]?.error).toMatch(/no GraphQL API/);
  });

  it('a reply GitHub refuses after the turn is noted in words and the thread stays open', async () => {
    const session = await publishedSession();
    const thread = github.addReviewThread(1, {
      path: 'hello.txt',
      line: 1,
      author: 'alice',
      body: 'Capitalise the greeting.',
    });
    scriptThreadsTurn();
    github.fail({ kind: 'graphql_forbidden', graphql: /addPullRequestReviewThreadReply/ });

    const run = await grove(['reply', session.id, '--threads']);

    expect(run.code).toBe(0);
    // The change itself is pushed; only the reply failed.
    expect(remoteHead(session.branch)).toBe((await load(session.id)).headCommit);
    expect(await transcript(session.id)).toContain(
      '[Review Threads Error] GitHub refused: Resource not accessible by personal access token. The token needs the `repo` scope',
    );
    expect(github.thread(thread.id).comments).toHaveLength(1);
    expect(await store().store.reviewThreads.list(session.id)).toEqual([
      expect.objectContaining({ id: thread.id, state: 'open' }),
    ]);
  });

  it('a push that fails after the turn leaves the threads unanswered and open', async () => {
    const session = await publishedSession();
    const thread = github.addReviewThread(1, {
      path: 'hello.txt',
      line: 1,
      author: 'alice',
      body: 'Capitalise the greeting.',
    });
    expect((await grove(['threads', session.id])).code).toBe(0);
    scriptThreadsTurn();
    // The pre-push check of the pull request fails: nothing is pushed.
    github.fail({ kind: 'bad_credentials', path: /\/pulls/ });

    const run = await grove(['reply', session.id, '--threads']);

    expect(run.code).toBe(0);
    expect(await transcript(session.id)).toContain(
      '[Review Threads] The change was not pushed, so the review threads were not answered on GitHub',
    );
    expect(github.thread(thread.id).comments).toHaveLength(1);
    expect((await store().store.reviewThreads.list(session.id))[0]?.state).toBe('open');
  });
});
