import {
  lstatSync,
  mkdtempSync,
  rmSync,
  mkdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Session } from '../../src/domain/session.js';
import { SHARE_MODE_KEY, SHARED_FOLDERS_KEY } from '../../src/domain/shared-folders.js';
import { canClone } from '../../src/infra/shared-folders.js';
import { git } from '../helpers/grove-env.js';
import { makeReviewWorld, waitFor, writeFiles, type ReviewWorld } from '../helpers/review-world.js';

// Shared dependencies (worktree.shared) on real git and a real file system:
// what a new worktree gets, what is left alone and why, and that deleting
// the session never touches the main checkout's folder.

let w: ReviewWorld;

/** Whether the temp folder's file system makes copy-on-write clones (ext4 and tmpfs do not; btrfs and xfs do). */
async function tempClones(): Promise<boolean> {
  const dir = mkdtempSync(join(tmpdir(), 'grove-reflink-'));
  try {
    writeFiles(dir, { 'from/a': 'a\n' });
    return await canClone(join(dir, 'from'), dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
const reflink = await tempClones();

beforeEach(async () => {
  w = await makeReviewWorld();
  writeFiles(w.repo, {
    'node_modules/left-pad/index.js': 'module.exports = 1;\n',
    '.venv/bin/python': '#!/bin/sh\n',
  });
});

afterEach(async () => {
  await w.close();
});

function ignore(lines: string): void {
  w.commitOnMain({ '.gitignore': lines }, 'Ignore dependencies');
}

async function newSession(settings: Record<string, string>): Promise<Session> {
  const created = await w.controller.sessions.create(
    w.projectId,
    { agent: 'claude', model: 'sonnet', reasoning: 'high' },
    { ...w.app.state.settings, ...settings },
  );
  await w.controller.sessions.whenReady(created.id);
  return created;
}

const leftPad = (root: string): string =>
  readFileSync(join(root, 'node_modules/left-pad/index.js'), 'utf8');

describe('shared folders in symlink mode', () => {
  it.skipIf(reflink)(
    'links an ignored folder to the main checkout, and deleting the session removes the link, never its target',
    async () => {
      ignore('node_modules\n.venv\n');
      const session = await newSession({
        [SHARED_FOLDERS_KEY]: 'node_modules, .venv',
        [SHARE_MODE_KEY]: 'symlink',
      });

      const link = join(session.worktreePath, 'node_modules');
      expect(lstatSync(link).isSymbolicLink()).toBe(true);
      expect(readlinkSync(link)).toBe(join(realpathSync(w.repo), 'node_modules'));
      expect(leftPad(session.worktreePath)).toBe('module.exports = 1;\n');
      expect(git(session.worktreePath, 'status', '--porcelain')).toBe('');
      expect(await w.notices(session.id)).toContain(
        '[Setup] Shared folders linked to the main checkout (read-only to the agent): node_modules, .venv.',
      );

      await w.controller.sessions.discardUnstarted(session.id);

      expect(() => lstatSync(session.worktreePath)).toThrow();
      expect(leftPad(w.repo)).toBe('module.exports = 1;\n');
      expect(readFileSync(join(w.repo, '.venv/bin/python'), 'utf8')).toBe('#!/bin/sh\n');
    },
  );

  it.skipIf(reflink)(
    'keeps the main checkout intact when a session with a link is canceled',
    async () => {
      ignore('node_modules\n');
      const shared = await newSession({
        [SHARED_FOLDERS_KEY]: 'node_modules',
        [SHARE_MODE_KEY]: 'symlink',
      });
      expect(lstatSync(join(shared.worktreePath, 'node_modules')).isSymbolicLink()).toBe(true);
      writeFiles(shared.worktreePath, { 'b.txt': 'b\n' });

      w.controller.confirmCancel(shared.id);
      await waitFor(
        'the session to be canceled',
        async () => (await w.get(shared.id)).status === 'Canceled',
      );

      expect(() => lstatSync(shared.worktreePath)).toThrow();
      expect(leftPad(w.repo)).toBe('module.exports = 1;\n');
      // The link was never committed with the work kept on cancel.
      expect(git(w.repo, 'ls-tree', '-r', '--name-only', shared.branch)).not.toContain(
        'node_modules',
      );
    },
  );

  it.skipIf(reflink)(
    'leaves a folder git would commit as a link (node_modules/ matches only a folder) and says how to fix it',
    async () => {
      ignore('node_modules/\n');
      const session = await newSession({
        [SHARED_FOLDERS_KEY]: 'node_modules',
        [SHARE_MODE_KEY]: 'symlink',
      });

      expect(() => lstatSync(join(session.worktreePath, 'node_modules'))).toThrow();
      expect(git(session.worktreePath, 'status', '--porcelain')).toBe('');
      expect((await w.notices(session.id)).join('\n')).toContain(
        "node_modules is not shared: git does not ignore it there, so it would be committed with the session's work",
      );
    },
  );
});

describe('shared folders in clone mode', () => {
  it.skipIf(reflink)(
    'leaves the folder alone on a file system without copy-on-write clones, and says so once',
    async () => {
      ignore('node_modules\n.venv\n');
      const session = await newSession({ [SHARED_FOLDERS_KEY]: 'node_modules .venv' });

      expect(() => lstatSync(join(session.worktreePath, 'node_modules'))).toThrow();
      expect(() => lstatSync(join(session.worktreePath, '.venv'))).toThrow();
      const notices = (await w.notices(session.id)).filter((n) => n.includes('Shared folders'));
      expect(notices).toHaveLength(1);
      expect(notices[0]).toMatch(
        /^\[Setup Warning\] Shared folders left alone: node_modules is not shared: this file system cannot make copy-on-write clones/,
      );
    },
  );

  it.runIf(reflink)(
    'clones the folder where the file system makes copy-on-write clones',
    async () => {
      ignore('node_modules\n');
      const session = await newSession({ [SHARED_FOLDERS_KEY]: 'node_modules' });

      const copy = join(session.worktreePath, 'node_modules');
      expect(lstatSync(copy).isDirectory()).toBe(true);
      expect(leftPad(session.worktreePath)).toBe('module.exports = 1;\n');
      await w.controller.sessions.discardUnstarted(session.id);
      expect(leftPad(w.repo)).toBe('module.exports = 1;\n');
    },
  );
});

describe('what is never shared', () => {
  it('keeps a folder already in the worktree (tracked) as it is', async () => {
    w.commitOnMain({ 'vendor/lib.js': 'tracked\n' }, 'Vendor');
    writeFiles(w.repo, { 'vendor/extra.js': 'only in main\n' });
    ignore('vendor/extra.js\n');
    const session = await newSession({
      [SHARED_FOLDERS_KEY]: 'vendor',
      [SHARE_MODE_KEY]: 'symlink',
    });

    expect(lstatSync(join(session.worktreePath, 'vendor')).isDirectory()).toBe(true);
    expect(() => lstatSync(join(session.worktreePath, 'vendor/extra.js'))).toThrow();
    expect((await w.notices(session.id)).join('\n')).toContain(
      'vendor is already in the worktree (tracked, or made by the setup command), so it is kept as it is',
    );
  });

  it('refuses a folder reached through a link that leads outside the worktree', async () => {
    const outside = join(w.world.dir, 'outside');
    mkdirSync(outside);
    symlinkSync(outside, join(w.repo, 'pkg'));
    git(w.repo, 'add', 'pkg');
    git(w.repo, 'commit', '-q', '-m', 'A link to a folder outside');
    mkdirSync(join(outside, 'node_modules'));
    ignore('node_modules\n');
    const session = await newSession({
      [SHARED_FOLDERS_KEY]: 'pkg/node_modules',
      [SHARE_MODE_KEY]: 'symlink',
    });

    expect((await w.notices(session.id)).join('\n')).toContain(
      'pkg/node_modules is not shared: it leads outside the main checkout',
    );
    expect(lstatSync(join(session.worktreePath, 'pkg')).isSymbolicLink()).toBe(true);
  });

  it.each(['../../etc', '.git/hooks', '/etc', '~/.ssh', '.'])(
    'shares nothing when the stored value holds %s, and says why',
    async (value) => {
      ignore('node_modules\n');
      const session = await newSession({
        [SHARED_FOLDERS_KEY]: `node_modules, ${value}`,
        [SHARE_MODE_KEY]: 'symlink',
      });

      expect(() => lstatSync(join(session.worktreePath, 'node_modules'))).toThrow();
      expect((await w.notices(session.id)).join('\n')).toMatch(
        /\[Setup Warning\] Shared folders: .* Nothing was shared\./,
      );
      expect(git(session.worktreePath, 'status', '--porcelain')).toBe('');
    },
  );
});

describe('the setting', () => {
  it.each(['../../etc', '.git/hooks', '/etc', 'node_modules, ../x'])(
    'refuses %s with a message and stores nothing',
    async (value) => {
      w.controller.setSetting(SHARED_FOLDERS_KEY, 'node_modules');
      await waitFor(
        'the setting to be stored',
        async () =>
          (await w.infra.store.settings.getProject(w.projectId, SHARED_FOLDERS_KEY)) ===
          'node_modules',
      );
      const before = w.events.length;

      w.controller.setSetting(SHARED_FOLDERS_KEY, value);

      const notices = w.events
        .slice(before)
        .flatMap((e) => (e.type === 'notice' && e.notice ? [e.notice.text] : []));
      expect(notices).toHaveLength(1);
      expect(notices[0]).toMatch(/^Shared folders: .*\. Nothing was changed\.$/);
      expect(await w.infra.store.settings.getProject(w.projectId, SHARED_FOLDERS_KEY)).toBe(
        'node_modules',
      );
    },
  );
});
