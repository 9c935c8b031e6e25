// The inbox: everything waiting on the person, across every project, derived
// from what Grove already stores (session statuses, the operation journal,
// review threads, budget limits). Nothing here is stored: an item handled
// anywhere (the TUI, another Grove, the headless CLI) changes the rows it is
// derived from, and is gone the next time the list is read.

import { stopText, type BudgetStop } from './budget.js';
import type { Operation, OperationKind } from './operation.js';
import type { ReviewThread } from './review-thread.js';
import { approvalShortId, approvalWhat, type ApprovalKind, type HeldApproval } from './approval.js';
import { clientName, confirmShortId, confirmWhat, type Confirmation } from './confirmation.js';
import { sanitizeLine } from './sanitize.js';
import { formatDuration, shortId, type Session } from './session.js';
import { isTerminal } from './session-status.js';

export const INBOX_KINDS = [
  'confirm',
  'approval',
  'question',
  'budget',
  'usageLimit',
  'conflict',
  'reviewThreads',
  'ciFixer',
  'failedTurn',
  'failedGit',
] as const;
export type InboxKind = (typeof INBOX_KINDS)[number];

/** One thing waiting on the person. Its text is sanitized, one line. */
export interface InboxItem {
  /** Stable while the item waits: `kind:session id` (`usage:` for a usage-limit wait; or the operation's id). */
  readonly id: string;
  readonly kind: InboxKind;
  readonly sessionId: string;
  readonly projectId: number;
  /** The project's name, sanitized. */
  readonly project: string;
  /** The session's title, sanitized (its short id when it has none). */
  readonly session: string;
  /** Since when it waits (ms since the epoch). */
  readonly since: number;
  /** A usage-limit wait: when the limit lifts (ms since the epoch), else null. */
  readonly until: number | null;
  /** What waits, in one line. */
  readonly text: string;
  /** What the person can do about it, in one line. */
  readonly action: string;
  /** An approval: the held request's id (what `grove approve` and the inbox's a / A / L / d answer). */
  readonly approvalId?: string;
  /** An approval: what it asks (L, add to the allow list, answers only a network request). */
  readonly approvalKind?: ApprovalKind;
  /** A confirmation: the id of the MCP client's request (what `grove approve` and the inbox's a / d answer). */
  readonly confirmationId?: string;
}

/** What the inbox is derived from: rows as the store holds them. */
export interface InboxInput {
  readonly projects: readonly { readonly id: number; readonly displayName: string }[];
  readonly sessions: readonly Session[];
  /** Operations of the sessions: at least the unfinished ones and each session's newest finished one. */
  readonly operations: readonly Operation[];
  /** Unresolved review threads of published sessions. */
  readonly reviewThreads: readonly ReviewThread[];
  /** Sessions whose queued turn a budget limit holds, and which limit. */
  readonly budgetStops: ReadonlyMap<string, BudgetStop>;
  /** Agent requests held for the person, still waiting (not expired). */
  readonly approvals?: readonly HeldApproval[];
  /** Irreversible actions MCP clients asked for, still waiting, whose asker is still there. */
  readonly confirmations?: readonly Confirmation[];
  /** Published sessions whose CI fixer stopped (app/services/review/ci-fixer.ts): why, and when. */
  readonly ciFixerStops?: ReadonlyMap<string, { readonly reason: string; readonly at: number }>;
}

const TURN_KINDS: ReadonlySet<OperationKind> = new Set<OperationKind>(['start_prompt', 'reply']);
const GIT_KINDS: ReadonlySet<OperationKind> = new Set<OperationKind>([
  'rebase',
  'merge',
  'publish',
]);

/** How the name of a kind reads in the headless CLI's text and the inbox page. */
export function inboxKindLabel(kind: InboxKind): string {
  switch (kind) {
    case 'confirm':
      return 'confirm';
    case 'approval':
      return 'approval';
    case 'question':
      return 'question';
    case 'budget':
      return 'budget';
    case 'usageLimit':
      return 'usage limit';
    case 'conflict':
      return 'conflict';
    case 'reviewThreads':
      return 'review';
    case 'ciFixer':
      return 'CI fixer';
    case 'failedTurn':
      return 'failed turn';
    case 'failedGit':
      return 'failed git';
    default:
      return kind satisfies never;
  }
}

/** What the person wrote for a queued turn: its display form when it has one (a fork's first prompt). */
export function queuedPromptText(op: Operation): string {
  const { display, prompt } = op.payload;
  return typeof display === 'string' ? display : typeof prompt === 'string' ? prompt : '';
}

/** The first line of untrusted text, sanitized. */
function oneLine(text: string): string {
  const first = text.trim().split('\n')[0] ?? '';
  return sanitizeLine(first.trim());
}

/** Whether a failed rebase or merge stopped on conflicts (the words merge.ts records). */
export function isConflictError(error: string | null): boolean {
  return error !== null && /\bconflicts? in\b|stopped on conflicts/i.test(error);
}

/** Everything waiting on the person, oldest first (ties by session title, then kind). */
export function deriveInbox(input: InboxInput, now: number): InboxItem[] {
  const projects = new Map(input.projects.map((p) => [p.id, sanitizeLine(p.displayName)]));
  const bySession = new Map<string, Operation[]>();
  for (const op of input.operations) {
    const list = bySession.get(op.sessionId) ?? [];
    list.push(op);
    bySession.set(op.sessionId, list);
  }
  const threads = new Map<string, ReviewThread[]>();
  for (const thread of input.reviewThreads) {
    const list = threads.get(thread.sessionId) ?? [];
    list.push(thread);
    threads.set(thread.sessionId, list);
  }
  const heldBySession = new Map<string, HeldApproval[]>();
  for (const held of input.approvals ?? []) {
    if (held.status !== 'waiting' || held.expiresAt <= now) continue;
    heldBySession.set(held.sessionId, [...(heldBySession.get(held.sessionId) ?? []), held]);
  }
  const confirmsBySession = new Map<string, Confirmation[]>();
  for (const request of input.confirmations ?? []) {
    if (request.status !== 'waiting' || request.expiresAt <= now) continue;
    const list = confirmsBySession.get(request.sessionId) ?? [];
    confirmsBySession.set(request.sessionId, [...list, request]);
  }
  const items: InboxItem[] = [];
  for (const session of input.sessions) {
    if (isTerminal(session.status) || session.status === 'Merged') continue;
    const project = projects.get(session.projectId);
    if (project === undefined) continue;
    const id = shortId(session.id);
    const base = {
      sessionId: session.id,
      projectId: session.projectId,
      project,
      session: oneLine(session.title) || id,
      until: null,
    };
    const add = (
      item: Omit<InboxItem, keyof typeof base | 'id'> & { id?: string; until?: number },
    ): void => {
      items.push({ ...base, ...item, id: item.id ?? `${item.kind}:${session.id}` });
    };
    for (const request of confirmsBySession.get(session.id) ?? []) {
      const short = confirmShortId(request.id);
      const what = confirmWhat(request, oneLine(session.title) || id, session.baseBranch);
      add({
        id: `confirm:${request.id}`,
        kind: 'confirm',
        since: request.createdAt,
        until: request.expiresAt,
        confirmationId: request.id,
        text: `${clientName(request.client)} asks to ${what}`,
        action: `a: confirm (Grove does it then), d: refuse (grove approve ${short} / grove deny ${short})`,
      });
    }
    for (const held of heldBySession.get(session.id) ?? []) {
      const short = approvalShortId(held.id);
      add({
        id: `approval:${held.id}`,
        kind: 'approval',
        since: held.createdAt,
        until: held.expiresAt,
        approvalId: held.id,
        approvalKind: held.kind,
        text: `${oneLine(held.agent)} asks to ${approvalWhat(held)} (${oneLine(held.reason)})`,
        action:
          held.kind === 'network'
            ? `a: approve once, A: for this session, L: add to the allowed hosts, d: deny (grove approve ${short} [--session|--allow-list] / grove deny ${short})`
            : `a: approve once, A: for this session, d: deny (grove approve ${short} [--session] / grove deny ${short})`,
      });
    }
    const ops = (bySession.get(session.id) ?? []).slice().sort((a, b) => a.queuedAt - b.queuedAt);
    const unfinished = ops.filter((op) => op.status === 'queued' || op.status === 'running');
    const queuedTurn = unfinished.find((op) => op.status === 'queued' && TURN_KINDS.has(op.kind));
    const running = unfinished.some((op) => op.status === 'running');
    // The newest finished turn or git step: what the session last did.
    const last = ops
      .filter(
        (op) => !unfinished.includes(op) && (TURN_KINDS.has(op.kind) || GIT_KINDS.has(op.kind)),
      )
      .at(-1);

    if (session.status === 'Question' && session.questions.length > 0 && !queuedTurn) {
      const count = session.questions.length;
      add({
        kind: 'question',
        since: last?.finishedAt ?? session.updatedAt,
        text: `${count === 1 ? 'A question' : `${count} questions`}: ${oneLine(session.questions[0]?.text ?? '')}`,
        action: `Answer it (Enter on the session, or grove answer ${id} "...")`,
      });
    }
    const stop = input.budgetStops.get(session.id);
    if (stop && queuedTurn && !running) {
      add({
        kind: 'budget',
        since: queuedTurn.queuedAt,
        text: `${stopText(stop)} A prompt is held.`,
        action: `Raise the limit and send it, or drop the prompt (Enter on the session, or grove approve budget:${id} / grove deny budget:${id})`,
      });
    }
    if (queuedTurn?.notBefore && queuedTurn.notBefore > now && !running) {
      const agent = oneLine(queuedTurn.waitAgent ?? session.agent);
      add({
        id: `usage:${session.id}`,
        kind: 'usageLimit',
        since: queuedTurn.queuedAt,
        until: queuedTurn.notBefore,
        text: `${agent}'s usage limit: the prompt runs in ${formatDuration((queuedTurn.notBefore - now) / 1000)}`,
        action: `Wait, or drop the prompt, never sent (grove deny usage:${id})`,
      });
    }
    if (last?.status === 'failed' && unfinished.length === 0) {
      const error = oneLine(last.lastError ?? 'no reason was recorded');
      const since = last.finishedAt ?? last.queuedAt;
      if (GIT_KINDS.has(last.kind) && isConflictError(last.lastError))
        add({
          id: `conflict:${last.id}`,
          kind: 'conflict',
          since,
          text: error,
          action: `Resolve it in the worktree or reply to the agent, then ${last.kind} again (grove ${last.kind} ${id})`,
        });
      else if (GIT_KINDS.has(last.kind))
        add({
          id: `failedGit:${last.id}`,
          kind: 'failedGit',
          since,
          text: `The ${last.kind} failed: ${error}`,
          action: `Read the session, then ${last.kind} again (grove ${last.kind} ${id})`,
        });
      else
        add({
          id: `failedTurn:${last.id}`,
          kind: 'failedTurn',
          since,
          text: `The turn failed: ${error}`,
          action: `Reply to try again (Enter on the session, or grove reply ${id} "...")`,
        });
    }
    // Until the person writes in the session (or the checks pass, which clears the stop).
    const fixerStop = input.ciFixerStops?.get(session.id);
    if (fixerStop && !ops.some((op) => TURN_KINDS.has(op.kind) && op.queuedAt > fixerStop.at))
      add({
        kind: 'ciFixer',
        since: fixerStop.at,
        text: `The CI fixer stopped: ${oneLine(fixerStop.reason)}`,
        action: `Read the failing checks and reply to the agent, or fix it yourself (Enter on the session, or grove reply ${id} "...")`,
      });
    const waiting = (threads.get(session.id) ?? []).filter(
      (t) => t.state === 'open' || t.state === 'answered',
    );
    if (waiting.length > 0) {
      const open = waiting.filter((t) => t.state === 'open').length;
      const answered = waiting.length - open;
      const times = waiting
        .flatMap((t) => t.comments.map((c) => Date.parse(c.createdAt)))
        .filter((t) => Number.isFinite(t));
      const parts = [
        ...(open > 0 ? [`${open} review thread${open === 1 ? '' : 's'} to send to the agent`] : []),
        ...(answered > 0 ? [`${answered} answered, to resolve`] : []),
      ];
      add({
        kind: 'reviewThreads',
        since: times.length > 0 ? Math.min(...times) : session.updatedAt,
        text: `${parts.join('; ')}: ${oneLine(waiting[0]?.comments[0]?.body ?? '')}`,
        action: `Open the threads (t in the session view, or grove threads ${id})`,
      });
    }
  }
  return items.sort(
    (a, b) =>
      a.since - b.since ||
      a.session.localeCompare(b.session) ||
      INBOX_KINDS.indexOf(a.kind) - INBOX_KINDS.indexOf(b.kind),
  );
}

/** One line of `grove inbox`: how long it waits, its kind, project, session and text. */
export function inboxLine(item: InboxItem, now: number): string {
  const age = formatDuration((now - item.since) / 1000);
  return `${shortId(item.sessionId)}  ${inboxKindLabel(item.kind).padEnd(11)} ${age.padStart(7)}  ${item.project} / ${item.session}: ${item.text} (${item.action})`;
}

/** One item as JSON: `grove inbox --json`, `grove watch --json` and the webhook (docs/usage/cli.md). */
export function inboxItemJson(item: InboxItem): Record<string, unknown> {
  return {
    id: item.id,
    kind: item.kind,
    sessionId: item.sessionId,
    projectId: item.projectId,
    project: item.project,
    session: item.session,
    since: new Date(item.since).toISOString(),
    until: item.until === null ? null : new Date(item.until).toISOString(),
    text: item.text,
    action: item.action,
    ...(item.approvalId ? { approvalId: item.approvalId } : {}),
    ...(item.confirmationId ? { confirmationId: item.confirmationId } : {}),
  };
}
