import { describe, expect, it } from 'vitest';
import {
  DAY_MS,
  formatBytes,
  gcCandidates,
  restoreSnapshotCommand,
  shellWord,
} from '../../src/domain/gc.js';
import type { Session } from '../../src/domain/session.js';
import type { SessionStatus } from '../../src/domain/session-status.js';

const NOW = 100 * DAY_MS;
const session = (id: string, status: SessionStatus, ageDays: number): Session =>
  ({ id, status, updatedAt: NOW - ageDays * DAY_MS }) as Session;

describe('gcCandidates', () => {
  it('takes Done and Canceled sessions at least N days old, oldest first', () => {
    const sessions = [
      session('new-done', 'Done', 3),
      session('old-canceled', 'Canceled', 20),
      session('old-review', 'Review', 90),
      session('older-done', 'Done', 40),
      session('edge', 'Done', 14),
    ];

    expect(gcCandidates(sessions, NOW, 14).map((s) => s.id)).toEqual([
      'older-done',
      'old-canceled',
      'edge',
    ]);
  });
});

describe('restoring a snapshot', () => {
  it('checks the snapshot out as a new branch where the worktree was', () => {
    expect(
      restoreSnapshotCommand(
        '/code/app',
        '/home/me/.grove/wt/app/abc',
        '3f2a9c00-1111-2222-3333-444455556666',
      ),
    ).toBe(
      'git -C /code/app worktree add -b grove/restored-3f2a9c00 /home/me/.grove/wt/app/abc refs/grove/snapshots/3f2a9c00-1111-2222-3333-444455556666',
    );
  });

  it.each([
    ['plain/path', 'plain/path'],
    ['with space', "'with space'"],
    ["it's", "'it'\\''s'"],
  ])('quotes %j for the shell as %s', (word, quoted) => {
    expect(shellWord(word)).toBe(quoted);
  });
});

describe('formatBytes', () => {
  it.each([
    [0, '0 B'],
    [1536, '1.5 kB'],
    [10 * 1024 * 1024, '10 MB'],
    [3.25 * 1024 ** 3, '3.3 GB'],
  ])('%d bytes read %s', (bytes, text) => {
    expect(formatBytes(bytes)).toBe(text);
  });
});
