import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listItem } from '../../src/cli/session-json.js';
import { groupOf, orderedSessions } from '../../src/domain/session-order.js';
import { git } from '../helpers/grove-env.js';
import { seedSessions, withStore } from '../helpers/seed.js';
import { expectExit, harness, reply, type Harness } from './headless-harness.js';
import { ListSchema, ResultSchema, ShowSchema } from './headless-schema.js';

// ls, show and cancel: the built binary on a real repository and store,
// sessions written into the store as an earlier run would, or made by
// `grove run` (real Claude Code and the fake model server). The commands on
// a session with work (show, diff, rebase, merge, cancel, publish) are in
// headless-session-commands.test.ts.

let h: Harness;

beforeEach(async () => {
  h = await harness();
});

afterEach(async () => {
  await h.close();
});

async function showJson(id: string) {
  const run = await h.grove(['show', id, '--json']);
  expectExit(run, 0);
  return ShowSchema.parse(JSON.parse(run.stdout));
}

function branchExists(branch: string): boolean {
  return git(h.repo, 'branch', '--list', branch) !== '';
}

describe('grove ls', () => {
  it('says there are no sessions (text and JSON)', async () => {
    const text = await h.grove(['ls']);
    expectExit(text, 0);
    expect(text.stdout).toBe('No active sessions (grove ls --all shows the archive).\n');
    expect(text.stderr).toBe('');

    const json = await h.grove(['ls', '--json']);
    expectExit(json, 0);
    expect(JSON.parse(json.stdout)).toEqual([]);

    const all = await h.grove(['ls', '--all']);
    expect(all.stdout).toBe('No sessions.\n');
  });

  it('lists active sessions, and the archive with --all', async () => {
    const ids = await seedSessions(h.world.groveHome, h.repo, [
      { title: 'Finished work', status: 'Done' },
      { title: 'Thrown away', status: 'Canceled' },
      { title: 'Waiting for review', status: 'Review', addedLines: 12, deletedLines: 3 },
      { title: 'Has a question', status: 'Question' },
    ]);
    const [done, canceled, review, question] = ids.map((id) => id.replace(/-/g, '').slice(0, 8));

    const text = await h.grove(['ls']);
    expectExit(text, 0);
    expect(text.stderr).toBe('');
    const lines = text.stdout.trimEnd().split('\n');
    // Newest first.
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(
      new RegExp(`^${question ?? ''}  Question +\\[XS\\] .* claude/sonnet  Has a question$`),
    );
    expect(lines[1]).toMatch(
      new RegExp(`^${review ?? ''}  Review +\\[S\\] .* claude/sonnet  Waiting for review$`),
    );

    const all = await h.grove(['ls', '--all']);
    expectExit(all, 0);
    expect(
      all.stdout
        .trimEnd()
        .split('\n')
        .map((l) => l.slice(0, 8)),
    ).toEqual([question, review, canceled, done]);

    const json = await h.grove(['ls', '--json']);
    expectExit(json, 0);
    const list = ListSchema.parse(JSON.parse(json.stdout));
    expect(list.map((s) => s.title)).toEqual(['Has a question', 'Waiting for review']);
    expect(list[1]).toMatchObject({
      sessionId: ids[2],
      status: 'Review',
      size: 'S',
      added: 12,
      deleted: 3,
      agent: 'claude',
      model: 'sonnet',
    });

    const jsonAll = await h.grove(['ls', '--json', '--all']);
    expect(ListSchema.parse(JSON.parse(jsonAll.stdout)).map((s) => s.status)).toEqual([
      'Question',
      'Review',
      'Canceled',
      'Done',
    ]);
  });

  it('prints the same list from a store of many finished sessions, which it reads only with --all', async () => {
    const statuses = ['Done', 'Review', 'Canceled', 'Done', 'Question', 'Canceled'] as const;
    await seedSessions(
      h.world.groveHome,
      h.repo,
      Array.from({ length: 150 }, (_, i) => ({
        title: `Session ${i}`,
        status: statuses[i % statuses.length] ?? 'Done',
        addedLines: i,
      })),
    );
    // What ls printed when it read every session and left the archive out.
    const expected = await withStore(h.world.groveHome, async (store) => {
      const project = (await store.projects.list())[0];
      const all = orderedSessions(await store.sessions.listByProject(project?.id ?? 0));
      const now = Date.now();
      return {
        // Seeded sessions have no worktree on disk.
        live: all.filter((s) => groupOf(s.status) !== 'archive').map((s) => listItem(s, now, null)),
        all: all.map((s) => listItem(s, now, null)),
      };
    });

    const json = await h.grove(['ls', '--json']);
    expectExit(json, 0);
    expect(JSON.parse(json.stdout)).toEqual(expected.live);
    const jsonAll = await h.grove(['ls', '--json', '--all']);
    expect(JSON.parse(jsonAll.stdout)).toEqual(expected.all);
    expect(expected.live).toHaveLength(50);
  });

  it('lists only the sessions of the project in -C DIR', async () => {
    await seedSessions(h.world.groveHome, h.repo, [{ title: 'Here', status: 'Review' }]);
    const other = join(h.world.dir, 'other');
    git(h.world.dir, 'init', '-q', '-b', 'main', other);

    const here = await h.grove(['ls', '--json'], { cwd: h.world.dir, env: {} });
    expectExit(here, 1);
    expect(here.stderr).toBe(`grove: ${h.world.dir} is not inside a git repository.\n`);

    const there = await h.grove(['ls', '-C', other, '--json']);
    expectExit(there, 0);
    expect(JSON.parse(there.stdout)).toEqual([]);

    const mine = await h.grove(['ls', '-C', h.repo]);
    expect(mine.stdout).toContain('Here');
  });
});

describe('session ids', () => {
  it('accepts a unique prefix (with or without dashes) and refuses an ambiguous one', async () => {
    const ids = await seedSessions(h.world.groveHome, h.repo, [
      {
        title: 'First',
        status: 'Review',
        transcript: [
          ['user_prompt', 'do the first thing'],
          ['assistant_answer', 'Did the first thing.'],
        ],
      },
      { title: 'Second', status: 'Question' },
    ]);

    const ambiguous = await h.grove(['show', '0000000']);
    expectExit(ambiguous, 2);
    expect(ambiguous.stdout).toBe('');
    expect(ambiguous.stderr).toBe(
      `grove: '0000000' matches 2 sessions; give more of the id:\n  ${ids[0] ?? ''}  First\n  ${ids[1] ?? ''}  Second\n`,
    );

    for (const prefix of ['00000001', '00000001-aa', '00000001AAAA'.toLowerCase(), ids[0] ?? '']) {
      const run = await h.grove(['show', prefix, '--json']);
      expectExit(run, 0);
      expect(ShowSchema.parse(JSON.parse(run.stdout)).title).toBe('First');
    }

    const missing = await h.grove(['diff', 'ffff']);
    expectExit(missing, 2);
    expect(missing.stderr).toBe("grove: no session matches 'ffff'\n");
  });
});

describe('grove show for a best-of-N variant and a prompt waiting for a usage limit', () => {
  it("prints the variant's group and its ranking (text and JSON)", async () => {
    const [a = '', b = ''] = await seedSessions(h.world.groveHome, h.repo, [
      { title: 'Variant A', status: 'Review' },
      { title: 'Variant B', status: 'Review' },
    ]);
    await withStore(h.world.groveHome, async (store) => {
      const projectId = (await store.sessions.get(a))?.projectId ?? 0;
      await store.groups.create(
        { id: 'group-1', projectId, prompt: 'Same task', sessionIds: [a, b] },
        Date.now(),
      );
      await store.groups.setCheck(a, { exitCode: 1, timedOut: false, output: 'boom' });
      await store.groups.setCheck(b, { exitCode: 0, timedOut: false, output: 'fine' });
      await store.groups.setRanking(
        'group-1',
        [
          { sessionId: b, rank: 1, reason: 'passes the check' },
          { sessionId: a, rank: 2, reason: 'fails the check' },
        ],
        null,
      );
    });

    const text = await h.grove(['show', a]);

    expectExit(text, 0);
    expect(text.stdout).toContain('best of 2 (ranked): this variant is #2 of 2\n');
    expect(text.stdout).toContain(
      `  1. ${b.replace(/-/g, '').slice(0, 8)}  claude/sonnet  check passed  passes the check\n`,
    );
    expect(text.stdout).toContain(
      `* 2. ${a.replace(/-/g, '').slice(0, 8)}  claude/sonnet  check failed (exit 1)  fails the check\n`,
    );
    expect((await showJson(a)).group).toEqual({
      id: 'group-1',
      status: 'ranked',
      prompt: 'Same task',
      note: null,
      rank: 2,
      chosenSession: null,
      ranking: [
        {
          session: b,
          rank: 1,
          reason: 'passes the check',
          agent: 'claude',
          model: 'sonnet',
          check: { exitCode: 0, timedOut: false, output: 'fine' },
        },
        {
          session: a,
          rank: 2,
          reason: 'fails the check',
          agent: 'claude',
          model: 'sonnet',
          check: { exitCode: 1, timedOut: false, output: 'boom' },
        },
      ],
    });
  });

  it("says until when the session's next prompt waits for its agent's usage limit (text and JSON)", async () => {
    const [id = ''] = await seedSessions(h.world.groveHome, h.repo, [
      { title: 'Limited', status: 'Review' },
    ]);
    const until = Date.now() + 3_600_000;
    // Deferred by a live Grove (this test process), as a turn that hit codex's limit is.
    const owner = `${hostname()}:${process.pid}`;
    await withStore(h.world.groveHome, async (store) => {
      const op = await store.operations.enqueue(
        id,
        'reply',
        { prompt: 'Later' },
        Date.now(),
        owner,
      );
      expect((await store.operations.claimNext(id, owner, Date.now()))?.id).toBe(op);
      expect(await store.operations.defer(op, owner, until, 'codex')).toBe(true);
    });
    const at = new Date(until).toISOString();
    const sameDay = at.slice(0, 10) === new Date().toISOString().slice(0, 10);
    const when = sameDay ? at.slice(11, 16) : `${at.slice(0, 10)} ${at.slice(11, 16)}`;

    const text = await h.grove(['show', id], { env: { TZ: 'UTC' } });

    expectExit(text, 0);
    expect(text.stdout).toContain(
      `waiting for codex until ${when}: the next prompt is sent then\n`,
    );
    expect((await showJson(id)).waiting).toEqual({
      agent: 'codex',
      until: new Date(until).toISOString(),
    });
  });
});

describe('grove cancel', () => {
  it('cancels a session with no work without --yes, deleting its branch', async () => {
    h.utilities();
    h.server.script('anthropic', [{ when: 'Just look around', text: reply('Nothing to change.') }]);
    const run = await h.grove(['run', '--output', 'json', 'Just look around']);
    expectExit(run, 0);
    const session = ResultSchema.parse(JSON.parse(run.stdout));
    expect(session.files).toEqual([]);

    const canceled = await h.grove(['cancel', session.sessionId]);

    expectExit(canceled, 0);
    expect(canceled.stdout).toBe('Canceled\n');
    expect(branchExists(session.branch)).toBe(false);
    expect(existsSync(session.worktree)).toBe(false);
  });

  it('refuses to cancel a finished session (exit 1)', async () => {
    const [id] = await seedSessions(h.world.groveHome, h.repo, [
      { title: 'Finished', status: 'Done' },
    ]);

    const run = await h.grove(['cancel', id ?? '', '--yes']);

    expectExit(run, 1);
    expect(run.stderr).toBe('grove: a Done session cannot be canceled.\n');
  });
});
