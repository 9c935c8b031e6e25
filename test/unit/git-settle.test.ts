import { describe, expect, it } from 'vitest';
import { racyEntries, settleWay } from '../../src/infra/git/settle.js';

// How Grove settles a fresh checkout (src/infra/git/settle.ts): which
// entries git cannot trust yet, read from `git ls-files -z --debug`, and
// which way costs less.

const entry = (path: string, mtime: number, size = 7): string =>
  `${path}\0  ctime: ${mtime}:5\n  mtime: ${mtime}:5\n  dev: 65024\tino: 1\n  uid: 0\tgid: 0\n  size: ${size}\tflags: 0\n`;

describe("the racy entries of git's listing", () => {
  it('finds the entries as new as the index, odd paths and the last one included', () => {
    const listing = [
      entry('old.txt', 99),
      entry(' leading space', 100),
      entry('new\nline', 101),
      entry('mtime: 5', 98),
      entry('last', 100),
    ].join('');
    expect(racyEntries(listing, 100)).toEqual({
      racy: [' leading space', 'new\nline', 'last'],
      entries: 5,
      latest: 101,
    });
    // As git prints it, and as a trimmed copy of it.
    expect(racyEntries(listing.trimEnd(), 100).racy).toEqual([
      ' leading space',
      'new\nline',
      'last',
    ]);
  });

  it('has none in an empty repository', () => {
    expect(racyEntries('', 100)).toEqual({ racy: [], entries: 0, latest: 0 });
  });
});

describe('the way a checkout is settled', () => {
  it('waits for the next second when that costs less than dating the racy files back', () => {
    // 100,000 racy files: 2.7 s of dating back, so any wait of under a second.
    expect(settleWay(100_000, 100_000, 990)).toBe('forward');
    // 200 files: 5.4 ms of dating back, so a wait only in the last few ms of the second.
    expect(settleWay(200, 200, 400)).toBe('back');
    expect(settleWay(200, 200, 3)).toBe('forward');
  });
});
