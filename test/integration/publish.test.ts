import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  bare,
  controllerContext,
  github,
  grove,
  load,
  model,
  remoteHead,
  repo,
  transcript,
} from '../helpers/github-world.js';
import { git } from '../helpers/grove-env.js';
import { LandSchema } from './headless-schema.js';
import {
  reply,
  sessionAfterTurn,
  sessionWithWork,
  TOKEN,
  setUpPublishWorld,
} from '../helpers/publish-world.js';

// Publishing a session as a GitHub pull request, through the real layers:
// the built `grove` binary (run, reply, publish, cancel) with the real Claude
// Code CLI against the fake model server, a real repository whose pushes go
// to a bare remote, and the fake GitHub REST server. The pull request poller
// runs in-process on the same GROVE_HOME, as the TUI runs it. Failures and
// the token: publish-failures.test.ts.

setUpPublishWorld();

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

    const again = await grove(['publish', session.id, '--branch', 'something-else', '--json']);
    expect(again.code).toBe(0);
    expect(LandSchema.parse(JSON.parse(again.stdout))).toEqual({
      sessionId: session.id,
      status: 'Review',
      branch: session.branch,
      baseBranch: 'main',
      commit: null,
      remoteBranch: 'feature/greeting',
      pullRequest: { number: 1, url: 'https://github.com/acme/widgets/pull/1', state: 'open' },
    });
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
    // Two answers left: one pull request with its reviews (a merged one's checks are not read).
    github.setRateLimitRemaining(2);
    const calls = github.requests.length;

    const waitUntil = await ctx.controller.review.pullRequests.poll();
    expect(waitUntil).toBe(github.rateLimitReset * 1000);
    expect(github.requests.length - calls).toBe(2);
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
