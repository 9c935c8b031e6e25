import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseHeadless } from '../../src/cli/args.js';
import { runHeadless } from '../../src/cli/dispatch.js';
import { EXIT } from '../../src/cli/headless.js';
import { reclaimOnStart } from '../../src/app/services/gc.js';
import { DAY_MS, snapshotRef } from '../../src/domain/gc.js';
import { GC_ON_START_KEY } from '../../src/domain/settings.js';
import type { Session } from '../../src/domain/session.js';
import type { SessionStatus } from '../../src/domain/session-status.js';
import { git } from '../helpers/grove-env.js';
import { makeReviewWorld, writeFiles, type ReviewWorld } from '../helpers/review-world.js';
import { GcSchema } from './headless-schema.js';

// `grove gc` on real git and SQLite: old Done and Canceled sessions lose
// their worktrees, never their work.

let w: ReviewWorld;

beforeEach(async () => {
  w = await makeReviewWorld();
});

afterEach(async () => {
  await w.close();
});

/** A session with one commit, moved to `status` and last changed `ageDays` ago. */
async function finished(status: SessionStatus, ageDays: number, title: string): Promise<Session> {
  const session = await w.session({
    files: { [`${title}.txt`]: `${title}\n` },
    message: title,
    title,
  });
  await w.infra.store.sessions.setStatus(session.id, status, w.infra.clock.now());
  await w.infra.db.kysely
    .updateTable('session')
    .set({ updated_at: w.infra.clock.now() - ageDays * DAY_MS })
    .where('id', '=', session.id)
    .execute();
  return w.get(session.id);
}

async function gc(...args: string[]): Promise<{ code: number; out: string }> {
  const stdout = new PassThrough();
  let out = '';
  stdout.on('data', (d: Buffer) => (out += d.toString()));
  const stdin = Object.assign(new PassThrough(), { isTTY: true });
  const code = await runHeadless(parseHeadless('gc', ['-C', w.repo, ...args]), w.infra, {
    stdout,
    stderr: new PassThrough(),
    stdin,
    stderrIsTTY: false,
    env: process.env,
    cwd: w.repo,
  });
  return { code, out };
}

const refs = (): string => git(w.repo, 'for-each-ref', '--format=%(refname)', 'refs/grove/');

describe('grove gc', () => {
  it('keeps modified and untracked files in the snapshot ref, removes the worktree, and prints a restore command that works', async () => {
    const session = await finished('Canceled', 30, 'wip');
    writeFiles(session.worktreePath, {
      'wip.txt': 'wip, edited after the last commit\n',
      'notes/untracked.md': 'never added\n',
    });
    const tip = git(w.repo, 'rev-parse', session.branch);

    const { code, out } = await gc();

    expect(code).toBe(EXIT.ok);
    expect(existsSync(session.worktreePath)).toBe(false);
    const ref = snapshotRef(session.id);
    expect(git(w.repo, 'show', `${ref}:wip.txt`)).toBe('wip, edited after the last commit');
    expect(git(w.repo, 'show', `${ref}:notes/untracked.md`)).toBe('never added');
    expect(git(w.repo, 'rev-parse', `${ref}^`)).toBe(tip);
    expect(out).toContain(`removed  ${session.id.replace(/-/g, '').slice(0, 8)}`);
    expect(out).toContain(`uncommitted work kept at ${ref}`);
    expect(out).toMatch(/^Reclaimed \d+(\.\d)? (B|kB|MB)\.$/m);
    expect(await w.notices(session.id)).toContainEqual(
      expect.stringMatching(
        /^\[Disk\] grove gc removed the worktree .* Its uncommitted work is kept at refs\/grove\/snapshots\//,
      ),
    );

    const restore = /restore: (.*)$/m.exec(out)?.[1] ?? '';
    execFileSync('sh', ['-c', restore], {
      cwd: w.world.dir,
      env: { ...process.env, HOME: w.world.home },
      stdio: 'pipe',
    });
    expect(readFileSync(join(session.worktreePath, 'wip.txt'), 'utf8')).toBe(
      'wip, edited after the last commit\n',
    );
    expect(readFileSync(join(session.worktreePath, 'notes', 'untracked.md'), 'utf8')).toBe(
      'never added\n',
    );
  });

  it('removes a clean old worktree without a snapshot, and leaves young and live sessions alone', async () => {
    const old = await finished('Done', 20, 'old');
    const young = await finished('Canceled', 2, 'young');
    const live = await w.session({
      files: { 'live.txt': 'live\n' },
      message: 'live',
      title: 'live',
    });
    await w.infra.db.kysely
      .updateTable('session')
      .set({ updated_at: w.infra.clock.now() - 90 * DAY_MS })
      .where('id', '=', live.id)
      .execute();

    const { code, out } = await gc('--days', '14');

    expect(code).toBe(EXIT.ok);
    expect(existsSync(old.worktreePath)).toBe(false);
    expect(existsSync(young.worktreePath)).toBe(true);
    expect(existsSync(live.worktreePath)).toBe(true);
    expect(refs()).toBe('');
    expect(out).toContain('nothing uncommitted to keep');
  });

  it('with --dry-run lists what it would do and changes nothing', async () => {
    const session = await finished('Canceled', 30, 'dry');
    writeFiles(session.worktreePath, { 'dry.txt': 'edited\n', 'new.txt': 'untracked\n' });
    const objects = git(w.repo, 'count-objects', '-v');
    const status = git(session.worktreePath, 'status', '--porcelain');
    const transcript = (await w.notices(session.id)).length;

    const { code, out } = await gc('--dry-run');

    expect(code).toBe(EXIT.ok);
    expect(out).toContain(
      `would keep 2 uncommitted or untracked paths at ${snapshotRef(session.id)}`,
    );
    expect(out).toMatch(/^Would reclaim .* \(dry run: nothing was changed\)\.$/m);
    expect(existsSync(session.worktreePath)).toBe(true);
    expect(refs()).toBe('');
    expect(git(w.repo, 'count-objects', '-v')).toBe(objects);
    expect(git(session.worktreePath, 'status', '--porcelain')).toBe(status);
    expect((await w.notices(session.id)).length).toBe(transcript);
  });

  it('--json prints each worktree that would be removed, then each removed, with the bytes', async () => {
    const wip = await finished('Canceled', 30, 'wip');
    writeFiles(wip.worktreePath, { 'wip.txt': 'edited\n' });
    const clean = await finished('Done', 30, 'clean');

    const dry = await gc('--dry-run', '--json');

    expect(dry.code).toBe(EXIT.ok);
    const planned = GcSchema.parse(JSON.parse(dry.out));
    expect(planned).toMatchObject({ dryRun: true, days: 14 });
    expect(planned.items.map((i) => [i.sessionId, i.action, i.snapshot])).toEqual(
      expect.arrayContaining([
        [wip.id, 'wouldRemove', { ref: snapshotRef(wip.id), commit: null, restore: null }],
        [clean.id, 'wouldRemove', null],
      ]),
    );
    expect(planned.bytes).toBe(planned.items.reduce((sum, i) => sum + i.bytes, 0));
    expect(existsSync(wip.worktreePath)).toBe(true);

    const done = await gc('--json');

    expect(done.code).toBe(EXIT.ok);
    const report = GcSchema.parse(JSON.parse(done.out));
    expect(report.dryRun).toBe(false);
    expect(report.items.find((i) => i.sessionId === wip.id)).toMatchObject({
      action: 'removed',
      title: 'wip',
      worktree: wip.worktreePath,
      snapshot: {
        ref: snapshotRef(wip.id),
        commit: git(w.repo, 'rev-parse', snapshotRef(wip.id)),
        restore: expect.stringContaining(' worktree add ') as unknown,
      },
      reason: null,
    });
    expect(report.items.find((i) => i.sessionId === clean.id)?.snapshot).toBeNull();
    expect(report.bytes).toBeGreaterThan(0);
    expect(existsSync(wip.worktreePath)).toBe(false);
  });

  it('never removes a worktree whose work cannot be snapshotted, and says why', async () => {
    const session = await finished('Canceled', 30, 'clash');
    w.commitOnMain({ 'clash.txt': 'main\n' }, 'main adds clash');
    writeFiles(session.worktreePath, { 'clash.txt': 'session\n' });
    git(session.worktreePath, 'add', '-A');
    git(session.worktreePath, 'commit', '-qm', 'session adds clash');
    expect(() =>
      execFileSync('git', ['rebase', 'main'], { cwd: session.worktreePath, stdio: 'pipe' }),
    ).toThrow();

    const json = await gc('--json');
    const { code, out } = await gc();

    expect(json.code).toBe(EXIT.failed);
    expect(GcSchema.parse(JSON.parse(json.out)).items).toEqual([
      expect.objectContaining({
        sessionId: session.id,
        action: 'kept',
        bytes: 0,
        snapshot: null,
        reason: 'a git rebase is half done there',
      }),
    ]);
    expect(code).toBe(EXIT.failed);
    expect(existsSync(join(session.worktreePath, 'clash.txt'))).toBe(true);
    expect(out).toContain(`${session.worktreePath}: not removed, a git rebase is half done there`);
    expect(refs()).toBe('');
  });

  it('reclaims at start-up only with the setting on, and says how much space came back', async () => {
    const session = await finished('Canceled', 30, 'auto');
    const deps = { app: w.app, store: w.infra.store, git: w.infra.git, runtime: w.infra.runtime };

    await reclaimOnStart(deps);
    const keptWhileOff = existsSync(session.worktreePath);
    await w.infra.store.settings.setGlobal(GC_ON_START_KEY, 'on');
    await reclaimOnStart(deps);

    expect(keptWhileOff).toBe(true);
    expect(existsSync(session.worktreePath)).toBe(false);
    const notices = w.events.flatMap((e) =>
      e.type === 'notice' && e.notice ? [e.notice.text] : [],
    );
    expect(notices).toContainEqual(
      expect.stringMatching(
        /^Reclaimed \d+(\.\d)? (B|kB|MB): removed 1 worktree of sessions done over 14 days ago\.$/,
      ),
    );
  });

  it('says so when there is nothing to reclaim', async () => {
    await finished('Canceled', 1, 'recent');

    const { code, out } = await gc();

    expect(code).toBe(EXIT.ok);
    expect(out).toMatch(
      /^Nothing to reclaim: no Done or Canceled session of project last changed 14 or more days ago still has a worktree\.$/m,
    );
  });
});
