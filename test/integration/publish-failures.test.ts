import { execFileSync } from 'node:child_process';
import { chmodSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startFakeGitHub, type FailureRule } from '../helpers/fake-github/server.js';
import {
  RESET,
  bare,
  closeStore,
  controllerContext,
  github,
  grove,
  load,
  remoteHead,
  repo,
  store,
  transcript,
  world,
} from '../helpers/github-world.js';
import { git } from '../helpers/grove-env.js';
import { sessionAfterTurn, TOKEN, setUpPublishWorld } from '../helpers/publish-world.js';

// Publishing a session as a GitHub pull request when something fails: GitHub
// refusing, the network or the push, no token; where the token comes from and
// that it never reaches the log or the database. The world is publish.test.ts's.

setUpPublishWorld();

interface ErrorCase {
  readonly name: string;
  readonly rule: FailureRule;
  readonly message: RegExp;
  /** Whether the branch reaches the remote before GitHub refuses. */
  readonly pushed: boolean;
}

const ERROR_CASES: readonly ErrorCase[] = [
  {
    name: '401 bad credentials',
    rule: { kind: 'bad_credentials' },
    message: /GitHub rejected the token \(401\)/,
    pushed: false,
  },
  {
    name: '403 rate limited',
    rule: { kind: 'rate_limited', resetAt: RESET },
    message: /rate limit is used up; it resets at 17:45/,
    pushed: false,
  },
  {
    name: '403 missing scope',
    rule: { kind: 'missing_scope' },
    message:
      /GitHub refused \(403\): Resource not accessible by personal access token\. The token needs the `repo` scope/,
    pushed: false,
  },
  {
    name: '404 not found',
    rule: { kind: 'not_found' },
    message: /Repository acme\/widgets not found on GitHub/,
    pushed: false,
  },
  {
    name: '422 validation failed',
    rule: { kind: 'validation', method: 'POST', message: 'No commits between main and grove' },
    message:
      /GitHub did not accept the request: Validation Failed: No commits between main and grove/,
    pushed: true,
  },
  {
    name: '5xx server error',
    rule: { kind: 'server', status: 502 },
    message: /GitHub had a server error \(502\)/,
    pushed: false,
  },
];

describe('publish failures', () => {
  it.each(ERROR_CASES)(
    '$name: says so in words and leaves the session in Review, unpublished',
    async ({ rule, message, pushed }) => {
      const session = await sessionAfterTurn();
      github.fail(rule);

      const run = await grove(['publish', session.id]);
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(message);
      expect(run.stderr).not.toContain(TOKEN);

      const after = await load(session.id);
      expect(after.status).toBe('Review');
      expect(after.reviewRequest).toBeNull();
      expect(after.publishedBranch).toBeNull();
      expect(github.pulls).toHaveLength(0);
      expect(remoteHead(session.branch)).toBe(
        pushed ? git(repo, 'rev-parse', session.branch) : null,
      );
      expect(await transcript(session.id)).toMatch(message);
      // The work is intact.
      expect(git(repo, 'show', `${session.branch}:hello.txt`)).toBe('hello');

      // Once GitHub answers again, publishing works.
      github.clearFailures();
      const retry = await grove(['publish', session.id]);
      expect(retry.code).toBe(0);
      expect(github.pulls).toHaveLength(1);
    },
  );

  it('network down: says GitHub cannot be reached and pushes nothing', async () => {
    const session = await sessionAfterTurn();
    const closed = await startFakeGitHub({ token: TOKEN });
    await closed.stop();
    const run = await grove(['publish', session.id], { GROVE_GITHUB_API_URL: closed.url });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/Cannot reach GitHub.*check the network connection/);
    expect(remoteHead(session.branch)).toBeNull();
    expect((await load(session.id)).status).toBe('Review');
  });

  it("push rejected: gives the remote's reason and opens no pull request", async () => {
    const session = await sessionAfterTurn();
    const hook = join(bare, 'hooks', 'pre-receive');
    writeFileSync(hook, '#!/bin/sh\necho "error: pushes to acme/widgets are frozen" >&2\nexit 1\n');
    chmodSync(hook, 0o755);
    const run = await grove(['publish', session.id]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /The push to origin was rejected: pre-receive hook declined \(the remote says: pushes to acme\/widgets are frozen\)/,
    );
    expect(github.pulls).toHaveLength(0);
    const after = await load(session.id);
    expect(after.status).toBe('Review');
    expect(after.publishedBranch).toBeNull();
    expect(after.reviewRequest).toBeNull();
  });

  it.each([
    [
      'the base branch',
      'main',
      /"main" is the session's base branch: publishing to it would push the work straight into main, past review/,
    ],
    ['not a branch name', 'x..y', /"x\.\.y" is not a valid branch name/],
  ])(
    'refuses %s as the remote branch, in words, and pushes nothing',
    async (_, branch, message) => {
      const session = await sessionAfterTurn();
      const main = git(bare, 'rev-parse', 'main');

      const run = await grove(['publish', session.id, '--branch', branch]);

      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(message);
      expect(git(bare, 'rev-parse', 'main')).toBe(main);
      expect(remoteHead(session.branch)).toBeNull();
      expect(github.pulls).toHaveLength(0);
      const after = await load(session.id);
      expect(after.status).toBe('Review');
      expect(after.publishedBranch).toBeNull();

      // In the TUI, the branch typed after p is refused before anything is queued.
      const ctx = await controllerContext();
      ctx.controller.publish(session.id, branch);
      ctx.app.drain();
      expect(ctx.app.state.notice?.text).toMatch(message);
      expect(await store().store.operations.listUnfinished(session.id)).toEqual([]);
    },
  );

  it('with no token: says how to provide one and pushes nothing', async () => {
    const session = await sessionAfterTurn();
    const run = await grove(['publish', session.id], {
      GITHUB_TOKEN: undefined,
      GH_TOKEN: undefined,
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /No GitHub token: set GITHUB_TOKEN or GH_TOKEN, or sign in with `gh auth login`/,
    );
    expect(remoteHead(session.branch)).toBeNull();
    expect(github.requests).toHaveLength(0);
    const after = await load(session.id);
    expect(after.status).toBe('Review');
    expect(after.publishedBranch).toBeNull();
  });

  it('uses GH_TOKEN when GITHUB_TOKEN is not set', async () => {
    const session = await sessionAfterTurn();
    const run = await grove(['publish', session.id], { GITHUB_TOKEN: undefined, GH_TOKEN: TOKEN });
    expect(run.code).toBe(0);
    expect(github.requests.every((r) => r.authorization === `token ${TOKEN}`)).toBe(true);
  });
});

describe('the token from gh', () => {
  it('uses `gh auth token` for the repository host when neither variable is set', async () => {
    // A stand-in for the GitHub CLI on PATH (its real login needs the network).
    const calls = join(world.dir, 'gh-calls');
    writeFileSync(
      join(world.bin, 'gh'),
      `#!/bin/sh\necho "$*" >> '${calls}'\n[ "$1 $2" = "auth token" ] && echo '${TOKEN}' && exit 0\nexit 1\n`,
    );
    chmodSync(join(world.bin, 'gh'), 0o755);
    const session = await sessionAfterTurn();
    const run = await grove(['publish', session.id], {
      GITHUB_TOKEN: undefined,
      GH_TOKEN: undefined,
    });
    expect(run.code, run.stderr).toBe(0);
    expect(readFileSync(calls, 'utf8')).toContain('auth token --hostname github.com');
    expect(github.requests.length).toBeGreaterThan(0);
    expect(github.requests.every((r) => r.authorization === `token ${TOKEN}`)).toBe(true);
  });
});

describe('the token', () => {
  it('never reaches the log or the database', async () => {
    const session = await sessionAfterTurn();
    github.fail({ kind: 'bad_credentials', times: 1 });
    expect((await grove(['publish', session.id])).code).toBe(1);
    expect((await grove(['publish', session.id])).code).toBe(0);
    const ctx = await controllerContext();
    github.fail({ kind: 'server', times: 1 });
    await expect(ctx.controller.review.pullRequests.poll()).rejects.toThrow(/server error/);
    github.merge(1);
    await ctx.controller.review.pullRequests.poll();
    expect((await load(session.id)).status).toBe('Merged');
    await closeStore();

    const log = readFileSync(join(world.groveHome, 'logs', 'grove.log'), 'utf8');
    expect(log).toContain('token from GITHUB_TOKEN');
    expect(log).not.toContain(TOKEN);

    const dbDir = join(world.groveHome, 'db');
    const files = readdirSync(dbDir);
    expect(files).toContain('grove.db');
    for (const file of files)
      expect(readFileSync(join(dbDir, file)).includes(Buffer.from(TOKEN)), file).toBe(false);
    const dump = execFileSync('sqlite3', [join(dbDir, 'grove.db'), '.dump'], {
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    expect(dump).toContain('https://github.com/acme/widgets/pull/1');
    expect(dump).not.toContain(TOKEN);
  });
});
