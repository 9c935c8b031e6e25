// The approval desk (issue 25, item 2): an agent CLI's request that the
// session's mode would deny, held for the person. The request is stored (the
// inbox shows it), the agent's turn waits, and whoever decides it — this
// process, another Grove, `grove approve` / `grove deny` — writes the row;
// the waiting turn sees the decision (at once here, by reading the row
// elsewhere), or denies it itself when the approval timeout passes.
import { randomUUID } from 'node:crypto';
import {
  APPROVAL_TIMEOUT_KEY,
  DEFAULT_APPROVAL_TIMEOUT,
  NETWORK_HOLD_CAP,
  approvalScope,
  approvalShortId,
  approvalTimeoutMs,
  approvalWhat,
  choiceWords,
  type ApprovalChoice,
  type HeldApproval,
} from '../../domain/approval.js';
import { NETWORK_ALLOW_KEY, parseAllowEntry, withAllowEntry } from '../../domain/network.js';
import { sanitizeLine } from '../../domain/sanitize.js';
import type { HoldAnswer, HoldRequest } from '../../infra/agent/approval.js';
import type { Runtime, Store } from '../ports.js';

/** How often a waiting turn reads its row for a decision made by another process. */
const POLL_MS = 500;

export interface ApprovalDeskDeps {
  readonly store: Store;
  readonly runtime: Runtime;
  /** The global settings now (the timeout is read at each request). */
  readonly settings: () => Readonly<Record<string, string>>;
  /** Adds a transcript line to the session (sanitized there). */
  readonly note: (sessionId: string, text: string) => Promise<void>;
}

/** What deciding an approval came to. */
export type DecideOutcome =
  { readonly ok: true; readonly held: HeldApproval } | { readonly ok: false; readonly why: string };

export class ApprovalDesk {
  /** Turns of this process waiting on a request, by its id. */
  private readonly waiters = new Map<string, (answer: HoldAnswer) => void>();
  private readonly heldListeners: ((sessionId: string) => void)[] = [];
  /**
   * Network requests waiting, by session and then scope: a second request
   * for the same host:port shares the first one's item and answer, and no
   * more than NETWORK_HOLD_CAP wait per session.
   */
  private readonly networkWaits = new Map<string, Map<string, Promise<HoldAnswer>>>();
  /** Sessions told that requests beyond the cap are refused (told once until none waits). */
  private readonly toldBusy = new Set<string>();

  constructor(private readonly deps: ApprovalDeskDeps) {}

  /**
   * A line of Grove's log. Every decision names its session, agent and
   * request (`what`, sanitized as the transcript shows it): the log never
   * gets what the agent asked raw.
   */
  private log(text: string, detail?: Record<string, unknown>): void {
    this.deps.runtime.logger.log('info', text, detail);
  }

  /** Hears of every request this process holds for the person (the session hooks' needs-you). */
  onHeld(listener: (sessionId: string) => void): void {
    this.heldListeners.push(listener);
  }

  /** Requests a re-attached turn took over from a Grove before this one (see hold's `takeOver`). */
  private readonly adopted = new Set<string>();

  /**
   * Holds `request` of the session's turn and resolves with the person's
   * answer. `takeOver`: the turn was re-attached (a Grove killed mid-turn on a
   * host), so a request of the same session and scope still waiting in the
   * inbox is that Grove's hold of this very request: it is waited on as it is
   * (no second inbox item or [Approval] line). Only a waiting one: one already
   * decided may have answered an earlier request of the same scope.
   */
  hold(
    sessionId: string,
    request: HoldRequest,
    signal: AbortSignal,
    takeOver = false,
  ): Promise<HoldAnswer> {
    if (request.kind !== 'network') return this.holdOne(sessionId, request, signal, takeOver);
    const scope = approvalScope(request.kind, request.subject, request.cwd);
    const waits = this.networkWaits.get(sessionId) ?? new Map<string, Promise<HoldAnswer>>();
    const same = waits.get(scope);
    if (same) return same;
    if (waits.size >= NETWORK_HOLD_CAP) return this.busy(sessionId, request);
    const answer = this.holdOne(sessionId, request, signal).finally(() => {
      waits.delete(scope);
      if (waits.size > 0) return;
      this.networkWaits.delete(sessionId);
      this.toldBusy.delete(sessionId);
    });
    waits.set(scope, answer);
    this.networkWaits.set(sessionId, waits);
    return answer;
  }

  /** A network request beyond the cap: denied at once, logged, told in the transcript once. */
  private async busy(sessionId: string, request: HoldRequest): Promise<HoldAnswer> {
    const what = approvalWhat(request);
    this.log('network request denied: too many wait for approval', {
      sessionId,
      agent: request.agent,
      what,
    });
    if (!this.toldBusy.has(sessionId)) {
      this.toldBusy.add(sessionId);
      await this.deps.note(
        sessionId,
        `[Denied] ${request.agent} asked to ${what}; Grove denied it at once: ${NETWORK_HOLD_CAP} network requests already wait for you, and more are denied until you answer them.`,
      );
    }
    return 'busy';
  }

  private async holdOne(
    sessionId: string,
    request: HoldRequest,
    signal: AbortSignal,
    takeOver = false,
  ): Promise<HoldAnswer> {
    const { store, runtime } = this.deps;
    const what = approvalWhat({ kind: request.kind, subject: request.subject, cwd: request.cwd });
    const scope = approvalScope(request.kind, request.subject, request.cwd);
    if (await store.approvals.hasGrant(sessionId, scope)) {
      await this.deps.note(
        sessionId,
        `[Approved] ${request.agent} asked to ${what}; it passed, as you approved it for this session earlier.`,
      );
      this.log('approval granted by a session grant', { sessionId, agent: request.agent, what });
      return 'session';
    }
    const settings = this.deps.settings();
    const stored = (settings[APPROVAL_TIMEOUT_KEY] ?? '').trim();
    const timeoutText = approvalTimeoutMs(stored) === null ? DEFAULT_APPROVAL_TIMEOUT : stored;
    const timeoutMs = approvalTimeoutMs(timeoutText) ?? 10 * 60_000;
    const now = runtime.clock.now();
    const left = takeOver ? await this.leftWaiting(sessionId, scope, now) : null;
    if (left) {
      this.log('approval held again after a re-attach', { id: left.id, sessionId, what });
      for (const listener of this.heldListeners) listener(sessionId);
      return this.decided(sessionId, request, what, left.id, left.expiresAt, timeoutText, signal);
    }
    const id = randomUUID();
    await store.approvals.add({
      id,
      sessionId,
      agent: request.agent,
      kind: request.kind,
      subject: request.subject,
      cwd: request.cwd,
      reason: request.reason,
      scope,
      createdAt: now,
      expiresAt: now + timeoutMs,
    });
    const short = approvalShortId(id);
    await this.deps.note(
      sessionId,
      request.kind === 'network'
        ? `[Approval] ${request.agent} asks to ${what}, a host ${request.reason}. It waits for you in the inbox (Ctrl+O), or grove approve ${short} [--session|--allow-list] / grove deny ${short}.`
        : `[Approval] ${request.agent} asks to ${what}. The session's mode would deny it (${request.reason}). It waits for you in the inbox (Ctrl+O), or grove approve ${short} / grove deny ${short}.`,
    );
    this.log('approval held', { id, sessionId, agent: request.agent, what });
    for (const listener of this.heldListeners) listener(sessionId);
    return this.decided(sessionId, request, what, id, now + timeoutMs, timeoutText, signal);
  }

  /** The newest request of the session and scope still waiting that no turn of this process took over. */
  private async leftWaiting(
    sessionId: string,
    scope: string,
    now: number,
  ): Promise<{ readonly id: string; readonly expiresAt: number } | null> {
    const waiting = (await this.deps.store.approvals.listWaiting(now)).filter(
      (held) => held.sessionId === sessionId && held.scope === scope && !this.adopted.has(held.id),
    );
    const left = waiting.at(-1);
    if (!left) return null;
    this.adopted.add(left.id);
    return left;
  }

  /** Waits for the held request `id` and writes its decision's transcript line. */
  private async decided(
    sessionId: string,
    request: HoldRequest,
    what: string,
    id: string,
    expiresAt: number,
    timeoutText: string,
    signal: AbortSignal,
  ): Promise<HoldAnswer> {
    const answer = await this.wait(id, expiresAt, signal);
    const words =
      answer === 'timedOut'
        ? `Grove denied it on timeout: nobody answered within ${timeoutText}`
        : answer === 'denied' && signal.aborted
          ? 'Grove denied it: the turn was stopped'
          : answer === 'once'
            ? 'you approved it once'
            : answer === 'session'
              ? 'you approved it for this session'
              : answer === 'allowList'
                ? `you approved it and added it to the allowed hosts (${NETWORK_ALLOW_KEY})`
                : 'you denied it';
    const approved = answer === 'once' || answer === 'session' || answer === 'allowList';
    await this.deps.note(
      sessionId,
      `${approved ? '[Approved]' : '[Denied]'} ${request.agent} asked to ${what}; ${words}.`,
    );
    this.log(`approval ${choiceWords(answer === 'busy' ? 'denied' : answer)}`, {
      id,
      sessionId,
      agent: request.agent,
      what,
    });
    return answer;
  }

  private wait(id: string, expiresAt: number, signal: AbortSignal): Promise<HoldAnswer> {
    const { store, runtime } = this.deps;
    return new Promise<HoldAnswer>((resolve) => {
      let over = false;
      const finish = (answer: HoldAnswer): void => {
        if (over) return;
        over = true;
        clearInterval(poll);
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        this.waiters.delete(id);
        resolve(answer);
      };
      // Decided elsewhere, or timed out: the row says which.
      const read = async (): Promise<void> => {
        const held = await store.approvals.get(id);
        if (!held) return finish('denied');
        if (held.status !== 'waiting') return finish(held.status);
        if (runtime.clock.now() >= expiresAt) {
          if (await store.approvals.decide(id, 'timedOut', runtime.clock.now()))
            return finish('timedOut');
          await read();
        }
      };
      const check = (): void => {
        read().catch((error: unknown) => runtime.logger.log('warn', 'approval read failed', error));
      };
      const onAbort = (): void => {
        store.approvals
          .decide(id, 'denied', runtime.clock.now())
          .catch(() => false)
          .then(
            () => finish('denied'),
            () => finish('denied'),
          );
      };
      this.waiters.set(id, finish);
      const poll = setInterval(check, POLL_MS);
      const timer = setTimeout(check, Math.max(0, expiresAt - runtime.clock.now()) + 10);
      poll.unref();
      signal.addEventListener('abort', onAbort, { once: true });
      if (signal.aborted) onAbort();
    });
  }

  /**
   * Decides the held request named by `ref`: its id, a prefix of it (at
   * least four characters), or the inbox item's id (`approval:ID`).
   */
  async decide(ref: string, choice: ApprovalChoice): Promise<DecideOutcome> {
    const { store, runtime } = this.deps;
    const found = await findApproval(store, ref);
    if (!found.ok) return found;
    const held = found.held;
    const now = runtime.clock.now();
    if (choice === 'allowList' && held.kind !== 'network')
      return { ok: false, why: 'only a network request can be added to the allowed hosts' };
    if (held.status !== 'waiting' || held.expiresAt <= now)
      return {
        ok: false,
        why: `that request was already ${choiceWords(held.status === 'waiting' ? 'timedOut' : held.status)}`,
      };
    if (!(await store.approvals.decide(held.id, choice, now)))
      return { ok: false, why: 'that request was decided a moment ago elsewhere' };
    this.log(`approval ${choiceWords(choice)} by the person`, {
      id: held.id,
      sessionId: held.sessionId,
      agent: held.agent,
      what: approvalWhat(held),
    });
    if (choice === 'allowList') await this.addToAllowList(held);
    // A turn of this process waits on it: it goes on at once (others read the row).
    this.waiters.get(held.id)?.(choice);
    return { ok: true, held: { ...held, status: choice, decidedAt: now } };
  }

  /** Adds a network request's host:port to the allow-list setting (the one the person edits). */
  private async addToAllowList(held: HeldApproval): Promise<void> {
    const target = parseAllowEntry(held.subject);
    if (typeof target === 'string' || target.port === null || target.subdomains) return;
    const settings = this.deps.store.settings;
    const next = withAllowEntry(
      (await settings.getGlobal(NETWORK_ALLOW_KEY)) ?? '',
      target.host,
      target.port,
    );
    if (typeof next !== 'string') {
      this.deps.runtime.logger.log('warn', `not added to ${NETWORK_ALLOW_KEY}: ${next.why}`);
      return;
    }
    await settings.setGlobal(NETWORK_ALLOW_KEY, next);
    this.log(`${sanitizeLine(held.subject)} added to ${NETWORK_ALLOW_KEY}`, { id: held.id });
  }
}

/** The held request `ref` names (its id, a prefix of four or more characters, or `approval:ID`). */
export async function findApproval(
  store: Store,
  ref: string,
): Promise<{ readonly ok: true; readonly held: HeldApproval } | { ok: false; why: string }> {
  const id = ref.trim().replace(/^approval:/, '');
  if (id.length < 4) return { ok: false, why: `no request is named '${ref}'` };
  const exact = await store.approvals.get(id);
  if (exact) return { ok: true, held: exact };
  const matches = await store.approvals.findByPrefix(id);
  if (matches.length === 0) return { ok: false, why: `no request is named '${ref}'` };
  if (matches.length > 1)
    return { ok: false, why: `'${ref}' names more than one request: give more of its id` };
  const [held] = matches as [HeldApproval];
  return { ok: true, held };
}
