import { describe, expect, it } from 'vitest';
import {
  activeWorkSeconds,
  binaryLines,
  formatDuration,
  sizeFromLines,
  sizeOfDiff,
  timerAfterStatusChange,
} from '../../src/domain/session.js';
import { makeSession as session } from '../helpers/session-factory.js';
import { groupOf, groupSessions, orderedSessions } from '../../src/domain/session-order.js';
import type { SessionGroup as VariantGroup } from '../../src/domain/best-of.js';

/** A best-of-N group of these session ids (in this order), ranked as `ranking` says when given. */
function variantGroup(
  id: string,
  sessionIds: readonly string[],
  ranking?: readonly string[],
): VariantGroup {
  return {
    id,
    projectId: 1,
    prompt: 'task',
    status: ranking ? 'ranked' : 'running',
    members: sessionIds.map((sessionId, i) => ({ sessionId, position: i + 1, check: null })),
    ranking: (ranking ?? []).map((sessionId, i) => ({ sessionId, rank: i + 1, reason: '' })),
    note: null,
    chosenSessionId: null,
    createdAt: 0,
  };
}

describe('size buckets', () => {
  it.each([
    [0, 0, 'XS'],
    [10, 0, 'XS'],
    [6, 5, 'S'],
    [30, 0, 'S'],
    [31, 0, 'M'],
    [40, 40, 'M'],
    [81, 0, 'L'],
    [100, 100, 'L'],
    [201, 0, 'XL'],
    [250, 250, 'XL'],
    [501, 0, 'XXL'],
    [10_000, 10_000, 'XXL'],
  ] as const)('%i added and %i deleted lines is %s', (added, deleted, size) => {
    expect(sizeFromLines(added, deleted)).toBe(size);
  });

  it('counts a binary file by its bytes, 64 a line, each side at least one line', () => {
    expect(binaryLines(0, 1)).toBe(1);
    expect(binaryLines(0, 64)).toBe(1);
    expect(binaryLines(65, 0)).toBe(2);
    expect(binaryLines(1_000, 3_000)).toBe(16 + 47);
    expect(binaryLines(0, 0)).toBe(0);
  });

  it('puts a diff of one text line and a 5 kB binary in M, not XS', () => {
    const files = [{ binary: false }, { binary: true, oldSize: 0, newSize: 5_000 }];

    expect(sizeOfDiff({ added: 1, deleted: 0, files })).toBe('M');
    expect(sizeOfDiff({ added: 1, deleted: 0, files: [{ binary: false }] })).toBe('XS');
  });
});

describe('active-work timer', () => {
  it('counts the running stretch on top of banked seconds', () => {
    expect(activeWorkSeconds({ activeSeconds: 60, activeSince: 1_000 }, 31_000)).toBe(90);
  });

  it('starts counting when work starts', () => {
    expect(
      timerAfterStatusChange({ activeSeconds: 5, activeSince: null }, 'InProgress', 2_000),
    ).toEqual({ activeSeconds: 5, activeSince: 2_000 });
  });

  it('banks the stretch when work stops', () => {
    expect(
      timerAfterStatusChange({ activeSeconds: 5, activeSince: 2_000 }, 'Review', 12_500),
    ).toEqual({ activeSeconds: 15, activeSince: null });
  });

  it('keeps running across active statuses', () => {
    expect(
      timerAfterStatusChange({ activeSeconds: 0, activeSince: 2_000 }, 'Rebasing', 9_000),
    ).toEqual({ activeSeconds: 0, activeSince: 2_000 });
  });

  it('does not count time spent waiting for review', () => {
    expect(
      timerAfterStatusChange({ activeSeconds: 7, activeSince: null }, 'Review', 99_000),
    ).toEqual({ activeSeconds: 7, activeSince: null });
  });

  it.each([
    [0, '0s'],
    [42, '42s'],
    [683, '11m 23s'],
    [7500, '2h 05m'],
  ])('formats %i seconds as %s', (seconds, text) => {
    expect(formatDuration(seconds)).toBe(text);
  });
});

describe('session list grouping and order', () => {
  it.each([
    ['Queued', 'mergeQueue'],
    ['Merging', 'mergeQueue'],
    ['Draft', 'active'],
    ['InProgress', 'active'],
    ['Review', 'active'],
    ['AgentReview', 'active'],
    ['Question', 'active'],
    ['Rebasing', 'active'],
    ['Merged', 'archive'],
    ['Done', 'archive'],
    ['Canceled', 'archive'],
  ] as const)('%s sessions are listed under %s', (status, group) => {
    expect(groupOf(status)).toBe(group);
  });

  it('shows only populated groups, merge queue first, archive last', () => {
    const sections = groupSessions([
      session('Done'),
      session('Review'),
      session('Queued', { queuedAt: 5 }),
    ]);
    expect(sections.map((s) => s.group)).toEqual(['mergeQueue', 'active', 'archive']);
    expect(groupSessions([session('Review')]).map((s) => s.group)).toEqual(['active']);
  });

  it('orders the merge queue with the merging session first, then first in, first out', () => {
    const late = session('Queued', { queuedAt: 300 });
    const early = session('Queued', { queuedAt: 100 });
    const merging = session('Merging', { queuedAt: 200 });
    expect(orderedSessions([late, early, merging]).map((s) => s.id)).toEqual([
      merging.id,
      early.id,
      late.id,
    ]);
  });

  it('lists the variants of one best-of-N group next to each other, where the newest of them sits', () => {
    const v1 = session('Review', { id: 'v1', createdAt: 10 });
    const other = session('Review', { id: 'other', createdAt: 20 });
    const v2 = session('Review', { id: 'v2', createdAt: 30 });
    const newest = session('Review', { id: 'newest', createdAt: 40 });
    const groups = [variantGroup('g', ['v1', 'v2'])];

    expect(orderedSessions([v1, other, v2, newest], groups).map((s) => s.id)).toEqual([
      'newest',
      'v1',
      'v2',
      'other',
    ]);
  });

  it("orders a ranked group's variants by rank", () => {
    const v1 = session('Review', { id: 'v1', createdAt: 30 });
    const v2 = session('Review', { id: 'v2', createdAt: 20 });
    const v3 = session('Review', { id: 'v3', createdAt: 10 });
    const groups = [variantGroup('g', ['v1', 'v2', 'v3'], ['v3', 'v1', 'v2'])];

    expect(orderedSessions([v1, v2, v3], groups).map((s) => s.id)).toEqual(['v3', 'v1', 'v2']);
  });

  it('keeps a variant that left the active sessions in its own section', () => {
    const winner = session('Queued', { id: 'winner', queuedAt: 5 });
    const loser = session('Canceled', { id: 'loser' });
    const groups = [variantGroup('g', ['winner', 'loser'], ['winner', 'loser'])];

    const sections = groupSessions([loser, winner], groups);

    expect(sections.map((s) => [s.group, s.sessions.map((x) => x.id)])).toEqual([
      ['mergeQueue', ['winner']],
      ['archive', ['loser']],
    ]);
  });

  it('lists active sessions newest first and the archive by last change', () => {
    const older = session('Review', { createdAt: 1 });
    const newer = session('InProgress', { createdAt: 2 });
    const doneLongAgo = session('Done', { updatedAt: 10 });
    const doneRecently = session('Canceled', { updatedAt: 20 });
    expect(orderedSessions([older, doneLongAgo, newer, doneRecently]).map((s) => s.id)).toEqual([
      newer.id,
      older.id,
      doneRecently.id,
      doneLongAgo.id,
    ]);
  });
});
