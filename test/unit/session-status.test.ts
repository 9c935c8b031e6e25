import { describe, expect, it } from 'vitest';
import {
  SESSION_STATUSES,
  assertTransition,
  canTransition,
  type SessionStatus,
} from '../../src/domain/session-status.js';

// The full table, written out independently of the implementation: every
// pair not listed here must be refused.
const ALLOWED: Record<SessionStatus, SessionStatus[]> = {
  Draft: ['InProgress', 'Canceled', 'Rebasing'],
  InProgress: ['Rebasing', 'Canceled', 'Review', 'AgentReview', 'Question'],
  Review: [
    'AgentReview',
    'Merged',
    'Done',
    'InProgress',
    'Queued',
    'Rebasing',
    'Merging',
    'Canceled',
  ],
  AgentReview: [
    'Review',
    'Merged',
    'Done',
    'InProgress',
    'Queued',
    'Rebasing',
    'Merging',
    'Canceled',
  ],
  Question: ['InProgress', 'Queued', 'Rebasing', 'Merging', 'Canceled', 'Review'],
  Queued: ['Merging', 'Review', 'AgentReview'],
  Rebasing: ['Review', 'AgentReview', 'Question'],
  Merging: ['Done', 'Review', 'AgentReview', 'Question'],
  Merged: ['Done'],
  Done: ['Review'],
  Canceled: ['Review'],
};

const pairs = SESSION_STATUSES.flatMap((from) => SESSION_STATUSES.map((to) => [from, to] as const));

describe('session status transitions', () => {
  it.each(pairs)('%s → %s follows the table', (from, to) => {
    const expected = from === to || ALLOWED[from].includes(to);
    expect(canTransition(from, to)).toBe(expected);
  });

  it('throws a worded error for an illegal move', () => {
    expect(() => assertTransition('Done', 'InProgress')).toThrow(
      'A session cannot move from Done to InProgress.',
    );
  });

  it('lets a merged session only finish', () => {
    const from: SessionStatus = 'Merged';
    expect(SESSION_STATUSES.filter((to) => to !== from && canTransition(from, to))).toEqual([
      'Done',
    ]);
  });
});
