import type { Session } from './session.js';
import type { SessionStatus } from './session-status.js';
import { assertNever } from './session-status.js';

export type SessionGroup = 'mergeQueue' | 'active' | 'archive';

export const GROUP_TITLES: Readonly<Record<SessionGroup, string>> = {
  mergeQueue: 'Merge queue',
  active: 'Active',
  archive: 'Archive',
};

export function groupOf(status: SessionStatus): SessionGroup {
  switch (status) {
    case 'Queued':
    case 'Merging':
      return 'mergeQueue';
    case 'Draft':
    case 'InProgress':
    case 'Review':
    case 'AgentReview':
    case 'Question':
    case 'Rebasing':
      return 'active';
    case 'Merged':
    case 'Done':
    case 'Canceled':
      return 'archive';
    default:
      return assertNever(status);
  }
}

export interface SessionSection {
  readonly group: SessionGroup;
  readonly sessions: readonly Session[];
}

const GROUP_ORDER: readonly SessionGroup[] = ['mergeQueue', 'active', 'archive'];

function compare(group: SessionGroup, a: Session, b: Session): number {
  switch (group) {
    case 'mergeQueue': {
      // The merging session first, then first in, first out.
      const merging = Number(b.status === 'Merging') - Number(a.status === 'Merging');
      if (merging !== 0) return merging;
      return (a.queuedAt ?? a.updatedAt) - (b.queuedAt ?? b.updatedAt) || a.id.localeCompare(b.id);
    }
    case 'active':
      return b.createdAt - a.createdAt || a.id.localeCompare(b.id);
    case 'archive':
      return b.updatedAt - a.updatedAt || a.id.localeCompare(b.id);
    default:
      return assertNever(group);
  }
}

/** The populated groups in display order, each sorted. */
export function groupSessions(sessions: readonly Session[]): SessionSection[] {
  const buckets = new Map<SessionGroup, Session[]>();
  for (const session of sessions) {
    const group = groupOf(session.status);
    const bucket = buckets.get(group);
    if (bucket) bucket.push(session);
    else buckets.set(group, [session]);
  }
  const sections: SessionSection[] = [];
  for (const group of GROUP_ORDER) {
    const bucket = buckets.get(group);
    if (bucket && bucket.length > 0) {
      sections.push({ group, sessions: [...bucket].sort((a, b) => compare(group, a, b)) });
    }
  }
  return sections;
}

/** Sessions in the exact order the list shows them (for j/k navigation). */
export function orderedSessions(sessions: readonly Session[]): Session[] {
  return groupSessions(sessions).flatMap((section) => section.sessions);
}
