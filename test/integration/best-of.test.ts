import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseHeadless } from '../../src/cli/args.js';
import { runHeadless } from '../../src/cli/dispatch.js';
import { EXIT, shutdownContexts } from '../../src/cli/headless.js';
import type { SessionGroup } from '../../src/domain/best-of.js';
import type { Session } from '../../src/domain/session.js';
import { makeReviewWorld, reply, waitFor, type ReviewWorld } from '../helpers/review-world.js';

// Best-of-N on real git and SQLite with the real Claude Code CLI against the
// fake model server: one prompt fans out to two sessions, the project's check
// command runs in each worktree (one variant passes it, one fails), and the
// judge's scripted ranking is read, stored and acted on.

const CLAUDE = { agent: 'claude' as const, model: 'sonnet', reasoning: 'high' };
let w: ReviewWorld;

beforeEach(async () => {
  w = await makeReviewWorld();
  await w.infra.store.settings.setProject(w.projectId, 'check.command', 'test -f ok.txt');
});

afterEach(async () => {
  await shutdownContexts();
  await w.close();
});

const judgeAnswer = (best: string, worst: string): string =>
  reply(
    `Here is the ranking:\n\`\`\`json\n[{"session": "${best}", "rank": 1, "reason": "passes the check"}, {"session": "${worst.slice(0, 8)}", "rank": "2", "reason": "fails the check"}]\n\`\`\``,
  );

/** Starts a group of two claude variants; the second gets ok.txt, so only it passes the check (the first gets other.txt). */
async function startPair(): Promise<{ group: SessionGroup; sessions: Session[] }> {
  w.server.script('anthropic', [
    { when: 'Fan-out task', text: reply('Variant done.') },
    { when: 'Fan-out task', text: reply('Variant done.') },
  ]);
  const started = await w.controller.bestOf.start(w.projectId, 'Fan-out task', [CLAUDE, CLAUDE]);
  const [first, second] = started.sessions;
  if (!first || !second) throw new Error('two sessions expected');
  writeFileSync(join(first.worktreePath, 'other.txt'), 'other\n');
  writeFileSync(join(second.worktreePath, 'ok.txt'), 'ok\n');
  w.server.script('anthropic', [
    { when: 'You are judging', text: judgeAnswer(second.id, started.sessions[0]?.id ?? '') },
  ]);
  return started;
}

async function ranked(groupId: string): Promise<SessionGroup> {
  return waitFor(
    'the group ranked',
    async () => {
      const g = await w.infra.store.groups.get(groupId);
      return g && (g.status === 'ranked' || g.status === 'failed') ? g : null;
    },
    60_000,
  );
}

describe('best of N', () => {
  it('fans one prompt out to N sessions of one group, each running it in its own worktree', async () => {
    const { group, sessions } = await startPair();

    expect(sessions).toHaveLength(2);
    expect(new Set(sessions.map((s) => s.worktreePath)).size).toBe(2);
    expect(group.members.map((m) => m.sessionId)).toEqual(sessions.map((s) => s.id));
    await ranked(group.id);
    const prompts = w.server
      .modelRequests('anthropic')
      .filter(
        (r) =>
          JSON.stringify(r.body).includes('Fan-out task') &&
          !JSON.stringify(r.body).includes('You are judging'),
      );
    expect(prompts.length).toBeGreaterThanOrEqual(2);
    for (const s of sessions)
      expect(
        (await w.infra.store.transcript.list(s.id))
          .filter((e) => e.kind === 'user_prompt')
          .map((e) => e.content),
      ).toEqual(['Fan-out task']);
    for (const s of sessions)
      expect(
        (await w.infra.store.transcript.list(s.id)).some((e) => e.kind === 'assistant_answer'),
      ).toBe(true);
  }, 90_000);

  it('titles each variant with its place in the group, and never reports two variants as overlapping each other', async () => {
    // Before startPair's steps: the title prompt quotes the task too.
    w.server.script('anthropic', [
      { when: 'Write a title for a coding task', text: reply('Tidy the notes') },
      { when: 'Write a title for a coding task', text: reply('Tidy the notes') },
    ]);
    const { group, sessions } = await startPair();
    const [first, second] = sessions as [Session, Session];
    // Both variants change the same file, as variants of one task do.
    writeFileSync(join(first.worktreePath, 'same.txt'), 'first\n');
    writeFileSync(join(second.worktreePath, 'same.txt'), 'second\n');
    await ranked(group.id);

    const titles = await waitFor('both generated titles', async () => {
      const all = await Promise.all(sessions.map((s) => w.get(s.id)));
      return all.every((s) => !s.titleProvisional) ? all.map((s) => s.title) : null;
    });
    expect(titles).toEqual([
      'Tidy the notes (variant 1 of 2, claude/sonnet)',
      'Tidy the notes (variant 2 of 2, claude/sonnet)',
    ]);
    // The commit message prompt gets the task's own title.
    const commitAsks = w.server
      .modelRequests('anthropic')
      .map((r) => JSON.stringify(r.body))
      .filter((body) => body.includes('Write the git commit message'));
    for (const body of commitAsks) expect(body).not.toContain('(variant ');

    // A session outside the group that changes the same file overlaps both.
    const outside = await w.session({ files: { 'same.txt': 'outside\n' }, message: 'Outside' });
    const poller = w.controller.gitStatus;
    const status = await poller.cycle(
      w.projectId,
      (poller as unknown as { generation: number }).generation,
      false,
    );
    const others = (id: string) => (status?.overlaps?.[id] ?? []).map((o) => o.sessionId);
    expect(others(first.id)).toEqual([outside.id]);
    expect(others(second.id)).toEqual([outside.id]);
    expect(others(outside.id).sort()).toEqual([first.id, second.id].sort());
    w.controller.gitStatus.stop();
  }, 90_000);

  it('runs the check command in each worktree when all variants are over and keeps its result', async () => {
    const { group, sessions } = await startPair();

    const final = await ranked(group.id);

    const checks = Object.fromEntries(final.members.map((m) => [m.sessionId, m.check]));
    expect(checks[sessions[0]?.id ?? '']).toMatchObject({ exitCode: 1, timedOut: false });
    expect(checks[sessions[1]?.id ?? '']).toMatchObject({ exitCode: 0, timedOut: false });
    expect(await w.notices(sessions[1]?.id ?? '')).toContain('[Check] `test -f ok.txt` passed.');
  }, 90_000);

  it("runs the check command in the agent's sandbox: a test script the agent rewrote cannot write outside its worktree", async () => {
    const escaped = join(w.world.dir, 'check-escaped');
    await w.infra.store.settings.setProject(w.projectId, 'check.command', 'sh check.sh');
    const { group, sessions } = await startPair();
    // What an agent's edit to the project's test script could do when Grove runs it.
    for (const s of sessions)
      writeFileSync(
        join(s.worktreePath, 'check.sh'),
        `echo pwned > '${escaped}'\necho inside > inside.txt\n`,
      );

    await ranked(group.id);

    expect(existsSync(escaped)).toBe(false);
    for (const s of sessions)
      expect(readFileSync(join(s.worktreePath, 'inside.txt'), 'utf8')).toBe('inside\n');
  }, 90_000);

  it('stops a check command that runs past the timeout and counts it as timed out', async () => {
    await w.infra.store.settings.setProject(w.projectId, 'check.command', 'sleep 30');
    await w.infra.store.settings.setProject(w.projectId, 'check.timeout', '1s');
    const { group } = await startPair();

    const final = await ranked(group.id);

    expect(final.members.map((m) => m.check?.timedOut)).toEqual([true, true]);
  }, 90_000);

  it("gives the judge each variant's check result and stores its ranking with reasons", async () => {
    const { group, sessions } = await startPair();

    const final = await ranked(group.id);

    const judge = w.server
      .modelRequests('anthropic')
      .find((r) => JSON.stringify(r.body).includes('You are judging'));
    const asked = JSON.stringify(judge?.body ?? '');
    expect(asked).toContain(`Variant ${sessions[0]?.id}`);
    expect(asked).toContain('failed (exit 1)');
    expect(asked).toContain('passed');
    expect(final.status).toBe('ranked');
    expect(final.ranking).toEqual([
      { sessionId: sessions[1]?.id, rank: 1, reason: 'passes the check' },
      { sessionId: sessions[0]?.id, rank: 2, reason: 'fails the check' },
    ]);
    await waitFor(
      'the ranking in the snapshot',
      () => w.app.state.groups[group.id]?.status === 'ranked',
    );
    // The judge's tokens are split over the group's variants: equal shares that add up to its whole.
    const shares = await Promise.all(
      sessions.map(async (s) =>
        (await w.infra.store.usage.bySession(s.id)).filter((r) => r.role === 'judge'),
      ),
    );
    const [a, b] = shares.map((rows) =>
      rows.reduce((n, r) => n + r.inputTokens + r.outputTokens, 0),
    );
    expect(shares.map((rows) => rows.length)).toEqual([1, 1]);
    expect(Math.abs((a ?? 0) - (b ?? 0))).toBeLessThanOrEqual(2);
    expect((a ?? 0) + (b ?? 0)).toBeGreaterThanOrEqual(160);
  }, 90_000);

  it('merges the winner on choosing and cancels the others, keeping their branches', async () => {
    const { group, sessions } = await startPair();
    const [loser, winner] = sessions as [Session, Session];
    await ranked(group.id);

    expect(await w.controller.bestOf.choose(group.id)).toBeNull();

    await waitFor(
      'the winner merged',
      async () => ['Done', 'Merged'].includes((await w.get(winner.id)).status),
      60_000,
    );
    await waitFor(
      'the other canceled',
      async () => (await w.get(loser.id)).status === 'Canceled',
      30_000,
    );
    expect(execFileSync('git', ['-C', w.repo, 'show', 'HEAD:ok.txt'], { encoding: 'utf8' })).toBe(
      'ok\n',
    );
    const kept = (await w.get(loser.id)).keptBranch;
    expect(kept).not.toBeNull();
    expect(
      execFileSync('git', ['-C', w.repo, 'branch', '--list', kept ?? ''], {
        encoding: 'utf8',
      }).trim(),
    ).not.toBe('');
    expect((await w.infra.store.groups.get(group.id))?.chosenSessionId).toBe(winner.id);
  }, 120_000);

  it('publishes the winner as a pull request on choosing to publish and cancels the others, keeping their branches', async () => {
    await w.close();
    w = await makeReviewWorld({ github: true });
    await w.infra.store.settings.setProject(w.projectId, 'check.command', 'test -f ok.txt');
    const { group, sessions } = await startPair();
    const [loser, winner] = sessions as [Session, Session];
    await ranked(group.id);
    await waitFor('the variants in the snapshot', () =>
      sessions.every((s) => w.app.state.sessions.some((t) => t.id === s.id)),
    );

    expect(await w.controller.bestOf.choose(group.id, undefined, 'publish')).toBeNull();

    const published = await waitFor(
      'the winner published',
      async () => (await w.get(winner.id)).publishedBranch,
      60_000,
    );
    await waitFor(
      'the other canceled',
      async () => (await w.get(loser.id)).status === 'Canceled',
      30_000,
    );
    const pull = await waitFor('the pull request', () =>
      w.github?.pulls.find((p) => p.head === published),
    );
    expect(pull.base).toBe('main');
    expect(
      execFileSync('git', ['-C', w.origin, 'show', `${published}:ok.txt`], { encoding: 'utf8' }),
    ).toBe('ok\n');
    expect((await w.get(winner.id)).status).not.toBe('Merged');
    const kept = (await w.get(loser.id)).keptBranch;
    expect(
      execFileSync('git', ['-C', w.repo, 'branch', '--list', kept ?? ''], {
        encoding: 'utf8',
      }).trim(),
    ).not.toBe('');
    expect(await w.infra.store.groups.get(group.id)).toMatchObject({
      status: 'chosen',
      chosenSessionId: winner.id,
    });
  }, 120_000);

  it('prints the ranking as JSON for grove run -n N --output json', async () => {
    w.server.script('anthropic', [
      { when: 'Headless fan-out', text: reply('Variant done.') },
      { when: 'Headless fan-out', text: reply('Variant done.') },
    ]);
    const stdout = new PassThrough();
    let printed = '';
    stdout.on('data', (chunk: Buffer) => (printed += chunk.toString()));
    const io = {
      stdout,
      stderr: new PassThrough(),
      stdin: Object.assign(new PassThrough(), { isTTY: true }),
      stderrIsTTY: false,
      env: process.env,
      cwd: w.repo,
    };
    const run = runHeadless(
      parseHeadless('run', [
        '-n',
        '2',
        '--agents',
        'claude',
        '--output',
        'json',
        'Headless fan-out',
      ]),
      w.infra,
      io,
    );
    // The judge names the variants by id: scripted once they exist.
    const group = await waitFor(
      'the group',
      async () => (await w.infra.store.groups.listByProject(w.projectId))[0],
    );
    const [a, b] = group.members.map((m) => m.sessionId) as [string, string];
    w.server.script('anthropic', [{ when: 'You are judging', text: judgeAnswer(b, a) }]);

    expect(await run).toBe(EXIT.ok);

    const body = JSON.parse(printed) as {
      status: string;
      ranking: {
        session: string;
        rank: number;
        reason: string;
        agent: string;
        check: { exitCode: number };
      }[];
    };
    expect(body.status).toBe('ranked');
    expect(
      body.ranking.map((r) => [r.session, r.rank, r.reason, r.agent, r.check.exitCode]),
    ).toEqual([
      [b, 1, 'passes the check', 'claude', 1],
      [a, 2, 'fails the check', 'claude', 1],
    ]);
  }, 120_000);
});

describe('a best-of-N group a stopped Grove left half evaluated', () => {
  /** Two settled variants (in Review, the second with ok.txt) of a group left in checking by `evaluator`. */
  async function stranded(evaluator: string): Promise<{ id: string; a: Session; b: Session }> {
    const a = await w.session({ files: { 'other.txt': 'other\n' }, message: 'Variant A' });
    const b = await w.session({ files: { 'ok.txt': 'ok\n' }, message: 'Variant B' });
    const id = 'stranded-group';
    await w.infra.store.groups.create(
      { id, projectId: w.projectId, prompt: 'Stranded task', sessionIds: [a.id, b.id] },
      w.infra.clock.now(),
    );
    expect(await w.infra.store.groups.claimEvaluation(id, evaluator, null)).toBe(true);
    await w.infra.store.groups.setStatus(id, 'checking');
    return { id, a, b };
  }

  it('is checked and judged again when Grove starts, with a note in each variant and the group', async () => {
    // A process that has exited: the Grove that was checking the group died.
    const gone = `${hostname()}:${spawnSync('true').pid}`;
    const { id, a, b } = await stranded(gone);
    w.server.script('anthropic', [{ when: 'You are judging', text: judgeAnswer(b.id, a.id) }]);

    await w.controller.bestOf.resumeStranded(w.projectId);

    const final = await w.infra.store.groups.get(id);
    expect(final?.status).toBe('ranked');
    expect(final?.ranking.map((r) => r.sessionId)).toEqual([b.id, a.id]);
    expect(final?.members.map((m) => m.check?.exitCode)).toEqual([1, 0]);
    expect(final?.note).toContain('Checked and judged again');
    expect(await w.infra.store.groups.evaluatorOf(id)).toBe(w.infra.runtime.owner);
    for (const s of [a, b])
      expect(await w.notices(s.id)).toContain(
        '[Best of N] Grove stopped while this group was being checked: checking and judging it again.',
      );
  }, 90_000);

  it('is left to the Grove process still evaluating it', async () => {
    // The test runner's parent process is alive.
    const { id, a } = await stranded(`${hostname()}:${process.ppid}`);

    await w.controller.bestOf.resumeStranded(w.projectId);

    expect((await w.infra.store.groups.get(id))?.status).toBe('checking');
    expect(
      w.server
        .modelRequests('anthropic')
        .some((r) => JSON.stringify(r.body).includes('You are judging')),
    ).toBe(false);
    expect((await w.notices(a.id)).some((n) => n.startsWith('[Best of N]'))).toBe(false);
  }, 60_000);
});
