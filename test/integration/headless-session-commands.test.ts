import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { git } from '../helpers/grove-env.js';
import { expectExit, fromSnapshot, reply, type Harness } from './headless-harness.js';
import {
  CancelSchema,
  DiffSchema,
  LandSchema,
  ListSchema,
  ResultSchema,
  ShowSchema,
} from './headless-schema.js';

// show, reply, diff, rebase, merge, cancel and publish on a session that `grove run`
// made (the built binary, real Claude Code and the fake model server). The
// session is made once (a real Claude Code run takes seconds); each test gets
// the world back as that run left it (fromSnapshot), so none sees another's
// merge, rebase or cancel.

/** `grove run` a session that writes hello.txt; returns its JSON result. */
async function helloSession(h: Harness, prompt = 'Create hello.txt') {
  h.utilities();
  h.server.script('anthropic', [
    {
      when: prompt,
      toolCall: { kind: 'write_file', path: 'hello.txt', content: 'hello\nworld\n' },
    },
    { when: prompt, text: reply('I created hello.txt.') },
  ]);
  // --json is --output json.
  const run = await h.grove(['run', '--json', prompt]);
  expectExit(run, 0);
  return ResultSchema.parse(JSON.parse(run.stdout));
}

const s = fromSnapshot((h) => helloSession(h));

async function showJson(id: string) {
  const run = await s.h.grove(['show', id, '--json']);
  expectExit(run, 0);
  return ShowSchema.parse(JSON.parse(run.stdout));
}

function branchExists(branch: string): boolean {
  return git(s.h.repo, 'branch', '--list', branch) !== '';
}

describe('grove show', () => {
  it('prints the session and its transcript, or the JSON object with the transcript', async () => {
    const session = s.made;

    const text = await s.h.grove(['show', session.sessionId.slice(0, 5)]);
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
    const {
      transcript,
      durationMs: _duration,
      group,
      waiting,
      guard,
      resources,
      diskBytes,
      checks,
      ...rest
    } = shown;
    const { durationMs: _runDuration, ...expected } = session;
    expect(rest).toEqual(expected);
    expect({ group, waiting, guard, checks }).toEqual({
      group: null,
      waiting: null,
      guard: null,
      checks: null,
    });
    // No agent runs now; the worktree takes some room on disk.
    expect(resources).toBeNull();
    expect(diskBytes).toBeGreaterThan(0);
    expect(transcript[0]).toMatchObject({ kind: 'user_prompt', content: 'Create hello.txt' });
    expect(
      transcript.some((e) => e.kind === 'assistant_answer' && e.content === 'I created hello.txt.'),
    ).toBe(true);
  });
});

describe('grove reply', () => {
  it('reads its prompt from standard input too', async () => {
    const { sessionId } = s.made;
    s.h.server.script('anthropic', [{ when: 'And a follow-up', text: reply('Followed up.') }]);

    const run = await s.h.grove(['reply', sessionId.slice(0, 6)], { input: 'And a follow-up\n' });

    expectExit(run, 0);
    expect(run.stdout).toBe('Followed up.\n');
  });

  it('--mode plan switches the session, says so in the transcript, and the session keeps it', async () => {
    const { sessionId, permissionMode } = s.made;
    expect(permissionMode).toBe('auto-edit');
    s.h.utilities();
    s.h.server.script('anthropic', [
      { when: 'Plan the docs', text: reply('Step 1: write the docs.') },
    ]);

    const planned = await s.h.grove([
      'reply',
      sessionId,
      '--mode',
      'plan',
      '--json',
      'Plan the docs',
    ]);

    expectExit(planned, 0);
    expect(ResultSchema.parse(JSON.parse(planned.stdout))).toMatchObject({
      sessionId,
      permissionMode: 'plan',
      answer: 'Step 1: write the docs.',
    });
    const shown = await showJson(sessionId);
    expect(shown.permissionMode).toBe('plan');
    expect(
      shown.transcript.some((e) => e.kind === 'notice' && e.content.startsWith('[Mode] Plan: ')),
    ).toBe(true);
  });
});

describe('grove diff', () => {
  it('prints the diff against the base branch, uncommitted and untracked files included', async () => {
    const session = s.made;
    writeFileSync(join(session.worktree, 'hello.txt'), 'hello\nthere\n');
    writeFileSync(join(session.worktree, 'new.txt'), 'brand new\n');

    const run = await s.h.grove(['diff', session.sessionId.slice(0, 8)]);

    expectExit(run, 0);
    expect(run.stderr).toBe('');
    expect(run.stdout).toContain('diff --git a/hello.txt b/hello.txt');
    expect(run.stdout).toContain('+hello\n+there\n');
    expect(run.stdout).not.toContain('+world');
    expect(run.stdout).toContain('diff --git a/new.txt b/new.txt');
    expect(run.stdout).toContain('+brand new\n');
    // A plain patch: it applies to main.
    const patch = join(s.h.world.dir, 'session.patch');
    writeFileSync(patch, run.stdout);
    git(s.h.repo, 'apply', '--check', patch);
  });
});

describe('grove diff --json', () => {
  it('prints the diff with its files as one JSON object', async () => {
    const session = s.made;
    const text = await s.h.grove(['diff', session.sessionId]);

    const run = await s.h.grove(['diff', session.sessionId.slice(0, 8), '--json']);

    expectExit(run, 0);
    expect(run.stderr).toBe('');
    expect(DiffSchema.parse(JSON.parse(run.stdout))).toEqual({
      sessionId: session.sessionId,
      branch: session.branch,
      baseBranch: 'main',
      files: [{ path: 'hello.txt', added: 2, deleted: 0 }],
      patch: text.stdout,
    });
  });
});

describe('grove rebase', () => {
  it('rebases the session branch onto the moved base branch', async () => {
    const session = s.made;
    writeFileSync(join(s.h.repo, 'other.txt'), 'main moved on\n');
    git(s.h.repo, 'add', 'other.txt');
    git(s.h.repo, 'commit', '-q', '-m', 'Main moves on');

    const run = await s.h.grove(['rebase', session.sessionId.slice(0, 8)]);

    expectExit(run, 0);
    expect(run.stdout).toBe('Review\n');
    expect(run.stderr).toBe('');
    expect(git(s.h.repo, 'merge-base', '--is-ancestor', 'main', session.branch)).toBe('');
    expect(git(s.h.repo, 'rev-list', '--count', `main..${session.branch}`)).toBe('1');
    expect(readFileSync(join(session.worktree, 'other.txt'), 'utf8')).toBe('main moved on\n');
    expect((await showJson(session.sessionId)).status).toBe('Review');
  });
});

describe('grove merge', () => {
  it('squash-merges the session onto main as one commit', async () => {
    const session = s.made;
    const mainBefore = git(s.h.repo, 'rev-parse', 'main');

    const run = await s.h.grove(['merge', session.sessionId.slice(0, 8)]);

    expectExit(run, 0);
    expect(run.stderr).toBe('');
    const merged = git(s.h.repo, 'rev-parse', 'main');
    expect(run.stdout).toBe(`Done ${merged}\n`);
    expect(git(s.h.repo, 'rev-parse', 'main^')).toBe(mainBefore);
    expect(git(s.h.repo, 'log', '-1', '--format=%s', 'main')).toBe('Add the greeting');
    expect(git(s.h.repo, 'show', 'main:hello.txt')).toBe('hello\nworld');
    expect(git(s.h.repo, 'rev-list', '--parents', '-1', 'main').split(' ')).toHaveLength(2);
    // In the main checkout, which stays clean; the worktree and the branch are gone.
    expect(readFileSync(join(s.h.repo, 'hello.txt'), 'utf8')).toBe('hello\nworld\n');
    expect(git(s.h.repo, 'status', '--porcelain')).toBe('');
    expect(existsSync(session.worktree)).toBe(false);
    expect(branchExists(session.branch)).toBe(false);
    const shown = await showJson(session.sessionId);
    expect(shown.status).toBe('Done');
    const ls = await s.h.grove(['ls', '--json']);
    expect(JSON.parse(ls.stdout)).toEqual([]);
  });

  it('touches nothing when the main checkout is dirty (exit 1, session back in Review)', async () => {
    const session = s.made;
    writeFileSync(join(s.h.repo, 'README.md'), '# project\nlocal edit\n');
    const mainBefore = git(s.h.repo, 'rev-parse', 'main');

    const run = await s.h.grove(['merge', session.sessionId.slice(0, 8)]);

    expectExit(run, 1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(
      `grove: The main checkout (${s.h.repo}) has uncommitted changes. Commit or stash them and merge again. Nothing was changed.\n`,
    );
    expect(git(s.h.repo, 'rev-parse', 'main')).toBe(mainBefore);
    expect(readFileSync(join(s.h.repo, 'README.md'), 'utf8')).toBe('# project\nlocal edit\n');
    expect(existsSync(join(session.worktree, 'hello.txt'))).toBe(true);
    expect((await showJson(session.sessionId)).status).toBe('Review');
  });

  it('refuses a session that cannot be merged (exit 1)', async () => {
    const session = s.made;
    expectExit(await s.h.grove(['merge', session.sessionId]), 0);

    const again = await s.h.grove(['merge', session.sessionId]);

    expectExit(again, 1);
    expect(again.stdout).toBe('');
    expect(again.stderr).toBe('grove: a Done session cannot be merged.\n');
  });
});

describe('grove rebase, merge and publish --json', () => {
  it('prints the session as each command left it; a refusal prints nothing on standard output', async () => {
    const session = s.made;
    const id = session.sessionId.slice(0, 8);
    const left = {
      sessionId: session.sessionId,
      branch: session.branch,
      baseBranch: 'main',
      remoteBranch: null,
      pullRequest: null,
    };
    const unpublished = await s.h.grove(['publish', id, '--json']);
    expectExit(unpublished, 1);
    expect(unpublished.stdout).toBe('');
    expect(unpublished.stderr).toBe('grove: The project has no "origin" remote to publish to.\n');

    const rebased = await s.h.grove(['rebase', id, '--json']);
    expectExit(rebased, 0);
    expect(rebased.stderr).toBe('');
    expect(LandSchema.parse(JSON.parse(rebased.stdout))).toEqual({
      ...left,
      status: 'Review',
      commit: null,
    });

    const merged = await s.h.grove(['merge', id, '--json']);
    expectExit(merged, 0);
    expect(merged.stderr).toBe('');
    expect(LandSchema.parse(JSON.parse(merged.stdout))).toEqual({
      ...left,
      status: 'Done',
      commit: git(s.h.repo, 'rev-parse', 'main'),
    });

    const again = await s.h.grove(['merge', id, '--json']);
    expectExit(again, 1);
    expect(again.stdout).toBe('');
    expect(again.stderr).toBe('grove: a Done session cannot be merged.\n');
  });
});

describe('grove cancel', () => {
  it('refuses without --yes when the session holds work, and keeps the branch with --yes', async () => {
    const session = s.made;
    // Work the agent has not committed yet.
    writeFileSync(join(session.worktree, 'draft.txt'), 'not committed yet\n');

    const refused = await s.h.grove(['cancel', session.sessionId.slice(0, 8)]);

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

    const canceled = await s.h.grove(['cancel', session.sessionId.slice(0, 8), '--yes']);

    expectExit(canceled, 0);
    expect(canceled.stdout).toBe(`Canceled (work kept on branch ${session.branch})\n`);
    expect(canceled.stderr).toBe('');
    expect(existsSync(session.worktree)).toBe(false);
    expect(branchExists(session.branch)).toBe(true);
    expect(git(s.h.repo, 'show', `${session.branch}:hello.txt`)).toBe('hello\nworld');
    expect(git(s.h.repo, 'show', `${session.branch}:draft.txt`)).toBe('not committed yet');
    expect(git(s.h.repo, 'rev-parse', 'main')).toBe(
      git(s.h.repo, 'rev-list', '--max-parents=0', 'main'),
    );
    const shown = await showJson(session.sessionId);
    expect(shown.status).toBe('Canceled');
    expect((await s.h.grove(['show', session.sessionId])).stdout).toContain(
      `kept branch ${session.branch} (restore: git worktree add`,
    );
    expect(JSON.parse((await s.h.grove(['ls', '--json'])).stdout)).toEqual([]);
    expect(
      ListSchema.parse(JSON.parse((await s.h.grove(['ls', '--all', '--json'])).stdout)).map(
        (s) => s.status,
      ),
    ).toEqual(['Canceled']);
  });
});

describe('grove cancel --json', () => {
  it('prints nothing when refused (exit 2), then the canceled session and the branch keeping its work', async () => {
    const session = s.made;

    const refused = await s.h.grove(['cancel', session.sessionId, '--json']);

    expectExit(refused, 2);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toContain('Run again with --yes to cancel.');

    const canceled = await s.h.grove(['cancel', session.sessionId, '--json', '--yes']);

    expectExit(canceled, 0);
    expect(canceled.stderr).toBe('');
    expect(CancelSchema.parse(JSON.parse(canceled.stdout))).toEqual({
      sessionId: session.sessionId,
      status: 'Canceled',
      keptBranch: session.branch,
    });
  });
});

describe('grove publish', () => {
  // Publishing itself (push, pull request) is tested with a fake GitHub in publish.test.ts.
  it('says so when the project has no origin remote (exit 1)', async () => {
    const session = s.made;

    const run = await s.h.grove(['publish', session.sessionId.slice(0, 8)]);

    expectExit(run, 1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe('grove: The project has no "origin" remote to publish to.\n');
    expect((await showJson(session.sessionId)).status).toBe('Review');
  });
});
