import { createHash } from 'node:crypto';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { GitStatusView } from '../../src/app/state.js';
import { git } from '../helpers/grove-env.js';
import { makeReviewWorld, waitFor, writeFiles, type ReviewWorld } from '../helpers/review-world.js';

// What a person reads before landing (the diff), throwing work away without
// losing it (cancel), and the background probe for sessions that would conflict.

let w: ReviewWorld;

beforeEach(async () => {
  w = await makeReviewWorld();
});

afterEach(async () => {
  await w.close();
});

/** A PNG header and some bytes with NULs: git sees a binary file. */
const BINARY = Buffer.from([
  0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52, 0, 1, 2, 3,
  0, 255,
]);

function indexHash(worktree: string): string {
  const gitDir = git(worktree, 'rev-parse', '--absolute-git-dir');
  return createHash('sha256')
    .update(readFileSync(join(gitDir, 'index')))
    .digest('hex');
}

describe('the session diff', () => {
  it('is the branch against its merge base plus uncommitted and untracked files, and leaves the real index alone', async () => {
    w.commitOnMain({ 'gone.txt': 'to be deleted\n', 'keep.txt': 'a\nb\nc\n' }, 'Add files');
    const session = await w.session({
      files: { 'keep.txt': 'a\nB\nc\n', 'committed.txt': 'one\ntwo\n' },
      message: 'Session work',
    });
    // main moves on after the session started: none of it belongs in the session's diff.
    w.commitOnMain({ 'main-only.txt': 'main\n', 'keep.txt': 'a\nb\nc\nd\n' }, 'Main moves on');
    const wt = session.worktreePath;
    writeFiles(wt, { 'staged.txt': 'staged\n' });
    git(wt, 'add', 'staged.txt');
    writeFiles(wt, {
      'committed.txt': 'one\ntwo\nthree\n',
      'untracked.txt': 'new\nfile\n',
      'logo.png': BINARY,
      'docs/café notes.md': 'accents\n',
      'say "hi".txt': 'quoted\n',
    });
    git(wt, 'rm', '-q', 'gone.txt');
    git(wt, 'status', '--porcelain');
    const cachedBefore = git(wt, 'diff', '--cached');
    const statusBefore = git(wt, 'status', '--porcelain');
    const hashBefore = indexHash(wt);
    const headBefore = git(wt, 'rev-parse', 'HEAD');

    w.controller.openDiff(session.id);
    expect(w.app.state.mode).toMatchObject({ kind: 'diff', sessionId: session.id });
    const view = await waitFor('the diff to load', () =>
      w.app.state.diff?.sessionId === session.id && !w.app.state.diff.loading
        ? w.app.state.diff
        : undefined,
    );

    // The real index was never written.
    expect(indexHash(wt)).toBe(hashBefore);
    expect(git(wt, 'diff', '--cached')).toBe(cachedBefore);
    expect(git(wt, 'status', '--porcelain')).toBe(statusBefore);
    expect(git(wt, 'rev-parse', 'HEAD')).toBe(headBefore);

    expect(view.error).toBeNull();
    const byPath = Object.fromEntries(view.files.map((f) => [f.path, f]));
    expect(Object.keys(byPath).sort()).toEqual([
      'committed.txt',
      'docs/café notes.md',
      'gone.txt',
      'keep.txt',
      'logo.png',
      'say "hi".txt',
      'staged.txt',
      'untracked.txt',
    ]);
    expect(byPath['keep.txt']).toMatchObject({
      status: 'modified',
      added: 1,
      deleted: 1,
      binary: false,
    });
    expect(byPath['committed.txt']).toMatchObject({ status: 'added', added: 3, deleted: 0 });
    expect(byPath['untracked.txt']).toMatchObject({ status: 'added', added: 2, deleted: 0 });
    expect(byPath['staged.txt']).toMatchObject({ status: 'added', added: 1 });
    expect(byPath['gone.txt']).toMatchObject({ status: 'deleted', deleted: 1 });
    expect(byPath['logo.png']).toMatchObject({
      status: 'added',
      binary: true,
      added: 0,
      deleted: 0,
      patch: '',
      summarized: `Binary file added: 0 → ${BINARY.length} bytes.`,
    });
    expect(byPath['docs/café notes.md']).toMatchObject({ status: 'added', added: 1 });
    expect(byPath['docs/café notes.md']?.patch).toContain('+accents');
    // git still quotes a name with a double quote in the patch header.
    expect(byPath['say "hi".txt']?.patch).toContain('+quoted');
    expect(byPath['keep.txt']?.patch).toContain('-b');
    expect(byPath['keep.txt']?.patch).toContain('+B');
    expect(byPath['keep.txt']?.patch).not.toContain('+d');
    expect(byPath['untracked.txt']?.patch).toContain('+new');
    expect(view.files.some((f) => f.path === 'main-only.txt')).toBe(false);
    expect(view.added).toBe(1 + 3 + 2 + 1 + 1 + 1);
    expect(view.deleted).toBe(1 + 1);
  });

  it('shows a large file in full, parsed into numbered rows while loading', async () => {
    const big = Array.from({ length: 20_000 }, (_, i) => `line ${i}`).join('\n');
    const session = await w.session({ files: { 'small.txt': 'small\n' }, message: 'Small' });
    writeFiles(session.worktreePath, { 'big.txt': `${big}\n` });

    w.controller.openDiff(session.id);
    const view = await waitFor('the diff to load', () =>
      w.app.state.diff?.sessionId === session.id && !w.app.state.diff.loading
        ? w.app.state.diff
        : undefined,
    );

    const file = view.files.find((f) => f.path === 'big.txt');
    expect(file).toMatchObject({ added: 20_000, summarized: null });
    expect(file?.rows).toHaveLength(20_001);
    expect(file?.rows?.at(-1)).toEqual({
      kind: 'add',
      text: 'line 19999',
      oldNo: null,
      newNo: 20_000,
      hunk: 0,
    });
  });

  it('summarises a file too huge to show instead of printing it', async () => {
    const huge = Array.from({ length: 200_001 }, (_, i) => `${i}`).join('\n');
    const session = await w.session({ files: { 'small.txt': 'small\n' }, message: 'Small' });
    writeFiles(session.worktreePath, { 'huge.txt': `${huge}\n` });

    w.controller.openDiff(session.id);
    const view = await waitFor('the diff to load', () =>
      w.app.state.diff?.sessionId === session.id && !w.app.state.diff.loading
        ? w.app.state.diff
        : undefined,
    );

    const file = view.files.find((f) => f.path === 'huge.txt');
    expect(file).toMatchObject({ added: 200_001, patch: '' });
    expect(file?.summarized).toMatch(/Large change: \+200001/);
    expect(view.files.find((f) => f.path === 'small.txt')?.patch).toContain('+small');
  });
});

describe('cancel', () => {
  function confirmPopupLines(sessionId: string): Promise<readonly string[]> {
    w.controller.requestCancel(sessionId);
    return waitFor('the cancel confirmation', () => {
      const popup = w.app.state.popup;
      return popup?.kind === 'confirm' &&
        popup.intent.kind === 'cancelSession' &&
        popup.intent.sessionId === sessionId
        ? popup.lines
        : undefined;
    });
  }

  async function canceled(sessionId: string): Promise<void> {
    w.controller.confirmCancel(sessionId);
    await waitFor(
      'the session to be canceled',
      async () => (await w.get(sessionId)).status === 'Canceled',
    );
  }

  it('commits the uncommitted work of a dirty session to its branch, keeps the branch, and removes the worktree', async () => {
    const session = await w.session({
      files: { 'feature.txt': 'feature\n' },
      message: 'Add the feature',
    });
    const wt = session.worktreePath;
    writeFiles(wt, {
      'feature.txt': 'feature\nedited by hand\n',
      'idea.txt': 'unsaved idea\n',
      'pic.png': BINARY,
    });
    const mainHead = git(w.repo, 'rev-parse', 'main');

    const lines = await confirmPopupLines(session.id);
    expect(lines.join('\n')).toMatch(/3 uncommitted change\(s\) and 1 commit\(s\) not on main/);
    expect(lines.join('\n')).toContain(
      `committed to ${session.branch} first and the branch is kept`,
    );

    await canceled(session.id);

    const after = await w.get(session.id);
    expect(after.keptBranch).toBe(session.branch);
    expect(existsSync(wt)).toBe(false);
    expect(git(w.repo, 'worktree', 'list', '--porcelain')).not.toContain(wt);
    // Everything the worktree held is on the branch.
    expect(git(w.repo, 'show', `${session.branch}:feature.txt`)).toBe('feature\nedited by hand');
    expect(git(w.repo, 'show', `${session.branch}:idea.txt`)).toBe('unsaved idea');
    expect(git(w.repo, 'cat-file', '-s', `${session.branch}:pic.png`)).toBe(String(BINARY.length));
    expect(git(w.repo, 'log', '--format=%s', `main..${session.branch}`).split('\n')).toHaveLength(
      2,
    );
    const restore = `git worktree add ../${session.branch.replace('/', '-')} ${session.branch}`;
    expect((await w.notices(session.id)).at(-1)).toBe(
      `[Cancel] Canceled. The work is kept on branch ${session.branch}; restore it with: ${restore}`,
    );
    // main is untouched, and the restore command works.
    expect(git(w.repo, 'rev-parse', 'main')).toBe(mainHead);
    expect(git(w.repo, 'status', '--porcelain')).toBe('');
    git(w.repo, ...restore.split(' ').slice(1));
    expect(
      readFileSync(join(w.world.dir, session.branch.replace('/', '-'), 'idea.txt'), 'utf8'),
    ).toBe('unsaved idea\n');
  });

  it('keeps a clean branch that holds commits not on main', async () => {
    const session = await w.session({
      files: { 'feature.txt': 'feature\n' },
      message: 'Add the feature',
    });
    const head = git(w.repo, 'rev-parse', session.branch);

    expect((await confirmPopupLines(session.id)).join('\n')).toMatch(/1 commit\(s\) not on main/);
    await canceled(session.id);

    expect(git(w.repo, 'rev-parse', session.branch)).toBe(head);
    expect((await w.get(session.id)).keptBranch).toBe(session.branch);
    expect(existsSync(session.worktreePath)).toBe(false);
  });

  it('keeps the branch when the worktree folder was deleted by hand but the branch holds commits', async () => {
    const session = await w.session({
      files: { 'feature.txt': 'feature\n' },
      message: 'Add the feature',
    });
    const head = git(w.repo, 'rev-parse', session.branch);
    rmSync(session.worktreePath, { recursive: true, force: true });

    expect((await confirmPopupLines(session.id)).join('\n')).toMatch(
      /1 commit\(s\) not on main.*the branch is kept/,
    );
    await canceled(session.id);

    expect(git(w.repo, 'rev-parse', session.branch)).toBe(head);
    expect((await w.get(session.id)).keptBranch).toBe(session.branch);
    expect(git(w.repo, 'worktree', 'list', '--porcelain')).not.toContain(session.worktreePath);
  });

  it('deletes the branch of a session that holds no work', async () => {
    const created = await w.controller.sessions.create(
      w.projectId,
      { agent: 'claude', model: 'sonnet', reasoning: 'high' },
      w.app.state.settings,
    );
    await w.controller.sessions.whenReady(created.id);
    await w.infra.store.sessions.setStatus(created.id, 'InProgress', Date.now());
    await w.infra.store.sessions.setStatus(created.id, 'Review', Date.now());
    await w.controller.sessions.publishSession(created.id);
    await waitFor('the session in the snapshot', () =>
      w.app.state.sessions.find((s) => s.id === created.id && s.status === 'Review'),
    );

    expect((await confirmPopupLines(created.id)).join('\n')).toMatch(
      /no work that is not on main; the branch .* is deleted/,
    );
    await canceled(created.id);

    expect(git(w.repo, 'branch', '--list', created.branch)).toBe('');
    expect((await w.get(created.id)).keptBranch).toBeNull();
    expect(existsSync(created.worktreePath)).toBe(false);
  });
});

describe('background git status', () => {
  it('marks sessions that would conflict with main (merge-tree probe) and counts ahead/behind', async () => {
    w.commitOnMain({ 'shared.txt': 'one\ntwo\n', 'other.txt': 'x\n' }, 'Add shared files');
    const conflicting = await w.session({
      files: { 'shared.txt': 'one\nSESSION\n' },
      message: 'Conflicting',
    });
    const clean = await w.session({ files: { 'other.txt': 'y\n' }, message: 'Clean' });
    const current = await w.session({ files: { 'new.txt': 'n\n' }, message: 'Current' });
    w.commitOnMain({ 'shared.txt': 'one\nMAIN\n' }, 'Main edits shared');
    // `current` is rebased by hand so it is not behind.
    git(current.worktreePath, 'rebase', '-q', 'main');
    // Uncommitted edits do not count: the probe is about branches.
    writeFiles(clean.worktreePath, { 'shared.txt': 'one\nDIRTY\n' });
    w.pushFromElsewhere({ 'remote.txt': 'r\n' }, 'Upstream moves');

    const poller = w.controller.gitStatus;
    const seen = w.events.length;
    poller.restart(w.projectId);
    const local = await waitFor('the first status', () => {
      for (const e of w.events.slice(seen)) if (e.type === 'gitStatus') return e.status;
      return undefined;
    });
    expect(local.conflicts).toEqual([conflicting.id]);
    expect(local.sessions[conflicting.id]).toEqual({ ahead: 1, behind: 1 });
    expect(local.sessions[clean.id]).toEqual({ ahead: 1, behind: 1 });
    expect(local.sessions[current.id]).toEqual({ ahead: 1, behind: 0 });
    expect(local).toMatchObject({
      branch: 'main',
      upstream: 'origin/main',
      ahead: 2,
      behind: 0,
      error: null,
    });
    await waitFor('the snapshot', () => w.app.state.git?.conflicts.includes(conflicting.id));

    // A cycle with a fetch sees the upstream commit.
    const fetched = (await poller.cycle(
      w.projectId,
      (poller as unknown as { generation: number }).generation,
      true,
    )) as GitStatusView;
    expect(fetched).toMatchObject({
      ahead: 2,
      behind: 1,
      error: null,
      conflicts: [conflicting.id],
    });

    // Once the conflicting session is rebased with the conflict resolved, it is no longer marked.
    expect(() => git(conflicting.worktreePath, 'rebase', '-q', 'main')).toThrow();
    writeFiles(conflicting.worktreePath, { 'shared.txt': 'one\nMAIN\nSESSION\n' });
    git(conflicting.worktreePath, 'add', 'shared.txt');
    git(conflicting.worktreePath, '-c', 'core.editor=true', 'rebase', '--continue');
    const after = (await poller.cycle(
      w.projectId,
      (poller as unknown as { generation: number }).generation,
      false,
    )) as GitStatusView;
    expect(after.conflicts).toEqual([]);
    expect(after.sessions[conflicting.id]).toEqual({ ahead: 1, behind: 0 });
    poller.stop();
  });

  it('drops the result of a cycle started before a restart (stale generation)', async () => {
    const poller = w.controller.gitStatus;
    poller.restart(w.projectId);
    const stale = (poller as unknown as { generation: number }).generation;
    poller.restart(w.projectId);
    const seen = w.events.filter((e) => e.type === 'gitStatus').length;

    expect(await poller.cycle(w.projectId, stale, false)).toBeNull();
    const fresh = await poller.cycle(
      w.projectId,
      (poller as unknown as { generation: number }).generation,
      false,
    );
    poller.stop();

    expect(fresh).toMatchObject({ branch: 'main', upstream: 'origin/main' });
    // Only the current generation's cycle (and the restart's own first one) reported.
    const reported = w.events.filter((e) => e.type === 'gitStatus').slice(seen);
    expect(reported.length).toBeGreaterThanOrEqual(1);
    expect(reported.length).toBeLessThanOrEqual(2);
  });

  it('reports a failing fetch once, not every cycle', async () => {
    git(w.repo, 'remote', 'set-url', 'origin', join(w.world.dir, 'no-such-origin.git'));
    const poller = w.controller.gitStatus;
    poller.restart(w.projectId);
    const generation = (poller as unknown as { generation: number }).generation;
    const first = await poller.cycle(w.projectId, generation, true);
    const second = await poller.cycle(w.projectId, generation, true);
    poller.stop();
    expect(first?.error).toBeTruthy();
    expect(second?.error).toBeTruthy();
    const notices = w.events.filter(
      (e) => e.type === 'notice' && /Background fetch failed/.test(e.notice?.text ?? ''),
    );
    expect(notices).toHaveLength(1);
  });
});
