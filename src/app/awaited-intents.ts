import type { SessionIssue } from '../domain/issue.js';
import type { SessionGroup } from '../domain/best-of.js';
import type { PermissionMode } from '../domain/permission-mode.js';
import type { ModelChoice } from '../domain/providers.js';
import type { Session, SessionLimitValues } from '../domain/session.js';
import type { SessionStatus } from '../domain/session-status.js';
import type { Controller } from './controller.js';
import type { ApprovalChoice } from '../domain/approval.js';
import type { BudgetStop } from '../domain/budget.js';
import type { Operation } from '../domain/operation.js';
import { ApprovalDesk, type DecideOutcome } from './services/approvals.js';
import type { Runtime, Store } from './ports.js';
import { acknowledgeGuard } from './services/agent-guard.js';
import { cancelSession } from './services/review/cancel.js';
import type { DropWhy } from './services/sessions.js';
import {
  queueThreadsTurn,
  refreshNow,
  resolveThreads,
  type SendRefusal,
} from './services/review/review-threads.js';

/**
 * What a headless command may ask of the app. The same work as AppIntents,
 * done by the same services, but a command has no screen to report to: it
 * waits, so each method resolves once its work is over (with what it made).
 * The few that return at once (`runQueued`, `release`, `abort`) do all
 * their work at once. Reads and waits are AppQueries (`queries.ts`).
 */
export interface AwaitedIntents {
  /** Stops this process's agents, workers and background work (a command's end). */
  shutdown(): Promise<void>;
  /** A Draft session on a new branch; its worktree is made in the background (AppQueries.whenReady). */
  createSession(
    projectId: number,
    choice: ModelChoice,
    settings: Readonly<Record<string, string>>,
    mode: PermissionMode,
    /** The host the session runs on; absent or null: this machine. */
    host?: string | null,
    /** The GitHub issue it starts from; absent or null: none. */
    issue?: SessionIssue | null,
    /** Its own limits (validated by the caller); absent or null: the project's settings. */
    limits?: SessionLimitValues | null,
  ): Promise<Session>;
  /** A session no agent was asked anything in goes again, with its branch and worktree. */
  discardUnstarted(sessionId: string): Promise<void>;
  /** Sets the session's permission mode (its next turn runs in it). */
  setPermissionMode(sessionId: string, mode: PermissionMode): Promise<void>;
  /** Queues a prompt as the TUI's composer does; resolves with why it was refused, or null. */
  submitPrompt(sessionId: string, text: string): Promise<string | null>;
  /** Wakes this process's worker of the session: it takes the session's queued operations. */
  runQueued(sessionId: string): void;
  /** This process's worker stops taking the session's operations (whoever queued the rest runs them). */
  release(sessionId: string): void;
  /** Aborts the operation this process's worker runs for the session; false when it runs none. */
  abort(sessionId: string): boolean;
  /** Recovers the sessions of Grove processes that are gone (as the TUI's lease watch); resolves with their ids. */
  recoverGone(): Promise<string[]>;
  /**
   * The budget popup's yes (`y`): raises the limit that holds the session's
   * prompts by another full budget on top of what is spent, and resolves with
   * the limit that held it and the new one (null: no limit holds the
   * session). The held prompt then runs on `runQueued`.
   */
  raiseHeldBudget(sessionId: string): Promise<{ stop: BudgetStop; limit: number } | null>;
  /**
   * Drops the prompt a budget limit holds (the TUI drops it with Ctrl+C in the
   * session), or the one that waits for its agent's usage limit (`why`):
   * canceled, never sent; the session and its other work stay. Resolves with
   * it (undefined: no prompt waits that way).
   */
  dropQueuedPrompt(sessionId: string, why: DropWhy): Promise<Operation | undefined>;
  /** Cancels the session without losing work (as the TUI's confirmed `c`). */
  cancelSession(sessionId: string): Promise<void>;
  /** The person saw what the agent guard put back: merge and publish are allowed again. */
  acknowledgeGuard(sessionId: string): Promise<void>;
  /** Sets the session's status and shows it (a merge queued, or taken back). */
  setStatus(sessionId: string, status: SessionStatus): Promise<void>;
  /** Fetches the pull request's review threads now; rejects with why it could not. */
  refreshThreads(sessionId: string, signal: AbortSignal): Promise<void>;
  /** Resolves the threads on GitHub; resolves with how many were resolved. */
  resolveThreads(
    sessionId: string,
    threadIds: readonly string[],
    signal: AbortSignal,
  ): Promise<number>;
  /** Queues the turn that addresses the review threads (null: every open one). */
  sendReviewThreads(
    sessionId: string,
    threadIds: readonly string[] | null,
  ): Promise<{ operationId: string; count: number } | { refused: SendRefusal }>;
  /** Best of N: one session per choice, the prompt queued in each, recorded as a group. */
  startBestOf(
    projectId: number,
    prompt: string,
    choices: readonly ModelChoice[],
    mode: PermissionMode,
    /** Where every variant runs: a host's name, `auto` (each placed by its first turn), or null (this machine). */
    host?: string | null,
  ): Promise<{ group: SessionGroup; sessions: Session[] }>;
  /** Runs the group's checks and its judge. */
  evaluateGroup(groupId: string): Promise<void>;
  /** Evaluates the project's groups a gone Grove process left unevaluated. */
  resumeStranded(projectId: number): Promise<void>;
  /** As resumeStranded; resolves with the groups it evaluated. */
  resumeStrandedGroups(projectId: number): Promise<string[]>;
}

/**
 * Decides a held agent request straight in the store, for a command that
 * needs no project and no controller (`grove approve`, `grove deny`): the
 * same work as AppIntents.decideApproval. The turn waiting on it (in
 * whichever Grove process runs it) reads the decision and goes on.
 */
export function decideApproval(
  deps: { readonly store: Store; readonly runtime: Runtime },
  ref: string,
  choice: ApprovalChoice,
): Promise<DecideOutcome> {
  const desk = new ApprovalDesk({ ...deps, settings: () => ({}), note: async () => {} });
  return desk.decide(ref, choice);
}

/** The Controller's services behind AwaitedIntents (the services the TUI's AppIntents use). */
export function awaitedIntents(controller: Controller): AwaitedIntents {
  const { sessions, workers, leases, review, bestOf } = controller;
  return {
    shutdown: () => controller.shutdown(),
    createSession: (projectId, choice, settings, mode, host, issue, limits) =>
      sessions.create(
        projectId,
        choice,
        settings,
        mode,
        host ?? null,
        issue ?? null,
        limits ?? null,
      ),
    discardUnstarted: (sessionId) => sessions.discardUnstarted(sessionId),
    setPermissionMode: async (sessionId, mode) => {
      await sessions.setPermissionMode(sessionId, mode);
    },
    submitPrompt: (sessionId, text) => controller.submitPrompt(sessionId, text),
    runQueued: (sessionId) => workers.notify(sessionId),
    release: (sessionId) => workers.release(sessionId),
    abort: (sessionId) => workers.abort(sessionId),
    recoverGone: () => leases.recoverGone(),
    raiseHeldBudget: (sessionId) => controller.budget.raiseHeld(sessionId),
    dropQueuedPrompt: (sessionId, why) => sessions.dropQueuedPrompt(sessionId, why),
    cancelSession: (sessionId) => cancelSession(review.ctx, sessionId, (id) => workers.abort(id)),
    acknowledgeGuard: (sessionId) =>
      acknowledgeGuard(
        { ...review.ctx.deps, note: (id, text) => review.ctx.note(id, text) },
        sessionId,
      ),
    setStatus: async (sessionId, status) => {
      await review.ctx.setStatus(sessionId, status);
    },
    refreshThreads: async (sessionId, signal) => {
      await refreshNow(review.ctx, sessionId, signal);
    },
    resolveThreads: (sessionId, threadIds, signal) =>
      resolveThreads(review.ctx, sessionId, threadIds, signal),
    sendReviewThreads: (sessionId, threadIds) => queueThreadsTurn(review.ctx, sessionId, threadIds),
    startBestOf: (projectId, prompt, choices, mode, host) =>
      bestOf.start(projectId, prompt, choices, mode, host ?? null),
    evaluateGroup: (groupId) => bestOf.evaluate(groupId),
    resumeStranded: (projectId) => bestOf.resumeStranded(projectId),
    resumeStrandedGroups: (projectId) => bestOf.resumeStrandedGroups(projectId),
  };
}
