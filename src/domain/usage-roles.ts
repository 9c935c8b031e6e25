import { formatTokens } from './session.js';

// Who a model request was made for: the agent's turns, or Grove's own calls
// for the session (the title, the commit message, the focused review, the
// rebase's conflict resolution, the best-of judge, a protocol repair round).
// Sync's conflict resolution is the project's, not a session's.

export const SESSION_USAGE_ROLES = [
  'turn',
  'title',
  'commit',
  'review',
  'rebase',
  'judge',
  'repair',
] as const;

export type SessionUsageRole = (typeof SESSION_USAGE_ROLES)[number];
export type ProjectUsageRole = 'sync';
export type UsageRole = SessionUsageRole | ProjectUsageRole;

/** Tokens of one request or a sum of them. */
export interface Tokens {
  readonly inputTokens: number;
  readonly outputTokens: number;
}

/** Tokens one session (or the project) spent with one model in one role. */
export interface RoleUsage extends Tokens {
  readonly model: string;
  readonly role: UsageRole;
  readonly requests: number;
}

/** A stored role read back: an unknown word (a newer Grove's) counts as Grove's own. */
export function usageRole(text: string): UsageRole {
  return text === 'sync' || (SESSION_USAGE_ROLES as readonly string[]).includes(text)
    ? (text as UsageRole)
    : 'repair';
}

/** The split of a session's usage: its total, and the part Grove's own calls took (with their roles, in table order). */
export interface UsageSplit {
  readonly tokens: number;
  readonly groveTokens: number;
  readonly groveRoles: readonly UsageRole[];
}

export function usageSplit(rows: readonly (Tokens & { readonly role?: UsageRole })[]): UsageSplit {
  let tokens = 0;
  let groveTokens = 0;
  const roles = new Set<UsageRole>();
  for (const row of rows) {
    const spent = row.inputTokens + row.outputTokens;
    tokens += spent;
    if (row.role !== undefined && row.role !== 'turn' && spent > 0) {
      groveTokens += spent;
      roles.add(row.role);
    }
  }
  const order: readonly UsageRole[] = [...SESSION_USAGE_ROLES, 'sync'];
  return { tokens, groveTokens, groveRoles: order.filter((r) => roles.has(r)) };
}

/** `(2.1k by Grove: title, commit, review)`, or '' when Grove spent nothing of its own. */
export function groveShareText(split: Pick<UsageSplit, 'groveTokens' | 'groveRoles'>): string {
  if (split.groveTokens <= 0) return '';
  return `(${formatTokens(split.groveTokens)} by Grove: ${split.groveRoles.join(', ')})`;
}

/**
 * Splits `tokens` over `count` sessions (the best-of judge over its group's
 * variants): equal parts, the remainder to the first ones, so the parts add
 * up to the whole.
 */
export function splitTokens(tokens: Tokens, count: number): Tokens[] {
  const part = (total: number, i: number): number =>
    Math.floor(total / count) + (i < total % count ? 1 : 0);
  return Array.from({ length: Math.max(0, count) }, (_, i) => ({
    inputTokens: part(tokens.inputTokens, i),
    outputTokens: part(tokens.outputTokens, i),
  }));
}
