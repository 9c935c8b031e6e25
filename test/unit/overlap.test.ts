import { describe, expect, it } from 'vitest';
import {
  overlapLines,
  overlapMap,
  rebaseWarning,
  sharedPaths,
  variantGroups,
} from '../../src/domain/overlap.js';
import { overlapBadge } from '../../src/ui/pages/SessionsPage.js';

describe('sharedPaths', () => {
  it('pairs only the sessions whose changed paths intersect, with the shared paths', () => {
    const changed = new Map([
      ['a', ['src/x.ts', 'src/y.ts']],
      ['b', ['src/y.ts', 'src/x.ts', 'docs/z.md']],
      ['c', ['docs/z.md']],
      ['d', ['other.ts']],
    ]);

    expect(sharedPaths(changed)).toEqual([
      { a: 'a', b: 'b', files: ['src/x.ts', 'src/y.ts'] },
      { a: 'b', b: 'c', files: ['docs/z.md'] },
    ]);
  });

  it('finds nothing when no two sessions share a path', () => {
    expect(
      sharedPaths(
        new Map([
          ['a', ['1']],
          ['b', ['2']],
        ]),
      ),
    ).toEqual([]);
  });

  it('counts a path listed twice for one session once', () => {
    expect(
      sharedPaths(
        new Map([
          ['a', ['f', 'f']],
          ['b', ['f']],
        ]),
      ),
    ).toEqual([{ a: 'a', b: 'b', files: ['f'] }]);
  });

  it('never pairs two variants of one best-of-N group, but pairs each with sessions outside it', () => {
    const changed = new Map([
      ['v1', ['f']],
      ['v2', ['f']],
      ['w1', ['f']],
      ['x', ['f']],
    ]);
    const groups = variantGroups([
      { id: 'g', members: [{ sessionId: 'v1' }, { sessionId: 'v2' }] },
      { id: 'h', members: [{ sessionId: 'w1' }] },
    ]);

    expect(sharedPaths(changed, groups).map((p) => `${p.a}-${p.b}`)).toEqual([
      'v1-w1',
      'v1-x',
      'v2-w1',
      'v2-x',
      'w1-x',
    ]);
  });
});

describe('overlapMap', () => {
  it('gives each side of a pair the other session, conflicts first', () => {
    const map = overlapMap([
      { a: 'a', b: 'b', files: ['f', 'g'], conflicts: [] },
      { a: 'a', b: 'c', files: ['h'], conflicts: ['h'] },
    ]);

    expect(map['a']?.map((o) => o.sessionId)).toEqual(['c', 'b']);
    expect(map['b']).toEqual([{ sessionId: 'a', files: ['f', 'g'], conflicts: [] }]);
    expect(map['c']).toEqual([{ sessionId: 'a', files: ['h'], conflicts: ['h'] }]);
  });
});

describe('overlap words', () => {
  const name = (id: string): string => `"${id.toUpperCase()}"`;

  it.each([
    [{ sessionId: 'b', files: ['f'], conflicts: [] }, '"B": also changes f'],
    [{ sessionId: 'b', files: ['f'], conflicts: ['f'] }, '"B": conflicts in f'],
    [
      { sessionId: 'b', files: ['f', 'g'], conflicts: ['f'] },
      '"B": conflicts in f (also changes g)',
    ],
    [
      { sessionId: 'b', files: ['1', '2', '3', '4', '5'], conflicts: [] },
      '"B": also changes 1, 2, 3 and 2 more',
    ],
  ])('names the other session and the files: %o', (overlap, line) => {
    expect(overlapLines([overlap], name)).toEqual([line]);
  });

  it('says nothing before a merge when no other session shares a file', () => {
    expect(rebaseWarning([], name)).toEqual([]);
  });

  it('lists the sessions that will need a rebase after a merge', () => {
    expect(rebaseWarning([{ sessionId: 'b', files: ['f'], conflicts: ['f'] }], name)).toEqual([
      '1 other session changed the same files and will need a rebase after this merge:',
      '  "B": conflicts in f',
    ]);
  });

  it.each([
    [undefined, ''],
    [[], ''],
    [[{ sessionId: 'b', files: ['f'], conflicts: [] }], ' [overlaps 1]'],
    [
      [
        { sessionId: 'b', files: ['f'], conflicts: ['f'] },
        { sessionId: 'c', files: ['g'], conflicts: [] },
      ],
      ' [conflicts with 1]',
    ],
  ])('marks a list row: %j → %j', (overlaps, badge) => {
    expect(overlapBadge(overlaps)).toBe(badge);
  });
});
