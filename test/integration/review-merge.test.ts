import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { gate } from '../helpers/fake-model/server.js';
import { git } from '../helpers/grove-env.js';
import {
  makeReviewWorld,
  reply,
  waitFor,
  writeFiles,
  type ReviewWorld,
} from '../helpers/review-world.js';

// Landing sessions on main through the merge queue: real git, real SQLite,
// the real Claude Code CLI (against the fake model server) for conflicts.

let w: ReviewWorld;

beforeEach(async () => {
  w = await makeReviewWorld();
});

afterEach(async () => {
  await w.close();
});

/** Presses `m` and confirms, as the session view does. */
function merge(sessionId: string): void {
  w.controller.requestMerge(sessionId);
  expect(w.app.state.popup).toMatchObject({
    kind: 'confirm',
    intent: { kind: 'merge', sessionId },
  });
  w.controller.confirmMerge(sessionId);
}

async function settled(sessionId: string, statuses: readonly string[]): Promise<void> {
  await waitFor(`session ${sessionId} to reach ${statuses.join('/')}`, async () =>
    statuses.includes((await w.get(sessionId)).status),
  );
  await w.controller.workers.idle(sessionId);
}

/** Statuses the session went through, from the app events. */
function statusTrail(sessionId: string): string[] {
  return w.events.flatMap((e) =>
    e.type === 'sessionUpdated' && e.session.id === sessionId ? [e.session.status] : [],
  );
}

/** Waits for a merge of the session to start and end (Done, or back to Review). */
async function mergeEnded(sessionId: string): Promise<void> {
  await waitFor(`the merge of ${sessionId} to start`, () =>
    statusTrail(sessionId).includes('Merging'),
  );
  await settled(sessionId, ['Done', 'Review']);
}

describe('merge', () => {
  it('squash-merges a session the agent worked on, with its commit message, and removes the worktree and branch', async () => {
    const prompt = 'Write the notes file';
    w.server.script('anthropic', [
      { when: 'Write a title for a coding task', text: reply('Write the notes') },
      {
        when: 'Write the git commit message for the changes',
        text: reply('Add team notes\n\nNotes for the team.'),
      },
      {
        when: prompt,
        toolCall: { kind: 'write_file', path: 'notes.md', content: '# Notes\n\nline one\n' },
      },
      { when: prompt, text: reply('Wrote notes.md') },
    ]);
    const session = await w.controller.sessions.create(
      w.projectId,
      { agent: 'claude', model: 'sonnet', reasoning: 'high' },
      w.app.state.settings,
    );
    await w.controller.sessions.whenReady(session.id);
    expect(await w.controller.submitPrompt(session.id, prompt)).toBeNull();
    await settled(session.id, ['Review']);
    await w.controller.turns.settled();
    const before = await w.get(session.id);
    expect(before.commitMessage).toContain('Add team notes');
    expect(git(before.worktreePath, 'log', '-1', '--format=%s')).toBe('Add team notes');

    merge(session.id);
    await mergeEnded(session.id);

    const after = await w.get(session.id);
    expect(after.status).toBe('Done');
    const head = git(w.repo, 'rev-parse', 'main');
    expect(after.mergedCommit).toBe(head);
    expect(git(w.repo, 'log', '-1', '--format=%B', 'main')).toBe(
      'Add team notes\n\nNotes for the team.',
    );
    // One squashed commit on top of the initial one, with the agent's file.
    expect(git(w.repo, 'rev-list', '--count', 'main')).toBe('2');
    expect(git(w.repo, 'rev-list', '--parents', '-n', '1', 'main').split(' ')).toHaveLength(2);
    expect(readFileSync(join(w.repo, 'notes.md'), 'utf8')).toBe('# Notes\n\nline one\n');
    expect(git(w.repo, 'status', '--porcelain')).toBe('');
    expect(existsSync(before.worktreePath)).toBe(false);
    expect(git(w.repo, 'branch', '--list', before.branch)).toBe('');
    expect(git(w.repo, 'worktree', 'list', '--porcelain')).not.toContain(before.worktreePath);
    expect((await w.notices(session.id)).at(-1)).toMatch(
      new RegExp(`Merged into main as ${head.slice(0, 12)}`),
    );
  });

  it('hands a rebase conflict to the agent, which resolves it, then lands the session', async () => {
    w.commitOnMain({ 'shared.txt': 'one\ntwo\nthree\n' }, 'Add shared.txt');
    const session = await w.session({
      files: { 'shared.txt': 'one\nSESSION\nthree\n', 'extra.txt': 'extra\n' },
      message: 'Change two in the session\n\nBody of the session commit.',
    });
    w.commitOnMain({ 'shared.txt': 'one\nMAIN\nthree\n' }, 'Change two on main');
    w.server.script('anthropic', [
      {
        when: 'Grove is rebasing this branch onto `main`',
        toolCall: {
          kind: 'write_file',
          path: 'shared.txt',
          content: 'one\nMAIN\nSESSION\nthree\n',
        },
      },
      { when: 'Grove is rebasing this branch onto `main`', text: reply('Kept both lines.') },
    ]);

    merge(session.id);
    await mergeEnded(session.id);

    const after = await w.get(session.id);
    expect(after.status).toBe('Done');
    expect(git(w.repo, 'log', '--format=%s', 'main').split('\n')).toEqual([
      'Change two in the session',
      'Change two on main',
      'Add shared.txt',
      'Initial commit',
    ]);
    expect(git(w.repo, 'log', '-1', '--format=%B', 'main')).toBe(
      'Change two in the session\n\nBody of the session commit.',
    );
    expect(readFileSync(join(w.repo, 'shared.txt'), 'utf8')).toBe('one\nMAIN\nSESSION\nthree\n');
    expect(readFileSync(join(w.repo, 'extra.txt'), 'utf8')).toBe('extra\n');
    expect(after.mergedCommit).toBe(git(w.repo, 'rev-parse', 'main'));
    const notices = await w.notices(session.id);
    expect(notices.some((n) => /Conflicts in shared\.txt; asking the agent/.test(n))).toBe(true);
    // The agent was asked about exactly the conflicted file, in the session worktree.
    const asked = JSON.stringify(w.server.modelRequests('anthropic').map((r) => r.body));
    expect(asked).toContain('- shared.txt');
    expect(existsSync(session.worktreePath)).toBe(false);
    expect(git(w.repo, 'branch', '--list', session.branch)).toBe('');
  });

  it('aborts a conflict the agent cannot resolve: back to Review, files named, branch as it was', async () => {
    w.commitOnMain({ 'shared.txt': 'one\ntwo\nthree\n', 'other.txt': 'x\n' }, 'Add shared files');
    const session = await w.session({
      files: { 'shared.txt': 'one\nSESSION\nthree\n', 'other.txt': 'session\n' },
      message: 'Session change',
    });
    const mainHead = w.commitOnMain(
      { 'shared.txt': 'one\nMAIN\nthree\n', 'other.txt': 'main\n' },
      'Main change',
    );
    const branchHead = git(w.repo, 'rev-parse', session.branch);
    // The agent answers without touching the files: the markers stay, three times.
    w.server.script(
      'anthropic',
      [1, 2, 3].map(() => ({
        when: 'Grove is rebasing this branch onto',
        text: reply('I could not decide.'),
      })),
    );

    merge(session.id);
    await mergeEnded(session.id);

    const after = await w.get(session.id);
    expect(after.status).toBe('Review');
    expect(after.mergedCommit).toBeNull();
    const notices = await w.notices(session.id);
    const last = notices.at(-1) ?? '';
    expect(last).toMatch(/^\[Merge Error\]/);
    expect(last).toContain('other.txt');
    expect(last).toContain('shared.txt');
    expect(last).toMatch(/aborted/);
    expect(notices.filter((n) => /asking the agent to resolve them/.test(n))).toHaveLength(3);
    // Nothing moved: branch, worktree, main.
    expect(git(w.repo, 'rev-parse', session.branch)).toBe(branchHead);
    expect(git(session.worktreePath, 'rev-parse', 'HEAD')).toBe(branchHead);
    expect(git(session.worktreePath, 'symbolic-ref', '--short', 'HEAD')).toBe(session.branch);
    expect(await w.infra.git.isRebaseInProgress(session.worktreePath)).toBe(false);
    expect(git(session.worktreePath, 'status', '--porcelain')).toBe('');
    expect(readFileSync(join(session.worktreePath, 'shared.txt'), 'utf8')).toBe(
      'one\nSESSION\nthree\n',
    );
    expect(git(w.repo, 'rev-parse', 'main')).toBe(mainHead);
    expect(git(w.repo, 'status', '--porcelain')).toBe('');
    // It can be merged again later.
    expect(w.app.state.sessions.find((s) => s.id === session.id)?.status).toBe('Review');
  });

  it('refuses to merge into a dirty main checkout and touches nothing', async () => {
    const session = await w.session({
      files: { 'feature.txt': 'feature\n' },
      message: 'Add the feature',
    });
    writeFiles(w.repo, { 'README.md': '# project\nlocal edit\n', 'scratch.txt': 'mine\n' });
    const mainHead = git(w.repo, 'rev-parse', 'main');
    const branchHead = git(w.repo, 'rev-parse', session.branch);
    const status = git(w.repo, 'status', '--porcelain');

    merge(session.id);
    await mergeEnded(session.id);

    const after = await w.get(session.id);
    expect(after.status).toBe('Review');
    expect((await w.notices(session.id)).at(-1)).toMatch(
      /main checkout .* has uncommitted changes.*Nothing was changed/,
    );
    expect(git(w.repo, 'rev-parse', 'main')).toBe(mainHead);
    expect(git(w.repo, 'status', '--porcelain')).toBe(status);
    expect(readFileSync(join(w.repo, 'README.md'), 'utf8')).toBe('# project\nlocal edit\n');
    expect(git(w.repo, 'rev-parse', session.branch)).toBe(branchHead);
    expect(existsSync(join(session.worktreePath, 'feature.txt'))).toBe(true);
  });

  it('refuses to merge when the main checkout is on another branch', async () => {
    const session = await w.session({
      files: { 'feature.txt': 'feature\n' },
      message: 'Add the feature',
    });
    git(w.repo, 'checkout', '-q', '-b', 'elsewhere');
    const mainHead = git(w.repo, 'rev-parse', 'main');

    merge(session.id);
    await mergeEnded(session.id);

    expect((await w.get(session.id)).status).toBe('Review');
    expect((await w.notices(session.id)).at(-1)).toMatch(/is on elsewhere, not main/);
    expect(git(w.repo, 'rev-parse', 'main')).toBe(mainHead);
    expect(git(w.repo, 'rev-parse', 'elsewhere')).toBe(mainHead);
  });

  it('runs queued merges one at a time, first in first out', async () => {
    w.commitOnMain({ 'slow.txt': 'base\n' }, 'Add slow.txt');
    const a = await w.session({ files: { 'a.txt': 'a\n' }, message: 'Session A' });
    const b = await w.session({
      files: { 'b.txt': 'b\n', 'slow.txt': 'from B\n' },
      message: 'Session B',
    });
    const c = await w.session({ files: { 'c.txt': 'c\n' }, message: 'Session C' });
    w.commitOnMain({ 'slow.txt': 'from main\n' }, 'Touch slow.txt on main');
    // B goes first and its merge takes a while (the agent resolves a conflict, held until
    // the queue is checked), so C and A wait in the queue.
    const resolving = gate();
    w.server.script('anthropic', [
      {
        when: 'Grove is rebasing this branch onto',
        until: resolving.opened,
        then: {
          toolCall: { kind: 'write_file', path: 'slow.txt', content: 'from main\nfrom B\n' },
        },
      },
      { when: 'Grove is rebasing this branch onto', text: reply('Merged both.') },
    ]);

    merge(b.id);
    await waitFor('B to merge', () => statusTrail(b.id).includes('Merging'));
    merge(c.id);
    await waitFor('C queued', () => statusTrail(c.id).includes('Queued'));
    merge(a.id);
    await waitFor('A queued', () => statusTrail(a.id).includes('Queued'));
    expect((await w.get(b.id)).status).toBe('Merging');
    expect((await w.get(c.id)).status).toBe('Queued');
    expect((await w.get(a.id)).status).toBe('Queued');
    resolving.open();

    for (const s of [b, c, a]) await settled(s.id, ['Done']);
    await waitFor('every merge to finish', async () =>
      (await Promise.all([a, b, c].map((s) => w.get(s.id)))).every(
        (s) => s.status === 'Done' || s.status === 'Review',
      ),
    );

    for (const s of [a, b, c]) expect((await w.get(s.id)).status).toBe('Done');
    // First in, first out on main.
    expect(git(w.repo, 'log', '--format=%s', 'main').split('\n').slice(0, 3)).toEqual([
      'Session A',
      'Session C',
      'Session B',
    ]);
    // One at a time: never two sessions Merging at once.
    const merging = new Set<string>();
    const order: string[] = [];
    for (const e of w.events) {
      if (e.type !== 'sessionUpdated') continue;
      if (e.session.status === 'Merging' && !merging.has(e.session.id)) {
        merging.add(e.session.id);
        order.push(e.session.id);
        expect(merging.size).toBe(1);
      } else if (e.session.status !== 'Merging') merging.delete(e.session.id);
    }
    expect(order).toEqual([b.id, c.id, a.id]);
    expect(readFileSync(join(w.repo, 'slow.txt'), 'utf8')).toBe('from main\nfrom B\n');
  });

  it('includes work left uncommitted in the worktree', async () => {
    const session = await w.session({
      files: { 'feature.txt': 'v1\n' },
      message: 'Add the feature',
    });
    writeFiles(session.worktreePath, { 'feature.txt': 'v2\n', 'later.txt': 'added by hand\n' });

    merge(session.id);
    await mergeEnded(session.id);

    expect((await w.get(session.id)).status).toBe('Done');
    expect(git(w.repo, 'show', 'main:feature.txt')).toBe('v2');
    expect(git(w.repo, 'show', 'main:later.txt')).toBe('added by hand');
    expect(git(w.repo, 'log', '-1', '--format=%s', 'main')).toBe('Add the feature');
    expect(git(w.repo, 'rev-list', '--count', 'main')).toBe('2');
  });

  it('puts main back and returns to Review when the squash commit fails (a signing program that refuses)', async () => {
    const session = await w.session({
      files: { 'feature.txt': 'feature\n' },
      message: 'Add the feature',
    });
    const mainHead = git(w.repo, 'rev-parse', 'main');
    writeFiles(w.world.dir, {
      'refuse-sign': '#!/bin/sh\necho "signing: the key is locked" >&2\nexit 1\n',
    });
    chmodSync(join(w.world.dir, 'refuse-sign'), 0o755);
    git(w.repo, 'config', 'commit.gpgsign', 'true');
    git(w.repo, 'config', 'gpg.program', join(w.world.dir, 'refuse-sign'));

    merge(session.id);
    await mergeEnded(session.id);

    const after = await w.get(session.id);
    expect(after.status).toBe('Review');
    expect(after.mergedCommit).toBeNull();
    const last = (await w.notices(session.id)).at(-1) ?? '';
    expect(last).toMatch(/^\[Merge Error\] The squash merge failed and was undone/);
    expect(last).toContain('gpg failed to sign');
    expect(git(w.repo, 'rev-parse', 'main')).toBe(mainHead);
    expect(git(w.repo, 'status', '--porcelain')).toBe('');
    expect(existsSync(join(w.repo, 'feature.txt'))).toBe(false);
    expect(git(w.repo, 'show', `${session.branch}:feature.txt`)).toBe('feature');
    expect(existsSync(session.worktreePath)).toBe(true);
    git(w.repo, 'config', '--unset', 'commit.gpgsign');
  });

  it("runs none of the repository's hooks at the squash commit (they could hold code an agent wrote)", async () => {
    const session = await w.session({
      files: { 'feature.txt': 'feature\n' },
      message: 'Add the feature',
    });
    writeFiles(w.repo, {
      '.git/hooks/commit-msg': '#!/bin/sh\necho "commit-msg: tickets need an ID" >&2\nexit 1\n',
      '.git/hooks/pre-commit': `#!/bin/sh\ntouch '${join(w.world.dir, 'hook-ran')}'\n`,
    });
    chmodSync(join(w.repo, '.git/hooks/commit-msg'), 0o755);
    chmodSync(join(w.repo, '.git/hooks/pre-commit'), 0o755);

    merge(session.id);
    await mergeEnded(session.id);

    expect((await w.get(session.id)).status).toBe('Done');
    expect(git(w.repo, 'show', 'main:feature.txt')).toBe('feature');
    expect(existsSync(join(w.world.dir, 'hook-ran'))).toBe(false);
  });

  it('with Repository hooks sandboxed, the commit-msg hook runs in the sandbox: it can refuse the squash commit, not write outside', async () => {
    await w.infra.store.settings.setProject(w.projectId, 'git.hooks', 'sandboxed');
    const session = await w.session({
      files: { 'feature.txt': 'feature\n' },
      message: 'Add the feature',
    });
    const mainHead = git(w.repo, 'rev-parse', 'main');
    const escaped = join(w.world.dir, 'hook-escaped');
    writeFiles(w.repo, {
      '.git/hooks/commit-msg': `#!/bin/sh\necho out > '${escaped}' 2>/dev/null\necho "commit-msg: tickets need an ID" >&2\nexit 1\n`,
    });
    chmodSync(join(w.repo, '.git/hooks/commit-msg'), 0o755);

    merge(session.id);
    await mergeEnded(session.id);

    expect((await w.get(session.id)).status).toBe('Review');
    const last = (await w.notices(session.id)).at(-1) ?? '';
    expect(last).toMatch(/^\[Merge Error\] The squash merge failed and was undone/);
    expect(last).toContain('rejected by a git hook (commit-msg, run in the sandbox)');
    expect(last).toContain('tickets need an ID');
    expect(git(w.repo, 'rev-parse', 'main')).toBe(mainHead);
    expect(git(w.repo, 'status', '--porcelain')).toBe('');
    expect(existsSync(escaped)).toBe(false);
  });

  it('stops a merge whose base branch was deleted, in words that say how to pick another base', async () => {
    const session = await w.session({ files: { 'feature.txt': 'feature\n' }, message: 'Add it' });
    git(w.repo, 'checkout', '-q', '-b', 'trunk');
    git(w.repo, 'branch', '-D', 'main');

    merge(session.id);
    await mergeEnded(session.id);

    expect((await w.get(session.id)).status).toBe('Review');
    const last = (await w.notices(session.id)).at(-1) ?? '';
    expect(last).toMatch(
      /^\[Merge Error\] The merge stopped: the session's base branch main no longer exists/,
    );
    expect(last).toContain('point it at the branch you want as the base instead');
    expect(git(w.repo, 'show', `${session.branch}:feature.txt`)).toBe('feature');
  });

  it('says which commits a merge brings back when the base was rewound under the session', async () => {
    w.commitOnMain({ 'dropped.txt': 'dropped\n' }, 'A commit main drops later');
    const session = await w.session({ files: { 'feature.txt': 'feature\n' }, message: 'Add it' });
    git(w.repo, 'reset', '-q', '--hard', 'HEAD~1');

    merge(session.id);
    await mergeEnded(session.id);

    const notices = await w.notices(session.id);
    const warning = notices.find((n) => n.includes('was rewound since this session started')) ?? '';
    expect(warning).toMatch(/^\[Merge\] main was rewound/);
    expect(warning).toContain('A commit main drops later');
  });

  it('moves on to the next queued session when a merge fails', async () => {
    w.commitOnMain({ 'shared.txt': 'one\n' }, 'Add shared.txt');
    const failing = await w.session({
      files: { 'shared.txt': 'SESSION\n' },
      message: 'Failing session',
    });
    const next = await w.session({ files: { 'next.txt': 'next\n' }, message: 'Next session' });
    w.commitOnMain({ 'shared.txt': 'MAIN\n' }, 'Main edit');
    // The agent's failure comes once the second merge is queued behind the first.
    const queued = gate();
    w.server.script('anthropic', [
      {
        when: 'Grove is rebasing this branch onto',
        until: queued.opened,
        then: {
          error: {
            status: 401,
            body: {
              type: 'error',
              error: { type: 'authentication_error', message: 'invalid x-api-key' },
            },
          },
        },
      },
    ]);

    merge(failing.id);
    await waitFor('the first merge to start', () => statusTrail(failing.id).includes('Merging'));
    merge(next.id);
    await waitFor('the second to queue', () => statusTrail(next.id).includes('Queued'));
    queued.open();
    await mergeEnded(next.id);

    expect((await w.get(failing.id)).status).toBe('Review');
    expect((await w.notices(failing.id)).at(-1)).toMatch(
      /^\[Merge Error\] .*shared\.txt.*the agent could not help/,
    );
    expect((await w.get(next.id)).status).toBe('Done');
    expect(git(w.repo, 'log', '-1', '--format=%s', 'main')).toBe('Next session');
  });

  it('does not land into a main checkout that became dirty while the agent resolved conflicts', async () => {
    w.commitOnMain({ 'shared.txt': 'one\n' }, 'Add shared.txt');
    const session = await w.session({
      files: { 'shared.txt': 'SESSION\n' },
      message: 'Session edit',
    });
    const mainHead = w.commitOnMain({ 'shared.txt': 'MAIN\n' }, 'Main edit');
    // The agent resolves once the person has staged their work (below).
    const staged = gate();
    w.server.script('anthropic', [
      {
        when: 'Grove is rebasing this branch onto `main`',
        until: staged.opened,
        then: { toolCall: { kind: 'write_file', path: 'shared.txt', content: 'MAIN\nSESSION\n' } },
      },
      { when: 'Grove is rebasing this branch onto `main`', text: reply('Resolved.') },
    ]);

    merge(session.id);
    await waitFor('the agent to be asked', async () =>
      (await w.notices(session.id)).some((n) => /asking the agent/.test(n)),
    );
    // Meanwhile the person stages work of their own in the main checkout.
    writeFiles(w.repo, { 'mine.txt': 'my staged work\n', 'README.md': '# project\nmy edit\n' });
    git(w.repo, 'add', 'mine.txt');
    staged.open();
    await mergeEnded(session.id);

    expect((await w.get(session.id)).status).toBe('Review');
    expect((await w.notices(session.id)).at(-1)).toMatch(/has uncommitted changes/);
    expect(git(w.repo, 'rev-parse', 'main')).toBe(mainHead);
    expect(git(w.repo, 'diff', '--cached', '--name-only')).toBe('mine.txt');
    expect(readFileSync(join(w.repo, 'README.md'), 'utf8')).toBe('# project\nmy edit\n');
    expect(readFileSync(join(w.repo, 'mine.txt'), 'utf8')).toBe('my staged work\n');
    // The session's branch holds the resolved work, ready to merge again.
    expect(git(w.repo, 'show', `${session.branch}:shared.txt`)).toBe('MAIN\nSESSION');
  });

  it('aborts a rebase an interrupted run left in the worktree first, never commits its conflict markers, and lands the session', async () => {
    w.commitOnMain({ 'shared.txt': 'one\ntwo\n' }, 'Add shared.txt');
    const session = await w.session({
      files: { 'shared.txt': 'one\nSESSION\n' },
      message: 'Session change',
    });
    w.commitOnMain({ 'shared.txt': 'one\nMAIN\n' }, 'Main change');
    const branchHead = git(w.repo, 'rev-parse', session.branch);
    // Left mid-rebase, with conflict markers in shared.txt.
    spawnSync('git', ['rebase', 'main'], { cwd: session.worktreePath });
    expect(await w.infra.git.isRebaseInProgress(session.worktreePath)).toBe(true);
    w.server.script('anthropic', [
      {
        when: 'Grove is rebasing this branch onto `main`',
        toolCall: { kind: 'write_file', path: 'shared.txt', content: 'one\nMAIN\nSESSION\n' },
      },
      { when: 'Grove is rebasing this branch onto `main`', text: reply('Kept both.') },
    ]);

    merge(session.id);
    await mergeEnded(session.id);

    expect((await w.get(session.id)).status).toBe('Done');
    expect(git(w.repo, 'show', 'main:shared.txt')).toBe('one\nMAIN\nSESSION');
    expect(git(w.repo, 'log', '-p', 'main')).not.toMatch(/^\+(<{7}|>{7})/m);
    const notices = await w.notices(session.id);
    expect(notices).toContain(
      `[Merge] The worktree was in the middle of an unfinished git rebase. Grove aborted it first: ${session.branch} is at ${branchHead.slice(0, 12)}, as before that rebase.`,
    );
  });
});
