import type { TextBuffer } from './composer.js';
import type { Session } from './session.js';
import type { SessionStatus } from './session-status.js';
import { assertNever } from './assert-never.js';

/** Which sessions the list shows by status (`f` cycles through them). */
export type StatusFilter = 'all' | 'needsYou' | 'running' | 'review' | 'done';

export const STATUS_FILTERS: readonly StatusFilter[] = [
  'all',
  'needsYou',
  'running',
  'review',
  'done',
];

export const STATUS_FILTER_LABELS: Readonly<Record<StatusFilter, string>> = {
  all: 'all',
  needsYou: 'needs me',
  running: 'running',
  review: 'review',
  done: 'done',
};

/**
 * The session list's search and status filter. `query` filters the rows;
 * `input` is the search field while it is open (`/`), whose text filters the
 * rows live as it is typed.
 */
export interface SessionFilter {
  readonly query: string;
  readonly input: TextBuffer | null;
  readonly status: StatusFilter;
}

export const NO_FILTER: SessionFilter = { query: '', input: null, status: 'all' };

/** The text that filters the rows right now: the field being typed, else the kept query. */
export function filterQuery(filter: SessionFilter): string {
  return (filter.input ? filter.input.text : filter.query).trim();
}

/** Whether the filter hides anything (an open, empty search field hides nothing). */
export function isFiltering(filter: SessionFilter): boolean {
  return filter.status !== 'all' || filterQuery(filter) !== '';
}

/** Whether `query` (case-insensitive) is part of the session's title, branch or first prompt. */
export function matchesQuery(
  session: Pick<Session, 'title' | 'branch' | 'prompt'>,
  query: string,
): boolean {
  const needle = query.trim().toLowerCase();
  if (needle === '') return true;
  return [session.title, session.branch, session.prompt ?? ''].some((text) =>
    text.toLowerCase().includes(needle),
  );
}

const RUNNING: ReadonlySet<SessionStatus> = new Set<SessionStatus>([
  'InProgress',
  'Rebasing',
  'Queued',
  'Merging',
]);
const REVIEW: ReadonlySet<SessionStatus> = new Set<SessionStatus>([
  'Review',
  'AgentReview',
  'Question',
]);
const DONE: ReadonlySet<SessionStatus> = new Set<SessionStatus>(['Merged', 'Done', 'Canceled']);

/**
 * Whether a session belongs to a status filter. `needsYou`: the list marks
 * it (● needs you) or its agent waits for answers.
 */
export function matchesStatus(
  session: Pick<Session, 'status'>,
  status: StatusFilter,
  needsYou: boolean,
): boolean {
  switch (status) {
    case 'all':
      return true;
    case 'needsYou':
      return needsYou || session.status === 'Question';
    case 'running':
      return RUNNING.has(session.status);
    case 'review':
      return REVIEW.has(session.status);
    case 'done':
      return DONE.has(session.status);
    default:
      return assertNever(status);
  }
}

/**
 * The sessions the list shows under `filter`, from those already in the
 * snapshot (no database or git work: it runs on every key typed). The same
 * array when nothing is filtered.
 */
export function filterSessions(
  sessions: readonly Session[],
  filter: SessionFilter,
  attention: Readonly<Record<string, unknown>>,
): readonly Session[] {
  if (!isFiltering(filter)) return sessions;
  const query = filterQuery(filter);
  return sessions.filter(
    (s) => matchesStatus(s, filter.status, attention[s.id] !== undefined) && matchesQuery(s, query),
  );
}

/** The filter's words after the search text in the list header: "status: review · 3 of 40". */
export function filterSummary(filter: SessionFilter, shown: number, total: number): string {
  const status = filter.status === 'all' ? [] : [`status: ${STATUS_FILTER_LABELS[filter.status]}`];
  return [...status, `${shown} of ${total}`].join(' · ');
}

/** The next status filter (`f`), back to all after the last. */
export function nextStatusFilter(status: StatusFilter): StatusFilter {
  const index = STATUS_FILTERS.indexOf(status);
  return STATUS_FILTERS[(index + 1) % STATUS_FILTERS.length] ?? 'all';
}

/** The Sessions tab's filter keys (part of its key table in keymap.ts). */
export const SESSION_FILTER_KEYS = [
  {
    keys: ['/'],
    action: 'search',
    help: 'Search the sessions: the list shows those whose title, branch or prompt has the text, as you type',
    hint: 'search',
  },
  {
    keys: ['f'],
    action: 'statusFilter',
    help: 'Filter by status: all, needs me, running, review, done (each press the next)',
    hint: 'filter',
  },
  { keys: ['escape'], action: 'clearFilter', help: 'Clear the search and the status filter' },
] as const;

/** The keys of the open search field (`/`); every other printable key is typed. */
export const SESSION_SEARCH_KEYS = [
  {
    keys: ['enter'],
    action: 'keep',
    help: 'Keep the filter and go back to moving in the list',
    hint: 'keep',
  },
  { keys: ['escape'], action: 'clear', help: 'Clear the search and close it', hint: 'clear' },
] as const;
