import { assertNever } from './assert-never.js';

/** Every status a session can be in. Stored as text in the database. */
export const SESSION_STATUSES = [
  'Draft',
  'InProgress',
  'Review',
  'AgentReview',
  'Question',
  'Queued',
  'Rebasing',
  'Merging',
  'Merged',
  'Done',
  'Canceled',
] as const;

export type SessionStatus = (typeof SESSION_STATUSES)[number];

export function isSessionStatus(value: string): value is SessionStatus {
  return (SESSION_STATUSES as readonly string[]).includes(value);
}

/**
 * The legal moves between statuses. Staying in the same status is always
 * allowed and is not listed. This table is the only place the rule lives.
 */
const TRANSITIONS: Readonly<Record<SessionStatus, readonly SessionStatus[]>> = {
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
  // Continue (`c` on a Done session): its worktree is made again and it takes replies.
  Done: ['Review'],
  // A pull request reopened on the forge, or Continue, brings a canceled session back.
  Canceled: ['Review'],
};

export function canTransition(from: SessionStatus, to: SessionStatus): boolean {
  return from === to || TRANSITIONS[from].includes(to);
}

export class TransitionError extends Error {
  readonly kind = 'transition' as const;
  constructor(
    readonly from: SessionStatus,
    readonly to: SessionStatus,
  ) {
    super(`A session cannot move from ${from} to ${to}.`);
  }
}

export function assertTransition(from: SessionStatus, to: SessionStatus): void {
  if (!canTransition(from, to)) throw new TransitionError(from, to);
}

/** Statuses in which an agent or a git workflow is working on the session. */
export function isWorking(status: SessionStatus): boolean {
  switch (status) {
    case 'InProgress':
    case 'AgentReview':
    case 'Rebasing':
    case 'Merging':
      return true;
    case 'Draft':
    case 'Review':
    case 'Question':
    case 'Queued':
    case 'Merged':
    case 'Done':
    case 'Canceled':
      return false;
    default:
      return assertNever(status);
  }
}

/** What a working session is doing, in words, for its progress line when the agent has said nothing yet. */
export function workingText(status: SessionStatus): string {
  switch (status) {
    case 'AgentReview':
      return 'Reviewing…';
    case 'Rebasing':
      return 'Rebasing…';
    case 'Merging':
      return 'Merging…';
    default:
      return 'Working…';
  }
}

/** Statuses after which the session never changes again (read-only). */
export function isTerminal(status: SessionStatus): boolean {
  return status === 'Done' || status === 'Canceled';
}

/** Statuses whose time counts toward the active-work timer. */
export function countsActiveTime(status: SessionStatus): boolean {
  return status === 'InProgress' || status === 'Rebasing' || status === 'Merging';
}
