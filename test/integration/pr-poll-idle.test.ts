import { describe, expect, it } from 'vitest';
import type { GitHubRequest } from '../helpers/fake-github/server.js';
import { git } from '../helpers/grove-env.js';
import {
  bare,
  closeStore,
  controllerContext,
  github,
  load,
  store,
  workId,
} from '../helpers/github-world.js';
import { publishedSession, setUpReviewThreadsWorld } from '../helpers/review-threads-world.js';

// Idle polling of published sessions (issue 28): the pull request poller
// asks each pull request and its reviews with the ETags of the last answer,
// its head commit's checks likewise, and reads the review threads (GraphQL,
// no ETags) only when one of those moved. The first session is a real one
// (a Claude Code turn through the fake model, published by the built
// binary); the other 19 are copies of it written into the store as an
// earlier Grove would have, each with its own commit and pull request on the
// fake GitHub, which answers as GitHub does (ETags, 304 to If-None-Match).

setUpReviewThreadsWorld();

const SESSIONS = 20;

/** The 19 copies of the published session: each its own branch, commit and pull request. */
async function copies(): Promise<void> {
  const first = await load((await publishedSession()).id);
  const { store: s } = store();
  const sha = git(bare, 'rev-parse', `refs/heads/${first.reviewRequest?.headBranch ?? ''}`);
  for (let n = 2; n <= SESSIONS; n++) {
    const branch = `grove/copy-${n}`;
    const commit = git(bare, 'commit-tree', `${sha}^{tree}`, '-p', sha, '-m', `copy ${n}`);
    git(bare, 'update-ref', `refs/heads/${branch}`, commit);
    const pull = github.open({ head: branch, base: 'main', title: `Copy ${n}`, body: 'A copy.' });
    const id = `${first.id.slice(0, -4)}${String(n).padStart(4, '0')}`;
    const now = Date.now();
    await s.sessions.insert({
      id,
      projectId: first.projectId,
      title: `Copy ${n}`,
      status: 'Draft',
      baseBranch: first.baseBranch,
      branch,
      worktreePath: `${first.worktreePath}-copy-${n}`,
      agent: first.agent,
      model: first.model,
      reasoning: first.reasoning,
      createdAt: now,
      prompt: `Copy ${n}`,
    });
    await s.sessions.setStatus(id, 'InProgress', now);
    await s.sessions.setStatus(id, 'Review', now);
    await s.sessions.update(id, { publishedBranch: branch }, now);
    await s.reviewRequests.upsert(id, {
      number: pull.number,
      url: `https://github.com/acme/widgets/pull/${pull.number}`,
      state: 'open',
      isDraft: false,
      reviewDecision: null,
      headBranch: branch,
      baseBranch: 'main',
    });
  }
}

/** The pull request number a request is about (by its path, its sha or its GraphQL variables). */
function pullOf(request: GitHubRequest): number | null {
  const pulls = /\/pulls\/(\d+)(\/reviews)?$/.exec(request.path);
  if (pulls) return Number(pulls[1]);
  const commit = /\/commits\/([^/]+)\//.exec(request.path);
  if (commit) {
    const sha = decodeURIComponent(commit[1] ?? '');
    return github.pulls.find((p) => p.headSha === sha)?.number ?? null;
  }
  if (request.path === '/graphql') {
    const vars = (request.body as { variables?: { number?: unknown } } | null)?.variables;
    return typeof vars?.number === 'number' ? vars.number : null;
  }
  return null;
}

const route = (r: GitHubRequest): string =>
  r.path === '/graphql'
    ? 'graphql'
    : r.path.replace(/^\/repos\/acme\/widgets/, '').replace(/\/([0-9a-f]{40}|\d+)(?=\/|$)/g, '/N');

describe('idle polling of published sessions', () => {
  it('answers 20 idle pull requests with 304s only, and a change to one gets 200s for that one alone', async () => {
    await copies();
    const ctx = await controllerContext();
    const { projectId } = await load(workId);
    const sessions = await ctx.infra.store.sessions.listWithReviewRequest(projectId);
    expect(sessions.filter((s) => s.status === 'Review')).toHaveLength(SESSIONS);

    // The first round reads everything.
    let mark = github.requests.length;
    expect(await ctx.controller.review.pullRequests.poll()).toBeNull();
    const first = github.requests.slice(mark);
    expect(new Set(first.map(pullOf))).toEqual(
      new Set(Array.from({ length: SESSIONS }, (_, i) => i + 1)),
    );
    expect(first.filter((r) => route(r) === 'graphql')).toHaveLength(SESSIONS);

    // Nothing changed: every answer of the next rounds is a 304, and no thread is read.
    mark = github.requests.length;
    await ctx.controller.review.pullRequests.poll();
    await ctx.controller.review.pullRequests.poll();
    const idle = github.requests.slice(mark);
    expect(idle).toHaveLength(SESSIONS * 4 * 2);
    expect(idle.filter((r) => r.status !== 304).map((r) => [route(r), r.status])).toEqual([]);
    expect(new Set(idle.map(route))).toEqual(
      new Set(['/pulls/N', '/pulls/N/reviews', '/commits/N/check-runs', '/commits/N/status']),
    );
    expect(idle.every((r) => typeof r.headers['if-none-match'] === 'string')).toBe(true);

    // The ETags are kept in the store: a Grove started again is idle at once.
    await closeStore();
    const again = await controllerContext();
    mark = github.requests.length;
    await again.controller.review.pullRequests.poll();
    expect(github.requests.slice(mark).filter((r) => r.status !== 304)).toEqual([]);

    // On GitHub: a review on #5, a push to #9, a check on #13, a review comment on #17.
    github.review(5, 'alice', 'CHANGES_REQUESTED');
    const pushed = github.pull(9);
    const next = git(
      bare,
      'commit-tree',
      `${pushed.headSha}^{tree}`,
      '-p',
      pushed.headSha,
      '-m',
      'more',
    );
    git(bare, 'update-ref', `refs/heads/${pushed.head}`, next);
    github.setCheckRuns(github.pull(13).headSha, [
      { name: 'test', status: 'in_progress', conclusion: null },
    ]);
    github.addReviewThread(17, { path: 'hello.txt', line: 1, author: 'bob', body: 'Why?' });
    mark = github.requests.length;
    await again.controller.review.pullRequests.poll();
    const changed = github.requests.slice(mark);
    const ok = changed.filter((r) => r.status === 200).map((r) => [pullOf(r), route(r)]);
    expect(new Set(ok.map(([pull]) => pull))).toEqual(new Set([5, 9, 13, 17]));
    expect(ok).toEqual(
      expect.arrayContaining([
        // A new review: its reviews and threads (and the pull request, whose updated_at moved).
        [5, '/pulls/N/reviews'],
        [5, 'graphql'],
        // A push: the pull request, its threads, and the new head's checks (no ETags yet).
        [9, '/pulls/N'],
        [9, '/commits/N/check-runs'],
        [9, '/commits/N/status'],
        [9, 'graphql'],
        // A check: its check runs alone.
        [13, '/commits/N/check-runs'],
        // A review comment: the pull request (review_comments moved) and its threads.
        [17, '/pulls/N'],
        [17, 'graphql'],
      ]),
    );
    expect(ok.filter(([pull]) => pull === 13)).toEqual([[13, '/commits/N/check-runs']]);
    expect(ok.filter(([pull]) => pull === 17)).toHaveLength(2);
    expect(ok.filter(([pull, r]) => pull === 5 && r !== '/pulls/N')).toHaveLength(2);
    expect(changed.filter((r) => r.status !== 200 && r.status !== 304)).toEqual([]);
    const bySession = new Map(
      (await again.infra.store.sessions.listWithReviewRequest(projectId)).map((s) => [
        s.reviewRequest?.number,
        s,
      ]),
    );
    expect(bySession.get(5)?.reviewRequest?.reviewDecision).toBe('changes_requested');
    expect(
      (await again.infra.store.pullRequestChecks.get(bySession.get(9)?.id ?? ''))?.headSha,
    ).toBe(next);
    expect(bySession.get(13)?.reviewRequest?.checksState).toBe('pending');
    expect(await again.infra.store.reviewThreads.list(bySession.get(17)?.id ?? '')).toHaveLength(1);

    // And idle again.
    mark = github.requests.length;
    await again.controller.review.pullRequests.poll();
    expect(github.requests.slice(mark).filter((r) => r.status !== 304)).toEqual([]);
  }, 180_000);
});
