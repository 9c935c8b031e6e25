import type { CheckState } from './checks.js';
import type { SessionIssue } from './issue.js';
import type { PermissionMode } from './permission-mode.js';
import type { SessionStatus } from './session-status.js';
import { countsActiveTime } from './session-status.js';

export const SESSION_SIZES = ['XS', 'S', 'M', 'L', 'XL', 'XXL'] as const;
export type SessionSize = (typeof SESSION_SIZES)[number];

/** Upper bound (inclusive) of changed lines for each bucket but the last. */
const SIZE_LIMITS: readonly [SessionSize, number][] = [
  ['XS', 10],
  ['S', 30],
  ['M', 80],
  ['L', 200],
  ['XL', 500],
];

export function sizeFromLines(added: number, deleted: number): SessionSize {
  const changed = Math.max(0, added) + Math.max(0, deleted);
  for (const [size, limit] of SIZE_LIMITS) if (changed <= limit) return size;
  return 'XXL';
}

/** Bytes of a binary file that count as one changed line (about one line of code). */
export const BINARY_BYTES_PER_LINE = 64;

/**
 * A binary file in the size class: it cannot be read line by line, so its
 * bytes stand for lines, its old side as deleted and its new side as added
 * (as a rewritten text file counts), at least one line a side that exists.
 */
export function binaryLines(oldSize: number, newSize: number): number {
  const lines = (bytes: number): number =>
    bytes > 0 ? Math.max(1, Math.ceil(bytes / BINARY_BYTES_PER_LINE)) : 0;
  return lines(oldSize) + lines(newSize);
}

/** The size class of a diff: its changed text lines and its binary files by their bytes. */
export function sizeOfDiff(stats: {
  readonly added: number;
  readonly deleted: number;
  readonly files: readonly {
    readonly binary?: boolean;
    readonly oldSize?: number;
    readonly newSize?: number;
  }[];
}): SessionSize {
  let binary = 0;
  for (const file of stats.files)
    if (file.binary) binary += binaryLines(file.oldSize ?? 0, file.newSize ?? 0);
  return sizeFromLines(stats.added + binary, stats.deleted);
}

export type { PermissionMode } from './permission-mode.js';

export interface TurnSummary {
  readonly turn: string;
  readonly session: string;
}

export interface SessionQuestion {
  readonly text: string;
  readonly options: readonly string[];
}

export type FocusedReviewStatus = 'running' | 'ready' | 'failed';

export interface ReviewRequest {
  readonly number: number;
  readonly url: string;
  readonly state: 'open' | 'merged' | 'closed';
  readonly isDraft: boolean;
  readonly reviewDecision: string | null;
  readonly checksSummary: string | null;
  /** The badge of the head commit's checks (issue 28); null or absent: none read. */
  readonly checksState?: CheckState | null;
  readonly headBranch: string;
  readonly baseBranch: string;
}

/** One session as the app and the UI see it (the database row, decoded). */
export interface Session {
  readonly id: string;
  readonly projectId: number;
  readonly title: string;
  readonly titleProvisional: boolean;
  readonly titleGeneration: number;
  readonly status: SessionStatus;
  readonly baseBranch: string;
  readonly branch: string;
  readonly worktreePath: string;
  readonly agent: string;
  readonly model: string;
  readonly reasoning: string;
  readonly permissionMode: PermissionMode;
  /** The first prompt the session was given, or null while it has none. */
  readonly prompt: string | null;
  readonly size: SessionSize;
  readonly addedLines: number;
  readonly deletedLines: number;
  /** null while unknown. */
  readonly hasDiff: boolean | null;
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** Seconds of active work banked before `activeSince`. */
  readonly activeSeconds: number;
  /** Epoch ms when the current stretch of active work began, or null. */
  readonly activeSince: number | null;
  readonly createdAt: number;
  readonly updatedAt: number;
  /** Epoch ms the session joined the merge queue, or null. */
  readonly queuedAt: number | null;
  readonly summary: TurnSummary | null;
  readonly questions: readonly SessionQuestion[];
  readonly providerConversationId: string | null;
  readonly commitMessage: string | null;
  readonly headCommit: string | null;
  readonly mergedCommit: string | null;
  /** Branch kept after a cancel because it held work. */
  readonly keptBranch: string | null;
  /** Remote branch name once published. */
  readonly publishedBranch: string | null;
  readonly mainCheckoutWarning: boolean;
  readonly focusedReviewText: string | null;
  readonly focusedReviewDiffHash: string | null;
  readonly focusedReviewStatus: FocusedReviewStatus | null;
  readonly reviewRequest: ReviewRequest | null;
  /** The session this one was forked from (null: none, or it was deleted). */
  readonly parentSessionId?: string | null;
  /** Context from the parent's transcript for a fork's first prompt (cleared once sent). */
  readonly forkContext?: string | null;
  /**
   * What Grove put back after an agent changed the shared git folder outside
   * its worktree and branch, in words; the session is not merged or published
   * until the person acknowledges it (null or absent: nothing to acknowledge).
   */
  readonly guardFlag?: string | null;
  /** The host the session runs on (a host's name); null or absent: this machine. */
  readonly host?: string | null;
  /** Started with the host `auto` and not placed yet: its first turn chooses (domain/placement.ts). */
  readonly placeAuto?: boolean;
  /** The GitHub issue the session works on (its pull request closes it); null or absent: none. */
  readonly issue?: SessionIssue | null;
  /** Its own limits (grove run --memory-max / --tasks-max); null or absent: the project's settings. */
  readonly limits?: SessionLimitValues | null;
  /** Its own CI fixer switch over the project's github.ciFixer; null or absent: the project's. */
  readonly ciFixer?: 'on' | 'off' | null;
}

/** A session's own limits as given (validated by domain/limits.ts); null: the project's. */
export interface SessionLimitValues {
  readonly memoryMax: string | null;
  readonly tasksMax: string | null;
}

/** Whole seconds of active work at `now` (epoch ms). */
export function activeWorkSeconds(
  session: Pick<Session, 'activeSeconds' | 'activeSince'>,
  now: number,
): number {
  const running = session.activeSince === null ? 0 : Math.max(0, now - session.activeSince);
  return session.activeSeconds + Math.floor(running / 1000);
}

/**
 * The timer fields after a status change at `now`: time is banked when active
 * work stops and a new stretch starts when it begins. `activeUntil` is when
 * the work really stopped if that was earlier than `now` (the process doing
 * it died): the stretch is banked up to it, so downtime is not counted.
 */
export function timerAfterStatusChange(
  session: Pick<Session, 'activeSeconds' | 'activeSince'>,
  next: SessionStatus,
  now: number,
  activeUntil: number = now,
): { activeSeconds: number; activeSince: number | null } {
  const active = countsActiveTime(next);
  if (session.activeSince !== null) {
    if (active) return { activeSeconds: session.activeSeconds, activeSince: session.activeSince };
    return {
      activeSeconds: activeWorkSeconds(session, Math.min(now, activeUntil)),
      activeSince: null,
    };
  }
  return { activeSeconds: session.activeSeconds, activeSince: active ? now : null };
}

/** `11m 23s`, `2h 05m`, `42s`. */
export function formatDuration(totalSeconds: number): string {
  const s = Math.max(0, Math.floor(totalSeconds));
  const hours = Math.floor(s / 3600);
  const minutes = Math.floor((s % 3600) / 60);
  const seconds = s % 60;
  if (hours > 0) return `${hours}h ${String(minutes).padStart(2, '0')}m`;
  if (minutes > 0) return `${minutes}m ${String(seconds).padStart(2, '0')}s`;
  return `${seconds}s`;
}

export function shortId(id: string): string {
  return id.replace(/-/g, '').slice(0, 8);
}

export function formatTokens(count: number): string {
  if (count >= 1_000_000) return `${(count / 1_000_000).toFixed(1)}M`;
  if (count >= 1_000) return `${(count / 1_000).toFixed(1)}k`;
  return String(count);
}

/** A command, ready to paste in the project folder, that checks a kept branch out again. */
export function restoreCommand(branch: string): string {
  return `git worktree add ../${branch.replace(/[^A-Za-z0-9._-]+/g, '-')} ${branch}`;
}
