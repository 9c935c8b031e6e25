import type { SessionGroup as VariantGroup } from './best-of.js';
import type { Session } from './session.js';
import { SESSION_STATUSES, type SessionStatus } from './session-status.js';
import { assertNever } from './assert-never.js';
import { compareOrdinal } from './ordinal.js';

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

/** The statuses of the archive group (finished sessions), in SESSION_STATUSES order. */
export const ARCHIVE_STATUSES: readonly SessionStatus[] = SESSION_STATUSES.filter(
  (status) => groupOf(status) === 'archive',
);

export function isArchived(status: SessionStatus): boolean {
  return groupOf(status) === 'archive';
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
      return (
        (a.queuedAt ?? a.updatedAt) - (b.queuedAt ?? b.updatedAt) || compareOrdinal(a.id, b.id)
      );
    }
    case 'active':
      return b.createdAt - a.createdAt || compareOrdinal(a.id, b.id);
    case 'archive':
      return b.updatedAt - a.updatedAt || compareOrdinal(a.id, b.id);
    default:
      return assertNever(group);
  }
}

/**
 * Best-of-N variants of one group next to each other, where the first of
 * them (in the section's own order) sits: by rank once ranked, else in the
 * group's order. Variants in another section (merged, canceled) stay there.
 */
function keepVariantsTogether(
  sorted: readonly Session[],
  groups: readonly VariantGroup[],
): Session[] {
  if (groups.length === 0) return [...sorted];
  const place = new Map<string, { group: string; order: number }>();
  for (const group of groups) {
    for (const member of group.members) {
      const rank = group.ranking.find((r) => r.sessionId === member.sessionId)?.rank;
      // Ranked variants first by rank; any the ranking leaves out after them, in group order.
      place.set(member.sessionId, {
        group: group.id,
        order: rank ?? group.members.length + member.position,
      });
    }
  }
  const out: Session[] = [];
  const placed = new Set<string>();
  for (const session of sorted) {
    const at = place.get(session.id);
    if (!at) {
      out.push(session);
      continue;
    }
    if (placed.has(at.group)) continue;
    placed.add(at.group);
    const together = sorted.filter((s) => place.get(s.id)?.group === at.group);
    out.push(
      ...together.sort((a, b) => (place.get(a.id)?.order ?? 0) - (place.get(b.id)?.order ?? 0)),
    );
  }
  return out;
}

/** The populated groups in display order, each sorted (best-of-N variants kept together). */
export function groupSessions(
  sessions: readonly Session[],
  groups: readonly VariantGroup[] = [],
): SessionSection[] {
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
      sections.push({
        group,
        sessions: keepVariantsTogether(
          [...bucket].sort((a, b) => compare(group, a, b)),
          groups,
        ),
      });
    }
  }
  return sections;
}

/** Sessions in the exact order the list shows them (for j/k navigation). */
export function orderedSessions(
  sessions: readonly Session[],
  groups: readonly VariantGroup[] = [],
): Session[] {
  return groupSessions(sessions, groups).flatMap((section) => section.sessions);
}
