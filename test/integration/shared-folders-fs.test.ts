import { lstatSync, readFileSync, readlinkSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Session } from '../../src/domain/session.js';
import { SHARE_MODE_KEY, SHARED_FOLDERS_KEY } from '../../src/domain/shared-folders.js';
import { git } from '../helpers/grove-env.js';
import { makeReviewWorld, writeFiles, type ReviewWorld } from '../helpers/review-world.js';
import { freeBytes, mountScratch, type ScratchKind } from '../helpers/scratch-fs.js';

// Shared dependencies (worktree.shared) on both kinds of file system, whatever
// the machine's temp folder is: a loop-mounted XFS with reflink, where Grove
// clones and the clone shares its blocks with the main checkout, and tmpfs,
// where it cannot clone and so links (symlink mode) or leaves the folder
// alone (clone mode). Each world lives wholly on the mounted file system.

const BIG = 48 * 1024 * 1024;

/** Tests run with a fresh world on a mounted file system of `kind`; skipped, with the reason, where it cannot be mounted. */
function onFileSystem(kind: ScratchKind, body: (world: () => Promise<ReviewWorld>) => void): void {
  const mounted = mountScratch(kind);
  const name = `on ${kind}${mounted.reason ? ` (skipped: ${mounted.reason})` : ''}`;
  describe.skipIf(mounted.fs === null)(name, () => {
    let w: ReviewWorld | null = null;
    const savedTmp = process.env['TMPDIR'];
    beforeAll(() => {
      // The world's folders (repository, worktrees, GROVE_HOME) come from tmpdir().
      if (mounted.fs) process.env['TMPDIR'] = mounted.fs.dir;
    });
    afterAll(() => {
      if (savedTmp === undefined) delete process.env['TMPDIR'];
      else process.env['TMPDIR'] = savedTmp;
      mounted.fs?.close();
    });
    afterEach(async () => {
      await w?.close();
      w = null;
    });
    body(async () => {
      w = await makeReviewWorld();
      writeFiles(w.repo, {
        'node_modules/left-pad/index.js': 'module.exports = 1;\n',
        'node_modules/big/blob.bin': Buffer.alloc(BIG, 7),
      });
      w.commitOnMain({ '.gitignore': 'node_modules\n' }, 'Ignore dependencies');
      return w;
    });
  });
}

async function newSession(w: ReviewWorld, mode: 'clone' | 'symlink'): Promise<Session> {
  const created = await w.controller.sessions.create(
    w.projectId,
    { agent: 'claude', model: 'sonnet', reasoning: 'high' },
    { ...w.app.state.settings, [SHARED_FOLDERS_KEY]: 'node_modules', [SHARE_MODE_KEY]: mode },
  );
  await w.controller.sessions.whenReady(created.id);
  return created;
}

const leftPad = (root: string): string =>
  readFileSync(join(root, 'node_modules/left-pad/index.js'), 'utf8');

onFileSystem('xfs-reflink', (world) => {
  it('clones node_modules into the worktree, sharing its blocks with the main checkout', async () => {
    const w = await world();
    const before = freeBytes(w.repo);

    const session = await newSession(w, 'clone');

    const copy = join(session.worktreePath, 'node_modules');
    expect(lstatSync(copy).isDirectory()).toBe(true);
    expect(lstatSync(copy).isSymbolicLink()).toBe(false);
    expect(leftPad(session.worktreePath)).toBe('module.exports = 1;\n');
    expect(readFileSync(join(copy, 'big/blob.bin')).equals(Buffer.alloc(BIG, 7))).toBe(true);
    // A full copy would take the 48 MB again; a clone takes (almost) nothing.
    expect(before - freeBytes(w.repo)).toBeLessThan(BIG / 4);
    expect(git(session.worktreePath, 'status', '--porcelain')).toBe('');
    expect((await w.notices(session.id)).join('\n')).toContain('node_modules');

    // The clone is the worktree's own: changing it leaves the main checkout alone.
    writeFiles(session.worktreePath, { 'node_modules/left-pad/index.js': 'changed\n' });
    expect(leftPad(w.repo)).toBe('module.exports = 1;\n');
    await w.controller.sessions.discardUnstarted(session.id);
    expect(leftPad(w.repo)).toBe('module.exports = 1;\n');
  });

  it('clones rather than links in symlink mode, since the file system makes clones', async () => {
    const w = await world();

    const session = await newSession(w, 'symlink');

    const copy = join(session.worktreePath, 'node_modules');
    expect(lstatSync(copy).isSymbolicLink()).toBe(false);
    expect(leftPad(session.worktreePath)).toBe('module.exports = 1;\n');
  });
});

onFileSystem('tmpfs', (world) => {
  it('leaves node_modules alone in clone mode, and says the file system cannot clone', async () => {
    const w = await world();
    const before = freeBytes(w.repo);

    const session = await newSession(w, 'clone');

    expect(() => lstatSync(join(session.worktreePath, 'node_modules'))).toThrow();
    expect(before - freeBytes(w.repo)).toBeLessThan(BIG / 4);
    expect((await w.notices(session.id)).join('\n')).toMatch(
      /\[Setup Warning\] Shared folders left alone: node_modules is not shared: this file system cannot make copy-on-write clones/,
    );
  });

  it('links node_modules to the main checkout in symlink mode', async () => {
    const w = await world();

    const session = await newSession(w, 'symlink');

    const link = join(session.worktreePath, 'node_modules');
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readlinkSync(link)).toBe(join(realpathSync(w.repo), 'node_modules'));
    expect(git(session.worktreePath, 'status', '--porcelain')).toBe('');
  });
});
