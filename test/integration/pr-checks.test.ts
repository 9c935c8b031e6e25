import { createElement } from 'react';
import { renderToString } from 'ink';
import { describe, expect, it } from 'vitest';
import type { AppState } from '../../src/app/state.js';
import { Root } from '../../src/ui/Root.js';
import { createTheme } from '../../src/ui/theme.js';
import type { GitHubRequest } from '../helpers/fake-github/server.js';
import { controllerContext, github, grove, load } from '../helpers/github-world.js';
import { publishedSession, setUpReviewThreadsWorld } from '../helpers/review-threads-world.js';
import { ShowSchema } from './headless-schema.js';

// The checks of a published session's pull request (issue 28, item 2),
// through the real layers: the session's turn ran with the real Claude Code
// CLI against the fake model, `grove publish` (the built binary) opened the
// pull request on the fake GitHub, the pull request poller (in-process, on
// the same GROVE_HOME) follows the head commit's check runs and commit
// statuses with ETags, and `grove show --json` reads what it stored. The
// world is review-threads.test.ts's.

setUpReviewThreadsWorld();

const CHECK_ROUTES = /\/commits\/[^/]+\/(check-runs|status|statuses)$|\/actions\/jobs\/\d+\/logs$/;
const checkRequests = (): GitHubRequest[] =>
  github.requests.filter((r) => CHECK_ROUTES.test(r.path) || r.path.startsWith('/_downloads/'));

/** A failing job's log as CI writes it: timestamps, colours, a title, a clipboard write, 120 lines. */
function failingLog(): string {
  const lines: string[] = [];
  for (let i = 1; i <= 115; i++)
    lines.push(
      `2026-12-01T10:00:${String(i % 60).padStart(2, '0')}.1234567Z \u001b[36mstep ${i}\u001b[0m ok`,
    );
  lines.push(
    '2026-12-01T10:01:00.0000000Z \u001b]0;pwned title\u0007\u001b]52;c;cm0gLXJmIH4=\u0007clipboard',
  );
  lines.push('2026-12-01T10:01:01.0000000Z downloading 10%\r downloading 100%');
  lines.push(
    '2026-12-01T10:01:02.0000000Z \u001b[2J\u001b[Hcleared \u001b[1;31mFAIL\u001b[0m test/math.test.ts',
  );
  lines.push('2026-12-01T10:01:03.0000000Z bell\u0007 and \u009b31m8-bit CSI');
  lines.push('2026-12-01T10:01:04.0000000Z ##[error]Error: expected 2 to be 3');
  return `${lines.join('\r\n')}\r\n`;
}

function row(state: AppState, title: string): string {
  const frame = renderToString(
    createElement(Root, {
      state: { ...state, columns: 160 },
      theme: createTheme({ NO_COLOR: '1' }),
      home: undefined,
    }),
    { columns: 160 },
  );
  return frame.split('\n').find((l) => l.includes(title)) ?? '';
}

describe('pull request checks', () => {
  it('a failing check run shows as a badge and its job log tail, sanitized and capped, in grove show --json; idle polls are answered 304', async () => {
    const session = await publishedSession();
    const sha = github.pull(1).headSha;
    github.setCheckRuns(sha, [
      { name: 'test', status: 'completed', conclusion: 'failure', log: failingLog() },
      { name: 'lint', status: 'completed', conclusion: 'success', log: 'all fine\n' },
    ]);
    github.setCommitStatuses(sha, [{ context: 'ci/deploy', state: 'pending' }]);
    const ctx = await controllerContext();

    expect(await ctx.controller.review.pullRequests.poll()).toBeNull();

    // The badge: stored with the session, drawn on its list row.
    const stored = await load(session.id);
    expect(stored.reviewRequest).toMatchObject({
      checksState: 'failing',
      checksSummary: '1 passed, 1 failed, 1 pending',
    });
    ctx.app.drain();
    expect(row(ctx.app.state, session.title)).toContain('[checks failing]');
    // GitHub's redirect, then the plain-text download, for the failing job only.
    const testRun = 8001;
    expect(
      checkRequests()
        .filter((r) => r.path.includes('logs'))
        .map((r) => [r.path.replace(/\d+/, 'ID'), r.status]),
    ).toEqual([
      [`/repos/acme/widgets/actions/jobs/ID/logs`, 302],
      [`/_downloads/job-logs/ID`, 200],
    ]);
    expect(checkRequests().find((r) => r.path.endsWith('/logs'))?.path).toContain(`/${testRun}/`);

    // grove show --json: every check, and the failing one's log tail.
    const shown = await grove(['show', session.id, '--json']);
    expect(shown.code).toBe(0);
    const checks = ShowSchema.parse(JSON.parse(shown.stdout)).checks;
    expect(checks).toMatchObject({ headSha: sha, state: 'failing', error: null });
    expect(checks?.items.map((c) => [c.kind, c.name, c.state, c.conclusion])).toEqual([
      ['check_run', 'test', 'failing', 'failure'],
      ['check_run', 'lint', 'passing', 'success'],
      ['status', 'ci/deploy', 'pending', 'pending'],
    ]);
    expect(checks?.items[1]?.logTail).toBeNull();
    const tail = checks?.items[0]?.logTail ?? '';
    const lines = tail.split('\n');
    expect(lines).toHaveLength(40);
    expect(Buffer.byteLength(tail, 'utf8')).toBeLessThanOrEqual(4096);
    expect(lines.at(-1)).toBe('##[error]Error: expected 2 to be 3');
    expect(lines.at(-5)).toBe('clipboard');
    expect(lines.at(-4)).toBe(' downloading 100%');
    expect(lines.at(-3)).toBe('cleared FAIL test/math.test.ts');
    expect(lines[0]).toBe('step 81 ok');
    // No escape, no control character and no CI timestamp reaches the screen.
    // eslint-disable-next-line no-control-regex
    expect(tail).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    expect(tail).not.toMatch(/2026-12-01T/);
    // Escapes are taken out; a lone control character is shown as its picture.
    expect(lines.at(-2)).toBe('bell␇ and 8-bit CSI');

    // Nothing changed on GitHub: the next polls are answered 304, none with 200.
    const before = checkRequests().length;
    await ctx.controller.review.pullRequests.poll();
    await ctx.controller.review.pullRequests.poll();
    const idle = checkRequests().slice(before);
    expect(idle.map((r) => [r.path.replace(/.*\/commits\/[^/]+/, ''), r.status])).toEqual([
      ['/check-runs', 304],
      ['/status', 304],
      ['/check-runs', 304],
      ['/status', 304],
    ]);
    expect(idle.every((r) => typeof r.headers['if-none-match'] === 'string')).toBe(true);
    // The refresh of the pull request itself leaves the stored checks alone.
    expect((await load(session.id)).reviewRequest).toMatchObject({
      checksState: 'failing',
      checksSummary: '1 passed, 1 failed, 1 pending',
    });

    // A status that changes is read again (200), the check runs stay 304, the log is not read again.
    github.setCommitStatuses(sha, [{ context: 'ci/deploy', state: 'success' }]);
    const mark = checkRequests().length;
    await ctx.controller.review.pullRequests.poll();
    expect(
      checkRequests()
        .slice(mark)
        .map((r) => [r.path.replace(/.*\/commits\/[^/]+/, ''), r.status]),
    ).toEqual([
      ['/check-runs', 304],
      ['/status', 200],
    ]);
    expect((await load(session.id)).reviewRequest?.checksSummary).toBe('2 passed, 1 failed');
    ctx.app.drain();
    expect(ctx.app.state.pullRequestChecks[session.id]?.checks[0]?.logTail).toBe(tail);

    // The run is fixed on GitHub: the badge says so.
    github.setCheckRuns(sha, [
      { name: 'test', status: 'completed', conclusion: 'success' },
      { name: 'lint', status: 'completed', conclusion: 'success' },
    ]);
    await ctx.controller.review.pullRequests.poll();
    ctx.app.drain();
    expect((await load(session.id)).reviewRequest?.checksState).toBe('passing');
    expect(row(ctx.app.state, session.title)).toContain('[checks passed]');
  });

  it('backs off on a secondary rate limit for as long as retry-after says, and the rest of the pull request poll goes on', async () => {
    const session = await publishedSession();
    const sha = github.pull(1).headSha;
    github.setCheckRuns(sha, [{ name: 'test', status: 'in_progress', conclusion: null }]);
    github.addReviewThread(1, { path: 'hello.txt', line: 1, author: 'alice', body: 'Capitalise.' });
    github.fail({
      kind: 'secondary_rate_limited',
      path: /\/check-runs$/,
      retryAfter: 120,
      times: 1,
    });
    const ctx = await controllerContext();

    const started = Date.now();
    const wait = await ctx.controller.review.pullRequests.poll();

    // retry-after (2 minutes), not the primary limit's reset an hour away.
    expect(wait).toBeGreaterThanOrEqual(started + 119_000);
    expect(wait).toBeLessThanOrEqual(Date.now() + 121_000);
    expect(github.rateLimitReset * 1000).toBeGreaterThan((wait ?? 0) + 30 * 60_000);
    // The pull request and its review threads were still read and stored.
    expect(await ctx.infra.store.reviewThreads.list(session.id)).toHaveLength(1);
    const shown = ShowSchema.parse(
      JSON.parse((await grove(['show', session.id, '--json'])).stdout),
    );
    expect(shown.checks?.error).toMatch(
      /^The checks could not be read: GitHub's secondary rate limit stopped Grove's requests \(too many too fast\); they wait until \d\d:\d\d\.$/,
    );
    expect(shown.checks?.state).toBeNull();

    // Until then the poller asks GitHub nothing.
    const seen = github.requests.length;
    expect(await ctx.controller.review.pullRequests.poll()).toBe(wait);
    expect(github.requests.length).toBe(seen);
  });

  it('says in words when the checks or a job log cannot be read, keeping the rest', async () => {
    const session = await publishedSession();
    const sha = github.pull(1).headSha;
    // A failing run whose log has expired (404), and another app's run, which has no job log.
    github.setCheckRuns(sha, [
      { name: 'test', status: 'completed', conclusion: 'timed_out' },
      { name: 'coverage', status: 'completed', conclusion: 'failure', app: 'codecov' },
    ]);
    const ctx = await controllerContext();
    await ctx.controller.review.pullRequests.poll();

    let checks = ShowSchema.parse(
      JSON.parse((await grove(['show', session.id, '--json'])).stdout),
    ).checks;
    expect(checks?.state).toBe('failing');
    expect(checks?.items[0]).toMatchObject({
      name: 'test',
      conclusion: 'timed_out',
      logTail: null,
      logError:
        'The log could not be read: GitHub has no log for job 8001: it has expired, or the token cannot read Actions on acme/widgets.',
    });
    expect(checks?.items[1]).toMatchObject({ name: 'coverage', logTail: null, logError: null });

    // GitHub fails the check runs (502): the error is shown, the checks read before are kept.
    github.fail({ kind: 'server', path: /\/check-runs$/, status: 502 });
    await ctx.controller.review.pullRequests.poll();
    checks = ShowSchema.parse(
      JSON.parse((await grove(['show', session.id, '--json'])).stdout),
    ).checks;
    expect(checks?.error).toBe(
      'The checks could not be read: GitHub had a server error (502); try again later.',
    );
    expect(checks?.state).toBe('failing');
    expect(checks?.items).toHaveLength(2);
    expect((await load(session.id)).reviewRequest?.checksState).toBe('failing');
    const text = await grove(['show', session.id]);
    expect(text.stdout).toContain('checks failing at');
    expect(text.stdout).toContain(
      '  The checks could not be read: GitHub had a server error (502)',
    );

    // Once GitHub answers again the error goes.
    github.clearFailures();
    await ctx.controller.review.pullRequests.poll();
    checks = ShowSchema.parse(
      JSON.parse((await grove(['show', session.id, '--json'])).stdout),
    ).checks;
    expect(checks?.error).toBeNull();
  });
});
