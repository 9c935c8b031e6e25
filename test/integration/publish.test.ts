import { execFile, execFileSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { headlessContext, shutdownContexts, type HeadlessContext } from '../../src/cli/headless.js';
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

// Publishing a session as a GitHub pull request, through the real layers:
// the built `grove` binary (run, reply, publish, cancel) with the real Claude
// Code CLI against the fake model server, a real repository whose pushes go
// to a bare remote, and the fake GitHub REST server. The pull request poller
// runs in-process on the same GROVE_HOME, as the TUI runs it.

// Not shaped like a GitHub token, so only Grove's own handling keeps it out of files.
const TOKEN = 'grove-secret-7f3a9c21d4e8b605';

const reply = (answer: string, session = `session: ${answer}`) =>
  JSON.stringify({ answer, questions: [], summary: { turn: `turn: ${answer}`, session } });

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
    // A `gh` on this machine must not hand Grove a real token.
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
  workId = (await sessionWithWork()).id;
  await closeAll();
  snapshot = snapshotWorld(world);
}, 120_000);

beforeEach(async () => {
  snapshot.restore();
  // Each test its own GitHub (no pull requests, no requests seen) and model server.
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

/** The built binary as a child process (asynchronously: the fake servers live in this process). */
function grove(
  args: readonly string[],
  extraEnv: Record<string, string | undefined> = {},
): Promise<Run> {
  const merged: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...env, ...extraEnv })) if (v !== undefined) merged[k] = v;
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [GROVE_BIN, ...args],
      { cwd: repo, env: merged, timeout: 90_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** A session with one finished turn that wrote hello.txt. */
async function sessionWithWork(): Promise<Session> {
  model.script('anthropic', [
    { when: 'Write a title for a coding task', text: reply('Add a greeting file') },
    {
      when: 'Write the git commit message for the changes',
      text: reply('Add the greeting files\n\nCreates hello.txt for the greeting.'),
    },
    {
      when: 'Create hello.txt',
      toolCall: { kind: 'write_file', path: 'hello.txt', content: 'hello\n' },
    },
    {
      when: 'Create hello.txt',
      text: reply('I created hello.txt.', 'Created hello.txt with a greeting.'),
    },
  ]);
  const run = await grove(['run', '--output', 'json', 'Create hello.txt with a greeting']);
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  const { sessionId } = JSON.parse(run.stdout) as { sessionId: string };
  const session = await load(sessionId);
  expect(session.status).toBe('Review');
  expect(git(repo, 'show', `${session.branch}:hello.txt`)).toBe('hello');
  return session;
}

/** The session of sessionWithWork, from the snapshot: every test starts from it. */
async function sessionAfterTurn(): Promise<Session> {
  const session = await load(workId);
  expect(session.status).toBe('Review');
  expect(git(repo, 'show', `${session.branch}:hello.txt`)).toBe('hello');
  return session;
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

/** A controller on the same GROVE_HOME, as the TUI builds it (for the pull request poller). */
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

describe('publish to GitHub', () => {
  it('pushes the branch with an upstream and opens a draft pull request; a second publish refreshes it', async () => {
    const session = await sessionAfterTurn();

    const first = await grove(['publish', session.id]);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout.trim()).toBe('Review https://github.com/acme/widgets/pull/1');

    // The branch is on the remote, and the local branch tracks it.
    expect(remoteHead(session.branch)).toBe(git(repo, 'rev-parse', session.branch));
    expect(git(repo, 'config', `branch.${session.branch}.remote`)).toBe('origin');
    expect(git(repo, 'config', `branch.${session.branch}.merge`)).toBe(
      `refs/heads/${session.branch}`,
    );

    expect(github.pulls).toHaveLength(1);
    const pr = github.pull(1);
    expect(pr).toMatchObject({
      state: 'open',
      draft: true,
      head: session.branch,
      base: 'main',
      title: 'Add the greeting files',
    });
    expect(pr.body).toContain('Creates hello.txt for the greeting.');
    expect(pr.body).toContain('Created hello.txt with a greeting.');
    expect(github.requests.length).toBeGreaterThan(0);
    for (const request of github.requests) expect(request.authorization).toBe(`token ${TOKEN}`);

    const stored = await load(session.id);
    expect(stored.status).toBe('Review');
    expect(stored.publishedBranch).toBe(session.branch);
    expect(stored.reviewRequest).toMatchObject({
      number: 1,
      url: 'https://github.com/acme/widgets/pull/1',
      state: 'open',
      isDraft: true,
      headBranch: session.branch,
      baseBranch: 'main',
    });

    // A session with a pull request is merged on GitHub, not by the local merge queue.
    const merge = await grove(['merge', session.id]);
    expect(merge.code).toBe(1);
    expect(merge.stderr).toMatch(/pull request #1; merge it on GitHub/);
    expect(git(repo, 'rev-list', '--count', 'main')).toBe('1');

    const second = await grove(['publish', session.id]);
    expect(second.code).toBe(0);
    expect(second.stdout.trim()).toBe('Review https://github.com/acme/widgets/pull/1');
    expect(github.apiCalls('POST', /\/pulls$/)).toHaveLength(1);
    expect(github.pulls).toHaveLength(1);
    expect(await transcript(session.id)).toContain('[Review Request] Pushed');
  });

  it('publishes under the branch name given, and keeps that name afterwards', async () => {
    const session = await sessionAfterTurn();
    const first = await grove(['publish', session.id, '--branch', 'feature/greeting']);
    expect(first.code).toBe(0);
    expect(remoteHead('feature/greeting')).toBe(git(repo, 'rev-parse', session.branch));
    expect(remoteHead(session.branch)).toBeNull();
    expect(github.pull(1).head).toBe('feature/greeting');

    const again = await grove(['publish', session.id, '--branch', 'something-else']);
    expect(again.code).toBe(0);
    expect(remoteHead('something-else')).toBeNull();
    expect(github.pulls).toHaveLength(1);
  });

  it('pushes again after a later turn and refreshes only what was not edited on GitHub', async () => {
    const session = await sessionAfterTurn();
    expect((await grove(['publish', session.id])).code).toBe(0);
    const before = remoteHead(session.branch);
    github.edit(1, { title: 'My own title' });

    model.script('anthropic', [
      {
        when: 'Write the git commit message for the changes',
        text: reply('Add the greeting files\n\nCreates hello.txt and bye.txt.'),
      },
      {
        when: 'Also add bye.txt',
        toolCall: { kind: 'write_file', path: 'bye.txt', content: 'bye\n' },
      },
      {
        when: 'Also add bye.txt',
        text: reply('Added bye.txt too.', 'Greeting and farewell files.'),
      },
    ]);
    const turn = await grove(['reply', session.id, 'Also add bye.txt']);
    expect(turn.code).toBe(0);

    // The amended commit is on the remote (a forced push, with the lease).
    const after = remoteHead(session.branch);
    expect(after).not.toBe(before);
    expect(after).toBe(git(repo, 'rev-parse', session.branch));
    expect(
      execFileSync('git', ['show', `${session.branch}:bye.txt`], { cwd: bare, encoding: 'utf8' }),
    ).toBe('bye\n');

    const pr = github.pull(1);
    expect(pr.title).toBe('My own title');
    expect(pr.body).toContain('Creates hello.txt and bye.txt.');
    expect(pr.body).toContain('Greeting and farewell files.');
    const patches = github.apiCalls('PATCH', /\/pulls\/1$/);
    expect(patches).toHaveLength(1);
    expect(Object.keys(patches[0]?.body as object)).toEqual(['body']);
    expect(github.apiCalls('POST', /\/pulls$/)).toHaveLength(1);
    expect(await transcript(session.id)).toContain('[Branch Push] Pushed');

    // The body Grove wrote is now the one it refreshes; an edit of it on GitHub is kept too.
    github.edit(1, { body: 'Hand-written description' });
    model.script('anthropic', [
      {
        when: 'Write the git commit message for the changes',
        text: reply('Add three files\n\nCreates hello.txt, bye.txt and hi.txt.'),
      },
      {
        when: 'Also add hi.txt',
        toolCall: { kind: 'write_file', path: 'hi.txt', content: 'hi\n' },
      },
      { when: 'Also add hi.txt', text: reply('Added hi.txt.') },
    ]);
    expect((await grove(['reply', session.id, 'Also add hi.txt'])).code).toBe(0);
    expect(remoteHead(session.branch)).toBe(git(repo, 'rev-parse', session.branch));
    expect(github.pull(1)).toMatchObject({
      title: 'My own title',
      body: 'Hand-written description',
    });
  });

  it('pushes after a later turn that ends in questions too', async () => {
    const session = await sessionAfterTurn();
    expect((await grove(['publish', session.id])).code).toBe(0);
    const before = remoteHead(session.branch);
    const asking = JSON.stringify({
      answer: 'Added a draft of bye.txt.',
      questions: [{ text: 'Formal or casual?', options: ['Formal', 'Casual'] }],
      summary: { turn: 'Drafted bye.txt.', session: 'Greeting files.' },
    });
    model.script('anthropic', [
      { when: 'Add bye.txt', toolCall: { kind: 'write_file', path: 'bye.txt', content: 'bye\n' } },
      { when: 'Add bye.txt', text: asking },
    ]);
    const turn = await grove(['reply', session.id, 'Add bye.txt']);
    expect(turn.code).toBe(3);
    expect((await load(session.id)).status).toBe('Question');
    const after = remoteHead(session.branch);
    expect(after).not.toBe(before);
    expect(
      execFileSync('git', ['show', `${session.branch}:bye.txt`], { cwd: bare, encoding: 'utf8' }),
    ).toBe('bye\n');
    expect(await transcript(session.id)).toContain('[Branch Push] Pushed');
  });

  it('reports a failed automatic push after a turn without failing the turn', async () => {
    const session = await sessionAfterTurn();
    expect((await grove(['publish', session.id])).code).toBe(0);
    const before = remoteHead(session.branch);
    github.fail({ kind: 'bad_credentials' });

    model.script('anthropic', [
      {
        when: 'Also add bye.txt',
        toolCall: { kind: 'write_file', path: 'bye.txt', content: 'bye\n' },
      },
      { when: 'Also add bye.txt', text: reply('Added bye.txt too.') },
    ]);
    const turn = await grove(['reply', session.id, 'Also add bye.txt']);
    expect(turn.code).toBe(0);
    expect(await transcript(session.id)).toMatch(
      /\[Branch Push Error\] GitHub rejected the token \(401\)/,
    );
    expect(remoteHead(session.branch)).toBe(before);
    const after = await load(session.id);
    expect(after.status).toBe('Review');
    expect(after.reviewRequest?.number).toBe(1);
    expect(git(repo, 'show', `${session.branch}:bye.txt`)).toBe('bye');
  });

  it('adopts a pull request a person opened for the branch, and never rewrites its text', async () => {
    const session = await sessionAfterTurn();
    git(repo, 'push', '-q', 'origin', session.branch);
    github.open({
      head: session.branch,
      base: 'main',
      title: 'Greeting',
      body: 'Written by a person.',
    });

    const run = await grove(['publish', session.id]);
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toBe('Review https://github.com/acme/widgets/pull/1');
    expect(github.apiCalls('POST', /\/pulls$/)).toHaveLength(0);

    model.script('anthropic', [
      {
        when: 'Write the git commit message for the changes',
        text: reply('Add two files\n\nCreates hello.txt and bye.txt.'),
      },
      {
        when: 'Also add bye.txt',
        toolCall: { kind: 'write_file', path: 'bye.txt', content: 'bye\n' },
      },
      { when: 'Also add bye.txt', text: reply('Added bye.txt too.') },
    ]);
    expect((await grove(['reply', session.id, 'Also add bye.txt'])).code).toBe(0);
    expect(remoteHead(session.branch)).toBe(git(repo, 'rev-parse', session.branch));
    expect(github.apiCalls('PATCH')).toHaveLength(0);
    expect(github.pull(1)).toMatchObject({ title: 'Greeting', body: 'Written by a person.' });
  });

  it('follows the pull request: reviews and checks are kept; merged on GitHub moves the session to Merged', async () => {
    const session = await sessionAfterTurn();
    expect((await grove(['publish', session.id])).code).toBe(0);
    const ctx = await controllerContext();

    github.review(1, 'alice', 'APPROVED');
    github.setCheckRuns(git(repo, 'rev-parse', session.branch), [
      { name: 'build', status: 'completed', conclusion: 'success' },
      { name: 'lint', status: 'in_progress', conclusion: null },
    ]);
    await ctx.controller.review.pullRequests.poll();
    const refreshed = await load(session.id);
    expect(refreshed.status).toBe('Review');
    expect(refreshed.reviewRequest).toMatchObject({
      state: 'open',
      reviewDecision: 'approved',
      checksSummary: '1 passed, 1 pending',
    });

    github.merge(1);
    await ctx.controller.review.pullRequests.poll();
    const merged = await load(session.id);
    expect(merged.status).toBe('Merged');
    expect(merged.reviewRequest?.state).toBe('merged');
    expect(await transcript(session.id)).toContain('Pull request #1 was merged on GitHub');

    // A merged session is read-only: publishing it again is refused in words.
    const again = await grove(['publish', session.id]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/A Merged session cannot be published/);

    // Syncing the base branch then finishes it: Done, worktree and local branch removed.
    await ctx.controller.review.finishMerged(ctx.project.id, 'main');
    expect((await load(session.id)).status).toBe('Done');
    expect(existsSync(session.worktreePath)).toBe(false);
    expect(git(repo, 'branch', '--list', session.branch)).toBe('');
  });

  it('follows the pull request: closed cancels the session and keeps its branch; reopened brings it back', async () => {
    const session = await sessionAfterTurn();
    expect((await grove(['publish', session.id])).code).toBe(0);
    const ctx = await controllerContext();

    github.close(1);
    await ctx.controller.review.pullRequests.poll();
    const closed = await load(session.id);
    expect(closed.status).toBe('Canceled');
    expect(closed.keptBranch).toBe(session.branch);
    expect(closed.reviewRequest?.state).toBe('closed');
    expect(git(repo, 'rev-parse', '--verify', session.branch)).toMatch(/^[0-9a-f]{40}$/);

    github.reopen(1);
    await ctx.controller.review.pullRequests.poll();
    const reopened = await load(session.id);
    expect(reopened.status).toBe('Review');
    expect(reopened.keptBranch).toBeNull();
    expect(reopened.reviewRequest?.state).toBe('open');
  });

  it('does not bring back a session canceled in Grove while its pull request stays open', async () => {
    const session = await sessionAfterTurn();
    expect((await grove(['publish', session.id])).code).toBe(0);
    const cancel = await grove(['cancel', session.id, '--yes']);
    expect(cancel.code).toBe(0);
    expect((await load(session.id)).status).toBe('Canceled');

    const ctx = await controllerContext();
    await ctx.controller.review.pullRequests.poll();
    expect((await load(session.id)).status).toBe('Canceled');
  });

  it('stops refreshing when the rate-limit headers say the budget is used up, and says when to resume', async () => {
    const first = await sessionAfterTurn();
    expect((await grove(['publish', first.id])).code).toBe(0);
    const second = await sessionWithWork();
    expect((await grove(['publish', second.id, '--branch', 'second'])).code).toBe(0);
    const ctx = await controllerContext();
    github.merge(1);
    github.merge(2);
    // Three answers left: one pull request with its reviews and checks.
    github.setRateLimitRemaining(3);
    const calls = github.requests.length;

    const waitUntil = await ctx.controller.review.pullRequests.poll();
    expect(waitUntil).toBe(github.rateLimitReset * 1000);
    expect(github.requests.length - calls).toBe(3);
    const statuses = [(await load(first.id)).status, (await load(second.id)).status].sort();
    expect(statuses).toEqual(['Merged', 'Review']);
  });

  it('reports a rate limit met by the poller with its reset time and changes nothing', async () => {
    const session = await sessionAfterTurn();
    expect((await grove(['publish', session.id])).code).toBe(0);
    const ctx = await controllerContext();
    const reset = Math.floor(Date.UTC(2031, 0, 1, 17, 45) / 1000);
    github.fail({ kind: 'rate_limited', resetAt: reset });
    github.merge(1);

    await expect(ctx.controller.review.pullRequests.poll()).rejects.toThrow(
      /rate limit.*resets at/i,
    );
    expect((await load(session.id)).status).toBe('Review');
  });
});

interface ErrorCase {
  readonly name: string;
  readonly rule: FailureRule;
  readonly message: RegExp;
  /** Whether the branch reaches the remote before GitHub refuses. */
  readonly pushed: boolean;
}

const RESET = Math.floor(Date.UTC(2031, 0, 1, 17, 45) / 1000);

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
    await shutdownContexts();
    await infra?.db.close();
    infra = null;

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
