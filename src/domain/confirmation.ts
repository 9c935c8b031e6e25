// Confirmations (issue 25, item 4): an irreversible action an MCP client
// asked for through `grove mcp` (merge, publish, cancel, approve), held for
// the person. Such a tool exists only when the person turned the setting
// below on, and even then it never acts by itself: the request waits in the
// inbox until the person confirms it (then the grove mcp process that asked
// performs it) or refuses it; unanswered, it is refused on timeout
// (agents.approvalTimeout). The client is an agent: what it passed is shown
// sanitized, and no MCP tool can confirm a request.

import { sanitizeLine } from './sanitize.js';

/** What an MCP client may ask the person to confirm. */
export type ConfirmAction = 'merge' | 'publish' | 'cancel' | 'approve';
export const CONFIRM_ACTIONS: readonly ConfirmAction[] = ['merge', 'publish', 'cancel', 'approve'];

/** Where a request stands: `timedOut` is a refusal because nobody answered in time. */
export type ConfirmationStatus = 'waiting' | 'confirmed' | 'refused' | 'timedOut';

/** One held request as the store keeps it. */
export interface Confirmation {
  readonly id: string;
  readonly sessionId: string;
  readonly action: ConfirmAction;
  /** The action's argument (a remote branch, a held approval's id), as the client gave it: untrusted. */
  readonly detail: string | null;
  /** The MCP client's name as it introduced itself: untrusted. */
  readonly client: string;
  /** The grove mcp process that asked (infra/owner.ts); only it performs the action. */
  readonly owner: string;
  readonly status: ConfirmationStatus;
  /** What came of it once performed, in words (null before). */
  readonly outcome: string | null;
  readonly createdAt: number;
  readonly expiresAt: number;
  readonly decidedAt: number | null;
}

/** The global setting that adds the irreversible tools to `grove mcp`. */
export const MCP_IRREVERSIBLE_KEY = 'mcp.irreversibleTools';

/** The prefix of a confirmation's inbox item id, also accepted by `grove approve` / `grove deny`. */
export const CONFIRM_PREFIX = 'confirm:';

/** The id a person types: the request's first 8 characters. */
export function confirmShortId(id: string): string {
  return id.slice(0, 8);
}

/** The longest detail shown (a branch name, an agent's request). */
const DETAIL_MAX = 200;

/** `text` cut to DETAIL_MAX characters (never inside a surrogate pair), ending in … when cut: what is left out is never hidden. */
function cut(text: string): string {
  if (text.length <= DETAIL_MAX) return text;
  let end = DETAIL_MAX - 1;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return `${text.slice(0, end)}…`;
}

/**
 * The one-line, sanitized words of what is asked, after "… asks to":
 * "merge session Add a greeting into main", "publish … to branch x".
 */
export function confirmWhat(
  request: Pick<Confirmation, 'action' | 'detail'>,
  session: string,
  base: string,
): string {
  const what = sanitizeLine(session);
  const detail = request.detail === null ? null : cut(sanitizeLine(request.detail.trim()));
  switch (request.action) {
    case 'merge':
      return `merge session ${what} into ${sanitizeLine(base)}`;
    case 'publish':
      return `publish session ${what} as a pull request${detail ? ` from branch ${detail}` : ''}`;
    case 'cancel':
      return `cancel session ${what}`;
    case 'approve':
      return `approve request ${detail ?? '?'} of session ${what} once`;
    default:
      return request.action satisfies never;
  }
}

/** The client's name as shown: sanitized, one line, short. */
export function clientName(client: string): string {
  const name = sanitizeLine(client.trim()).slice(0, 60);
  return name === '' ? 'an MCP client' : `the MCP client ${name}`;
}

/** How a decision reads. */
export function confirmationWords(status: ConfirmationStatus): string {
  switch (status) {
    case 'waiting':
      return 'waiting for confirmation';
    case 'confirmed':
      return 'confirmed';
    case 'refused':
      return 'refused';
    case 'timedOut':
      return 'refused on timeout';
    default:
      return status satisfies never;
  }
}
