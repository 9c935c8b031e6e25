// Approvals that can be granted (issue 25, item 2): an agent CLI's request
// that the session's permission mode would deny is held for the person
// instead (the inbox, `grove approve`, `grove deny`). Only what the CLI's own
// policy asks about is held: what Grove's trust rules forbid (writes outside
// the worktree, into .git or hooks) keeps its automatic denial, and the
// sandbox Grove puts around the agent never widens.

import { sanitizeLine } from './sanitize.js';

/** What a held request asks: to run a command, to edit files, or to reach a host not on the network allow list. */
export type ApprovalKind = 'command' | 'edit' | 'network';

/**
 * Where a held request stands. `once`, `session` and `allowList` are
 * approvals (a `session` one is also a grant for later requests of the same
 * scope; an `allowList` one, for a network request only, is a session grant
 * that also added the host to the allow-list setting); `timedOut` is a
 * denial because nobody answered in time.
 */
export type ApprovalStatus = 'waiting' | 'once' | 'session' | 'allowList' | 'denied' | 'timedOut';

/**
 * The person's answer: deny (the default), approve once, approve for the
 * session, or (a network request) add the host to the allow list.
 */
export type ApprovalChoice = 'denied' | 'once' | 'session' | 'allowList';

/** One held request as the store keeps it. */
export interface HeldApproval {
  readonly id: string;
  readonly sessionId: string;
  /** The agent's label ("Codex", "Gemini CLI"). */
  readonly agent: string;
  readonly kind: ApprovalKind;
  /** What was asked, verbatim (the command line, the files an edit writes, the network request's host:port): untrusted. */
  readonly subject: string;
  /** Where a command runs (null: the worktree). */
  readonly cwd: string | null;
  /** Why the session's mode would have denied it. */
  readonly reason: string;
  /** What a session grant matches (approvalScope). */
  readonly scope: string;
  readonly status: ApprovalStatus;
  readonly createdAt: number;
  /** When it is denied on timeout if nobody answered. */
  readonly expiresAt: number;
  readonly decidedAt: number | null;
}

/**
 * What an approval for the session covers, defined narrowly: a command
 * with exactly the same command line (runs of white space count as one)
 * run in the same folder; an edit of exactly the same set of files. A
 * grant for `npm test` does not cover `npm test -- --watch`.
 */
export function approvalScope(kind: ApprovalKind, subject: string, cwd: string | null): string {
  const text = subject.replace(/\s+/g, ' ').trim();
  if (kind === 'network') return `network\n${text.toLowerCase()}`;
  if (kind === 'edit')
    return `edit\n${text
      .split(', ')
      .map((p) => p.trim())
      .sort()
      .join('\n')}`;
  return `command\n${cwd ?? '.'}\n${text}`;
}

/** The setting that says how long a held request waits before it is denied. */
export const APPROVAL_TIMEOUT_KEY = 'agents.approvalTimeout';
export const DEFAULT_APPROVAL_TIMEOUT = '10m';

/** A duration such as 30s, 10m or 1h in ms; null when the text is no such duration. */
export function approvalTimeoutMs(text: string): number | null {
  const match = /^\s*(\d+)\s*(s|m|h)\s*$/.exec(text);
  if (!match) return null;
  const n = Number(match[1]);
  const unit = match[2] === 's' ? 1000 : match[2] === 'm' ? 60_000 : 3_600_000;
  return n > 0 ? n * unit : null;
}

/** The validation of the timeout setting's text. */
export function validateApprovalTimeout(value: string): string | null {
  return approvalTimeoutMs(value) === null
    ? 'Approval timeout: give a duration such as 30s, 10m or 1h.'
    : null;
}

/** The one-line, sanitized words of what is asked: "run `npm test` in sub/", "edit a.ts". */
export function approvalWhat(held: Pick<HeldApproval, 'kind' | 'subject' | 'cwd'>): string {
  const subject = sanitizeLine(held.subject.replace(/\s+/g, ' ').trim());
  if (held.kind === 'edit') return `edit ${subject}`;
  if (held.kind === 'network') return `connect to ${subject}`;
  const where = held.cwd ? sanitizeLine(held.cwd) : null;
  return `run \`${subject}\`${where ? ` in ${where}` : ''}`;
}

/** The id a person types: the approval's first 8 characters. */
export function approvalShortId(id: string): string {
  return id.slice(0, 8);
}

/** How a decision reads in the transcript and the log. */
export function choiceWords(choice: ApprovalChoice | 'timedOut'): string {
  switch (choice) {
    case 'once':
      return 'approved once';
    case 'session':
      return 'approved for this session';
    case 'allowList':
      return 'approved and added to the allowed hosts';
    case 'denied':
      return 'denied';
    case 'timedOut':
      return 'denied on timeout';
    default:
      return choice satisfies never;
  }
}

/**
 * How many network requests of one session may wait for the person at a
 * time: a hostile agent can ask for thousands of names, and the inbox is not
 * to be flooded. Requests beyond it are denied at once.
 */
export const NETWORK_HOLD_CAP = 5;
