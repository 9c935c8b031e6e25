import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { git } from '../helpers/grove-env.js';
import { seedSessions, withStore } from '../helpers/seed.js';
import { expectExit, harness, reply, type Harness } from './headless-harness.js';
import { ListSchema, ResultSchema, ShowSchema } from './headless-schema.js';

// ls, show, diff, merge, rebase and cancel: the built binary on a real
// repository and store, sessions made by `grove run` (real Claude Code and
// the fake model server) or written into the store as an earlier run would.

let h: Harness;

beforeEach(async () => {
  h = await harness();
});

afterEach(async () => {
  await h.close();
});

/** `grove run` a session that writes hello.txt; returns its JSON result. */
async function helloSession(prompt = 'Create hello.txt') {
  h.utilities();
  h.server.script('anthropic', [
    {
      when: prompt,
      toolCall: { kind: 'write_file', path: 'hello.txt', content: 'hello\nworld\n' },
    },
    { when: prompt, text: reply('I created hello.txt.') },
  ]);
  const run = await h.grove(['run', '--output', 'json', prompt]);
  expectExit(run, 0);
  return ResultSchema.parse(JSON.parse(run.stdout));
}

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

describe('grove show', () => {
  it('prints the session and its transcript, or the JSON object with the transcript', async () => {
    const session = await helloSession();

    const text = await h.grove(['show', session.sessionId.slice(0, 5)]);
    expectExit(text, 0);
    expect(text.stderr).toBe('');
    expect(text.stdout).toContain('Add a greeting file\n');
    expect(text.stdout).toContain(`id ${session.sessionId}  status Review  [XS] +2/-0\n`);
    expect(text.stdout).toContain(
      `branch ${session.branch} (base main)  worktree ${session.worktree}\n`,
    );
    expect(text.stdout).toContain('› Create hello.txt\n');
    expect(text.stdout).toContain('I created hello.txt.\n');
    expect(text.stdout).toContain('Summary: session: I created hello.txt.\n');

    const shown = await showJson(session.sessionId);
    const { transcript, durationMs: _duration, group, waiting, guard, ...rest } = shown;
    const { durationMs: _runDuration, ...expected } = session;
    expect(rest).toEqual(expected);
    expect({ group, waiting, guard }).toEqual({ group: null, waiting: null, guard: null });
    expect(transcript[0]).toMatchObject({ kind: 'user_prompt', content: 'Create hello.txt' });
    expect(
      transcript.some((e) => e.kind === 'assistant_answer' && e.content === 'I created hello.txt.'),
    ).toBe(true);
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

describe('grove diff', () => {
  it('prints the diff against the base branch, uncommitted and untracked files included', async () => {
    const session = await helloSession();
    writeFileSync(join(session.worktree, 'hello.txt'), 'hello\nthere\n');
    writeFileSync(join(session.worktree, 'new.txt'), 'brand new\n');

    const run = await h.grove(['diff', session.sessionId.slice(0, 8)]);

    expectExit(run, 0);
    expect(run.stderr).toBe('');
    expect(run.stdout).toContain('diff --git a/hello.txt b/hello.txt');
    expect(run.stdout).toContain('+hello\n+there\n');
    expect(run.stdout).not.toContain('+world');
    expect(run.stdout).toContain('diff --git a/new.txt b/new.txt');
    expect(run.stdout).toContain('+brand new\n');
    // A plain patch: it applies to main.
    const patch = join(h.world.dir, 'session.patch');
    writeFileSync(patch, run.stdout);
    git(h.repo, 'apply', '--check', patch);
  });
});

describe('grove rebase', () => {
  it('rebases the session branch onto the moved base branch', async () => {
    const session = await helloSession();
    writeFileSync(join(h.repo, 'other.txt'), 'main moved on\n');
    git(h.repo, 'add', 'other.txt');
    git(h.repo, 'commit', '-q', '-m', 'Main moves on');

    const run = await h.grove(['rebase', session.sessionId.slice(0, 8)]);

    expectExit(run, 0);
    expect(run.stdout).toBe('Review\n');
    expect(run.stderr).toBe('');
    expect(git(h.repo, 'merge-base', '--is-ancestor', 'main', session.branch)).toBe('');
    expect(git(h.repo, 'rev-list', '--count', `main..${session.branch}`)).toBe('1');
    expect(readFileSync(join(session.worktree, 'other.txt'), 'utf8')).toBe('main moved on\n');
    expect((await showJson(session.sessionId)).status).toBe('Review');
  });
});

describe('grove merge', () => {
  it('squash-merges the session onto main as one commit', async () => {
    const session = await helloSession();
    const mainBefore = git(h.repo, 'rev-parse', 'main');

    const run = await h.grove(['merge', session.sessionId.slice(0, 8)]);

    expectExit(run, 0);
    expect(run.stderr).toBe('');
    const merged = git(h.repo, 'rev-parse', 'main');
    expect(run.stdout).toBe(`Done ${merged}\n`);
    expect(git(h.repo, 'rev-parse', 'main^')).toBe(mainBefore);
    expect(git(h.repo, 'log', '-1', '--format=%s', 'main')).toBe('Add the greeting');
    expect(git(h.repo, 'show', 'main:hello.txt')).toBe('hello\nworld');
    expect(git(h.repo, 'rev-list', '--parents', '-1', 'main').split(' ')).toHaveLength(2);
    // In the main checkout, which stays clean; the worktree and the branch are gone.
    expect(readFileSync(join(h.repo, 'hello.txt'), 'utf8')).toBe('hello\nworld\n');
    expect(git(h.repo, 'status', '--porcelain')).toBe('');
    expect(existsSync(session.worktree)).toBe(false);
    expect(branchExists(session.branch)).toBe(false);
    const shown = await showJson(session.sessionId);
    expect(shown.status).toBe('Done');
    const ls = await h.grove(['ls', '--json']);
    expect(JSON.parse(ls.stdout)).toEqual([]);
  });

  it('touches nothing when the main checkout is dirty (exit 1, session back in Review)', async () => {
    const session = await helloSession();
    writeFileSync(join(h.repo, 'README.md'), '# project\nlocal edit\n');
    const mainBefore = git(h.repo, 'rev-parse', 'main');

    const run = await h.grove(['merge', session.sessionId.slice(0, 8)]);

    expectExit(run, 1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(
      `grove: The main checkout (${h.repo}) has uncommitted changes. Commit or stash them and merge again. Nothing was changed.\n`,
    );
    expect(git(h.repo, 'rev-parse', 'main')).toBe(mainBefore);
    expect(readFileSync(join(h.repo, 'README.md'), 'utf8')).toBe('# project\nlocal edit\n');
    expect(existsSync(join(session.worktree, 'hello.txt'))).toBe(true);
    expect((await showJson(session.sessionId)).status).toBe('Review');
  });

  it('refuses a session that cannot be merged (exit 1)', async () => {
    const session = await helloSession();
    expectExit(await h.grove(['merge', session.sessionId]), 0);

    const again = await h.grove(['merge', session.sessionId]);

    expectExit(again, 1);
    expect(again.stdout).toBe('');
    expect(again.stderr).toBe('grove: a Done session cannot be merged.\n');
  });
});

describe('grove cancel', () => {
  it('refuses without --yes when the session holds work, and keeps the branch with --yes', async () => {
    const session = await helloSession();
    // Work the agent has not committed yet.
    writeFileSync(join(session.worktree, 'draft.txt'), 'not committed yet\n');

    const refused = await h.grove(['cancel', session.sessionId.slice(0, 8)]);

    expectExit(refused, 2);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toContain(
      `The agent is stopped and the worktree ${session.worktree} is removed.`,
    );
    expect(refused.stderr).toContain(
      `It holds 1 uncommitted change(s) and 1 commit(s) not on main: they are committed to ${session.branch} first and the branch is kept, so nothing is lost.`,
    );
    expect(refused.stderr).toContain('Run again with --yes to cancel.');
    expect((await showJson(session.sessionId)).status).toBe('Review');
    expect(existsSync(join(session.worktree, 'draft.txt'))).toBe(true);

    const canceled = await h.grove(['cancel', session.sessionId.slice(0, 8), '--yes']);

    expectExit(canceled, 0);
    expect(canceled.stdout).toBe(`Canceled (work kept on branch ${session.branch})\n`);
    expect(canceled.stderr).toBe('');
    expect(existsSync(session.worktree)).toBe(false);
    expect(branchExists(session.branch)).toBe(true);
    expect(git(h.repo, 'show', `${session.branch}:hello.txt`)).toBe('hello\nworld');
    expect(git(h.repo, 'show', `${session.branch}:draft.txt`)).toBe('not committed yet');
    expect(git(h.repo, 'rev-parse', 'main')).toBe(
      git(h.repo, 'rev-list', '--max-parents=0', 'main'),
    );
    const shown = await showJson(session.sessionId);
    expect(shown.status).toBe('Canceled');
    expect((await h.grove(['show', session.sessionId])).stdout).toContain(
      `kept branch ${session.branch} (restore: git worktree add`,
    );
    expect(JSON.parse((await h.grove(['ls', '--json'])).stdout)).toEqual([]);
    expect(
      ListSchema.parse(JSON.parse((await h.grove(['ls', '--all', '--json'])).stdout)).map(
        (s) => s.status,
      ),
    ).toEqual(['Canceled']);
  });

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

describe('grove publish', () => {
  // Publishing itself (push, pull request) is tested with a fake GitHub in publish.test.ts.
  it('says so when the project has no origin remote (exit 1)', async () => {
    const session = await helloSession();

    const run = await h.grove(['publish', session.sessionId.slice(0, 8)]);

    expectExit(run, 1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe('grove: The project has no "origin" remote to publish to.\n');
    expect((await showJson(session.sessionId)).status).toBe('Review');
  });
});
