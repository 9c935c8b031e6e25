// Session hooks (domain/session-hook.ts): the project's hook command, run
// when a session changes state. The process that makes the change runs the
// hook: the one whose worker ran the turn, merge or publish, or held the
// prompt or the agent's request. One process runs each operation (its
// lease), so a change fires its hook once whether a TUI, a headless command
// or both are running; a TUI that only reads a change another process made
// (sessions refreshed from the store) runs nothing.
//
// Runs never hold up Grove: each is queued when the change is reported and
// runs in the background, one at a time per session, at most MAX_RUNNING at
// once, at most MAX_PENDING waiting per session (more are dropped and logged).
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { providerInfo } from '../../domain/providers.js';
import {
  outputTail,
  sessionHookEnv,
  sessionHookNotice,
  sessionHookSetting,
  type SessionHookFiring,
} from '../../domain/session-hook.js';
import { sanitizeLine } from '../../domain/sanitize.js';
import type { ShellRunner } from '../../infra/shell.js';
import type { Agents, Runtime, Store } from '../ports.js';
import type { ApprovalDesk } from './approvals.js';
import { loadSettings } from './projects.js';
import type { OperationOutcome, SessionWorkers } from './worker.js';

/** Hook processes running at once, across every session. */
const MAX_RUNNING = 2;
/** Runs waiting per session; a burst beyond this is dropped (and logged). */
const MAX_PENDING = 8;

export interface SessionHookDeps {
  readonly store: Store;
  readonly agents: Agents;
  /** Runs a trusted hook (as the person, in its own process group). */
  readonly shell: ShellRunner;
  readonly runtime: Runtime;
  /** Adds a notice to the session's transcript (sanitized there). */
  readonly note: (sessionId: string, text: string) => Promise<void>;
}

interface SessionQueue {
  pending: number;
  tail: Promise<void>;
}

export class SessionHooks {
  private readonly queues = new Map<string, SessionQueue>();
  private running = 0;
  private readonly waitingForRoom: (() => void)[] = [];
  /** Per session: the queued turn a budget limit holds, once told. */
  private readonly budgetHeld = new Map<string, string>();
  private readonly stopping = new AbortController();

  constructor(private readonly deps: SessionHookDeps) {}

  /** Hears what this process's workers and approval desk report. */
  start(workers: SessionWorkers, approvals: ApprovalDesk): void {
    workers.onOutcome((outcome) => this.onOutcome(outcome));
    workers.onHeld(({ operation }) => {
      if (this.budgetHeld.get(operation.sessionId) === operation.id) return;
      this.budgetHeld.set(operation.sessionId, operation.id);
      this.fire(operation.sessionId, { event: 'needs-you', detail: 'budget' });
    });
    approvals.onHeld((sessionId) =>
      this.fire(sessionId, { event: 'needs-you', detail: 'approval' }),
    );
  }

  private onOutcome({ operation, status }: OperationOutcome): void {
    const { sessionId, kind } = operation;
    if (this.budgetHeld.get(sessionId) === operation.id) this.budgetHeld.delete(sessionId);
    if (status === 'canceled') return;
    if (status === 'failed') {
      if (kind === 'utility') return;
      const detail = kind === 'start_prompt' || kind === 'reply' ? 'turn' : kind;
      this.fire(sessionId, { event: 'failed', detail });
      return;
    }
    switch (kind) {
      case 'start_prompt':
      case 'reply':
        // Which: the status the turn left (read when the run starts).
        this.fire(sessionId, null);
        return;
      case 'merge':
        this.fire(sessionId, { event: 'merged', detail: '' });
        return;
      case 'publish':
        this.fire(sessionId, { event: 'published', detail: '' });
        return;
      case 'rebase':
      case 'utility':
        return;
      default:
        return kind satisfies never;
    }
  }

  /**
   * Queues a run of the session's hook for `firing` (null: a turn ended
   * well; Question is needs-you, Review or AgentReview is review). Returns
   * at once.
   */
  fire(sessionId: string, firing: SessionHookFiring | null): void {
    if (this.stopping.signal.aborted) return;
    const queue = this.queues.get(sessionId) ?? { pending: 0, tail: Promise.resolve() };
    if (queue.pending >= MAX_PENDING) {
      this.deps.runtime.logger.log(
        'warn',
        `session hook: ${firing?.event ?? 'turn end'} of ${sessionId} dropped (${MAX_PENDING} runs already wait)`,
      );
      return;
    }
    queue.pending++;
    this.queues.set(sessionId, queue);
    queue.tail = queue.tail
      .then(() => this.run(sessionId, firing))
      .catch((error: unknown) =>
        this.deps.runtime.logger.log('warn', `session hook of ${sessionId} failed`, error),
      )
      .finally(() => {
        queue.pending--;
        if (queue.pending === 0 && this.queues.get(sessionId) === queue)
          this.queues.delete(sessionId);
      });
  }

  /** Resolves when every queued run has ended (each is time-limited). */
  async settle(): Promise<void> {
    while (this.queues.size > 0)
      await Promise.allSettled([...this.queues.values()].map((queue) => queue.tail));
  }

  /** Ends running hooks and drops queued ones (quitting the TUI). */
  stop(): void {
    this.stopping.abort();
  }

  private async room(): Promise<void> {
    while (this.running >= MAX_RUNNING)
      await new Promise<void>((resolve) => this.waitingForRoom.push(resolve));
    this.running++;
  }

  private release(): void {
    this.running--;
    this.waitingForRoom.shift()?.();
  }

  private async run(sessionId: string, asked: SessionHookFiring | null): Promise<void> {
    const { store, runtime } = this.deps;
    const session = await store.sessions.get(sessionId);
    if (!session) return;
    const project = await store.projects.get(session.projectId);
    if (!project) return;
    const hook = sessionHookSetting(await loadSettings(store, project.id));
    if (!hook || this.stopping.signal.aborted) return;
    const firing: SessionHookFiring | null =
      asked ??
      (session.status === 'Question'
        ? { event: 'needs-you', detail: 'question' }
        : session.status === 'Review' || session.status === 'AgentReview'
          ? { event: 'review', detail: '' }
          : null);
    if (!firing) return;
    const vars = sessionHookEnv(firing, session, project);
    const worktree = existsSync(session.worktreePath) ? session.worktreePath : null;
    // A confined hook runs in the worktree; with none left (a merged session), in an empty folder.
    const scratch =
      worktree === null && !hook.trusted ? mkdtempSync(join(tmpdir(), 'grove-hook-')) : null;
    const cwd = worktree ?? scratch ?? project.path;
    const shell = hook.trusted
      ? this.deps.shell
      : this.deps.agents.shell(providerInfo(session.agent)?.id ?? 'claude', project.path);
    await this.room();
    try {
      if (this.stopping.signal.aborted) return;
      runtime.logger.log(
        'info',
        `session hook: ${firing.event} of ${sessionId} (${hook.trusted ? 'trusted' : 'confined'})`,
      );
      const result = await shell
        .run(hook.command, {
          cwd,
          env: runtime.env,
          vars,
          timeoutMs: hook.timeoutMs,
          signal: this.stopping.signal,
        })
        .catch((error: unknown) => ({
          exitCode: 127,
          timedOut: false,
          output: `it could not start: ${error instanceof Error ? error.message : String(error)}`,
        }));
      if (this.stopping.signal.aborted && !result.timedOut) return;
      const notice = sessionHookNotice(firing, result, hook.timeoutMs);
      if (notice === null) {
        runtime.logger.log('info', `session hook: ${firing.event} of ${sessionId} ran`);
        return;
      }
      runtime.logger.log(
        'warn',
        `session hook: ${firing.event} of ${sessionId} ${result.timedOut ? 'timed out' : `exited ${result.exitCode}`}: ${sanitizeLine(outputTail(result.output).replace(/\n/g, ' | '))}`,
      );
      await this.deps.note(sessionId, notice);
    } finally {
      this.release();
      if (scratch) rmSync(scratch, { recursive: true, force: true });
    }
  }
}
