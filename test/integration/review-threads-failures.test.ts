import { describe, expect, it } from 'vitest';
import type { FailureRule } from '../helpers/fake-github/server.js';
import {
  RESET,
  controllerContext,
  github,
  grove,
  load,
  remoteHead,
  store,
  transcript,
} from '../helpers/github-world.js';
import {
  publishedSession,
  scriptThreadsTurn,
  setUpReviewThreadsWorld,
} from '../helpers/review-threads-world.js';

// Review threads when GitHub refuses: fetching them (permissions, no GraphQL,
// rate limits), the poller going on without them, a refused reply and a
// failed push after the threads turn. The world is review-threads.test.ts's.

setUpReviewThreadsWorld();

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
