// Confirmations (issue 25, item 4; domain/confirmation.ts): an irreversible
// action an MCP client asked for, stored so that the inbox of every Grove
// process shows it. The grove mcp process that asked waits on the row; the
// person decides it from anywhere (the TUI's inbox, `grove approve` /
// `grove deny`), and only the asking process, reading 'confirmed', performs
// the action. Nobody else acts on a confirmation, so a request whose asker is
// gone can only be refused.
import { randomUUID } from 'node:crypto';
import {
  APPROVAL_TIMEOUT_KEY,
  DEFAULT_APPROVAL_TIMEOUT,
  approvalTimeoutMs,
} from '../../domain/approval.js';
import {
  CONFIRM_PREFIX,
  confirmationWords,
  type ConfirmAction,
  type Confirmation,
  type ConfirmationStatus,
} from '../../domain/confirmation.js';
import { isOwnerAlive } from '../../infra/owner.js';
import type { Runtime, Store } from '../ports.js';

/** How often a waiting asker reads its row for a decision made by another process. */
const POLL_MS = 500;

export interface ConfirmationDeps {
  readonly store: Store;
  readonly runtime: Runtime;
}

/** What deciding a confirmation came to. */
export type ConfirmOutcome =
  | { readonly ok: true; readonly request: Confirmation }
  | { readonly ok: false; readonly why: string };

/** Whether the process that asked for `request` is still there to perform it. */
export function askerAlive(deps: ConfirmationDeps, request: Pick<Confirmation, 'owner'>): boolean {
  const { runtime } = deps;
  return (
    request.owner === runtime.owner ||
    isOwnerAlive(request.owner, runtime.owner, null, runtime.clock.now())
  );
}

/** Stores a new request, waiting until the approval timeout (agents.approvalTimeout). */
export async function askConfirmation(
  deps: ConfirmationDeps,
  settings: Readonly<Record<string, string>>,
  request: {
    readonly sessionId: string;
    readonly action: ConfirmAction;
    readonly detail: string | null;
    readonly client: string;
  },
): Promise<Confirmation> {
  const { store, runtime } = deps;
  const stored = (settings[APPROVAL_TIMEOUT_KEY] ?? '').trim();
  const timeoutMs =
    approvalTimeoutMs(stored) ?? approvalTimeoutMs(DEFAULT_APPROVAL_TIMEOUT) ?? 600_000;
  const now = runtime.clock.now();
  const row = {
    id: randomUUID(),
    ...request,
    owner: runtime.owner,
    createdAt: now,
    expiresAt: now + timeoutMs,
  };
  await store.confirmations.add(row);
  runtime.logger.log('info', 'confirmation asked', {
    id: row.id,
    sessionId: row.sessionId,
    action: row.action,
  });
  return { ...row, status: 'waiting', outcome: null, decidedAt: null };
}

/**
 * Waits until the request is decided, or `ms` passed (then it is still
 * 'waiting'); a request past its expiry is refused on timeout here.
 */
export function awaitDecision(
  deps: ConfirmationDeps,
  id: string,
  ms: number,
): Promise<ConfirmationStatus> {
  const { store, runtime } = deps;
  const until = runtime.clock.now() + ms;
  return new Promise<ConfirmationStatus>((resolve) => {
    const read = async (): Promise<ConfirmationStatus | null> => {
      const request = await store.confirmations.get(id);
      if (!request) return 'refused';
      if (request.status !== 'waiting') return request.status;
      const now = runtime.clock.now();
      if (now >= request.expiresAt) {
        if (await store.confirmations.decide(id, 'timedOut', now)) return 'timedOut';
        return read();
      }
      return now >= until ? 'waiting' : null;
    };
    const tick = (): void => {
      read().then(
        (status) => {
          if (status === null) setTimeout(tick, POLL_MS);
          else resolve(status);
        },
        (error: unknown) => {
          runtime.logger.log('warn', 'confirmation read failed', error);
          setTimeout(tick, POLL_MS);
        },
      );
    };
    tick();
  });
}

/** The request `ref` names: its id, a prefix of four or more characters, or `confirm:ID`. */
export async function findConfirmation(
  store: Store,
  ref: string,
): Promise<{ readonly ok: true; readonly request: Confirmation } | { ok: false; why: string }> {
  const id = ref.trim().replace(/^confirm:/, '');
  if (id.length < 4) return { ok: false, why: `no request is named '${ref}'` };
  const exact = await store.confirmations.get(id);
  if (exact) return { ok: true, request: exact };
  const matches = await store.confirmations.findByPrefix(id);
  if (matches.length === 0) return { ok: false, why: `no request is named '${ref}'` };
  if (matches.length > 1)
    return { ok: false, why: `'${ref}' names more than one request: give more of its id` };
  const [request] = matches as [Confirmation];
  return { ok: true, request };
}

/**
 * The person's answer to a request: confirmed (the asking grove mcp then
 * performs it) or refused. Refused when it is no longer waiting, or its
 * asker is gone (nobody would perform it).
 */
export async function decideConfirmation(
  deps: ConfirmationDeps,
  ref: string,
  confirm: boolean,
): Promise<ConfirmOutcome> {
  const { store, runtime } = deps;
  const found = await findConfirmation(store, ref);
  if (!found.ok) return found;
  const request = found.request;
  const now = runtime.clock.now();
  if (request.status !== 'waiting' || request.expiresAt <= now)
    return {
      ok: false,
      why: `that request was already ${confirmationWords(request.status === 'waiting' ? 'timedOut' : request.status)}`,
    };
  if (confirm && !askerAlive(deps, request)) {
    await store.confirmations.decide(request.id, 'refused', now, 'the grove mcp that asked ended');
    return {
      ok: false,
      why: 'the grove mcp that asked for it has ended, so nothing would perform it; it is refused',
    };
  }
  const status = confirm ? 'confirmed' : 'refused';
  if (!(await store.confirmations.decide(request.id, status, now)))
    return { ok: false, why: 'that request was decided a moment ago elsewhere' };
  runtime.logger.log('info', `confirmation ${status} by the person`, {
    id: request.id,
    sessionId: request.sessionId,
  });
  return { ok: true, request: { ...request, status, decidedAt: now } };
}

/** Whether `ref` names a confirmation rather than a held agent request. */
export function namesConfirmation(ref: string): boolean {
  return ref.trim().startsWith(CONFIRM_PREFIX);
}
