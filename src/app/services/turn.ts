import type { HostPlace } from '../../domain/host.js';
import type { Operation } from '../../domain/operation.js';
import type { AgentResponse } from '../../domain/protocol.js';
import { providerInfo, type ProviderId } from '../../domain/providers.js';
import { sanitizeLine, sanitizeText } from '../../domain/sanitize.js';
import { modelRetries } from '../../domain/settings.js';
import type { TranscriptEntry } from '../../domain/transcript.js';
import type { Session } from '../../domain/session.js';
import type { SessionStatus } from '../../domain/session-status.js';
import { readUsageLimit, waitingText } from '../../domain/usage-limit.js';
import { limitHitText, type LimitHit } from '../../domain/limits.js';
import type { HistoryEntry, TurnEvent } from '../../infra/agent/channel.js';
import type { ApprovalHold } from '../../infra/agent/approval.js';
import { storageFailure } from '../../infra/db/errors.js';
import { DeferredTurn, ReportedError } from './worker.js';
import { ensureWorktree } from './session-setup.js';
import { AgentGuard, takeGuardCost } from './agent-guard.js';
import { commitTurn, describeError, generateTitle, type TurnContext } from './turn-commit.js';
import { countUsage, spentBy } from './usage.js';
import {
  bringBackFromHost,
  keepConversation,
  placeOnHost,
  reattachNotice,
  RemoteRunRecord,
  stopLeftRun,
} from './remote-turn.js';
import type { TurnDeps } from './turn-deps.js';

export type { TurnDeps };

export function progressText(event: TurnEvent): string | null {
  switch (event.type) {
    case 'thinking':
      return 'Thinking…';
    case 'progress':
      return event.text;
    case 'pid':
    case 'denied':
      return null;
    default:
      return null;
  }
}

/** The transcript text of an answer: the markdown answer, else the questions. */
export function answerText(response: AgentResponse): string {
  if (response.answer.trim() !== '') return response.answer;
  if (response.questions.length > 0)
    return response.questions.map((q, i) => `${i + 1}. ${q.text}`).join('\n');
  return '(The agent finished without a message.)';
}

export class TurnRunner {
  /** The host run of each turn under way (remote-turn.ts), by operation. */
  private readonly runs = new Map<string, RemoteRunRecord | null>();

  /** Detached work (title generation) a short-lived process should wait for. */
  private readonly background = new Set<Promise<void>>();

  async settled(): Promise<void> {
    await Promise.allSettled([...this.background]);
  }

  /** Puts back what an agent changed in the shared git folder outside its worktree, and flags it. */
  private readonly guard: AgentGuard;

  /** What the commit and the title (turn-commit.ts) need of this runner. */
  private readonly context: TurnContext;

  constructor(private readonly deps: TurnDeps) {
    this.guard = new AgentGuard({
      ...deps,
      note: (id, text) => deps.sessions.note(id, 'notice', text),
    });
    this.context = {
      deps,
      guard: this.guard,
      progress: (id, text) => this.progress(id, text),
      denied: (id, text) => this.denied(id, text),
      waited: (id, ms) => {
        const sofar = this.utilityWaitMs.get(id);
        if (sofar !== undefined) this.utilityWaitMs.set(id, sofar + ms);
      },
    };
  }

  /**
   * Holds a request the mode would deny for the person (the approval desk), the progress line saying so.
   * `takeOver`: a re-attached turn, whose requests may be held already by the Grove that was killed.
   */
  private holdFor(sessionId: string, takeOver = false): ApprovalHold {
    return async (request, signal) => {
      const desk = this.deps.approvals;
      if (!desk) return 'denied';
      this.progress(sessionId, `Waiting for your approval: ${request.agent} asks (Ctrl+O)`);
      try {
        return await desk.hold(sessionId, request, signal, takeOver);
      } finally {
        this.progress(sessionId, 'Working');
      }
    };
  }

  private now(): number {
    return this.deps.runtime.clock.now();
  }

  private async setStatus(sessionId: string, status: SessionStatus): Promise<Session> {
    const session = await this.deps.store.sessions.setStatus(sessionId, status, this.now());
    this.deps.app.emit({ type: 'sessionUpdated', session });
    return session;
  }

  /** Time spent waiting for the commit-message agent in the turn under way (not Grove's own cost). */
  private readonly utilityWaitMs = new Map<string, number>();

  /** The running operation of each session, and when its progress was last written. */
  private readonly progressRows = new Map<
    string,
    { operationId: string; writtenAt: number; pending: string | null; timer: NodeJS.Timeout | null }
  >();

  /**
   * Shows a progress line here and records it on the running operation, at
   * most once a second, so other Grove processes (a TUI watching a headless
   * run) can show it too.
   */
  private progress(sessionId: string, text: string | null): void {
    this.deps.app.emit({ type: 'progress', sessionId, text });
    const row = this.progressRows.get(sessionId);
    if (!row || text === null) return;
    row.pending = text;
    if (row.timer) return;
    const write = (): void => {
      row.timer = null;
      row.writtenAt = Date.now();
      const pending = row.pending;
      this.deps.store.operations
        .setProgress(row.operationId, pending)
        .catch((error: unknown) =>
          this.deps.runtime.logger.log('warn', 'progress write failed', error),
        );
    };
    const wait = Math.max(0, row.writtenAt + 1000 - Date.now());
    if (wait === 0) write();
    else row.timer = setTimeout(write, wait);
  }

  /** A request the permission mode did not allow: kept in the transcript, in order (with a host run's offset). */
  private denied(sessionId: string, text: string, run?: RemoteRunRecord | null): void {
    // A request Grove denied at once is a decision too: the log keeps it (held ones the desk logs).
    if (text.startsWith('[Denied]'))
      this.deps.runtime.logger.log('info', 'agent request denied', {
        sessionId,
        text: sanitizeLine(text),
      });
    (run
      ? run.note(sessionId, 'notice', text)
      : this.deps.sessions.note(sessionId, 'notice', text)
    ).catch((error: unknown) => this.deps.runtime.logger.log('warn', 'denial note failed', error));
  }

  /** Runs a start_prompt or reply operation: one agent turn and everything after it. */
  async run(operation: Operation, signal: AbortSignal): Promise<void> {
    this.progressRows.set(operation.sessionId, {
      operationId: operation.id,
      writtenAt: 0,
      pending: null,
      timer: null,
    });
    try {
      await this.runTurn(operation, signal);
    } catch (error) {
      if (error instanceof ReportedError || error instanceof DeferredTurn) throw error;
      throw await this.failTurn(operation.sessionId, error);
    } finally {
      this.runs.get(operation.id)?.close();
      this.runs.delete(operation.id);
      const row = this.progressRows.get(operation.sessionId);
      if (row?.timer) clearTimeout(row.timer);
      this.progressRows.delete(operation.sessionId);
    }
  }

  /**
   * A turn that failed in Grove itself (a full disk while saving the answer,
   * a git error): the reason in words, in the transcript when it can still
   * be written and on screen, and the session leaves InProgress.
   */
  private async failTurn(sessionId: string, error: unknown): Promise<ReportedError> {
    const { store, app, runtime } = this.deps;
    runtime.logger.log('error', `turn of ${sessionId} failed`, error);
    const storage = storageFailure(error);
    const message = storage
      ? `Grove could not save this turn: ${storage}. Free some space, then reply to try again; the worktree keeps the agent's changes.`
      : `The turn failed: ${describeError(error).message}`;
    this.progress(sessionId, null);
    await this.deps.sessions.note(sessionId, 'notice', `[Error] ${message}`).catch(() => {});
    try {
      const session = await store.sessions.get(sessionId);
      if (session?.status === 'InProgress') await this.setStatus(sessionId, 'Review');
    } catch {
      // The database takes no writes: at least the screen stops saying the
      // agent works (a restart's recovery moves the stored status).
      const shown = app.state.sessions.find((s) => s.id === sessionId);
      if (shown?.status === 'InProgress')
        app.emit({
          type: 'sessionUpdated',
          session: { ...shown, status: 'Review', activeSince: null },
        });
    }
    app.emit({ type: 'notice', notice: { level: 'error', text: message } });
    return new ReportedError(message);
  }

  private async runTurn(operation: Operation, signal: AbortSignal): Promise<void> {
    const { store, git, agents, sessions, pool } = this.deps;
    const prompt =
      typeof operation.payload['prompt'] === 'string' ? operation.payload['prompt'] : '';
    // Images attached in the composer (stored copies under GROVE_HOME).
    const images = Array.isArray(operation.payload['images'])
      ? operation.payload['images'].filter((p): p is string => typeof p === 'string')
      : [];
    let session = await store.sessions.get(operation.sessionId);
    if (!session) throw new ReportedError('The session no longer exists.');
    try {
      await sessions.whenReady(session.id);
    } catch {
      // The prompt is kept in the transcript, to be sent again.
      await sessions
        .note(
          session.id,
          'notice',
          `[Error] The worktree could not be created.\nThis prompt was not sent:\n${prompt}`,
        )
        .catch(() => {});
      throw new ReportedError('The worktree could not be created.');
    }
    const project = await store.projects.get(session.projectId);
    if (!project) throw new ReportedError('The project is no longer registered.');
    // Checked here, before the agent starts: a missing folder would otherwise
    // fail its spawn with ENOENT, as if the agent CLI were not installed.
    let place;
    try {
      await ensureWorktree(
        {
          git,
          store: this.deps.store,
          note: (id, text) => sessions.note(id, 'notice', text),
          now: () => this.now(),
        },
        session,
        project.path,
      );
      // A session on a host: its mirror, branch and worktree there (issue 24).
      // A new turn first brings the host's side to the local branch; a re-attach leaves the agent's worktree alone.
      place = await placeOnHost(this.deps, session, project.path, signal, !operation.remoteRun);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      await sessions.note(
        session.id,
        'notice',
        `[Error] ${message}\nThis prompt was not sent:\n${prompt}`,
      );
      throw new ReportedError(message);
    }

    // A turn on a host keeps its run with the operation; one a Grove before this one started is re-attached.
    const run = place ? new RemoteRunRecord(this.deps, operation) : null;
    this.runs.set(operation.id, run);
    // The conversation so far, for a provider that lost its copy (Grove replays it then).
    const history = conversationHistory(await store.transcript.list(session.id));
    // Inline diff comments are shown in short (one line each); the agent gets the whole prompt.
    const display =
      typeof operation.payload['display'] === 'string' ? operation.payload['display'] : prompt;
    if (run?.reattaching) {
      session = await this.setStatus(session.id, 'InProgress');
      await sessions.note(session.id, 'notice', reattachNotice(place?.host.name ?? ''));
    } else {
      // A new turn clears pending questions and the focused review of the old diff.
      await store.sessions.update(
        session.id,
        {
          questions: [],
          focusedReviewText: null,
          focusedReviewStatus: null,
          focusedReviewDiffHash: null,
        },
        this.now(),
      );
      session = await this.setStatus(session.id, 'InProgress');
      await sessions.note(session.id, 'user_prompt', display);
    }
    // Also on a re-attach: the Grove killed mid-turn may have died before the title came.
    if (operation.kind === 'start_prompt' && session.titleProvisional) {
      // From the person's task alone: a fork's first prompt starts with its parent's context.
      const job = generateTitle(this.context, session, session.prompt ?? display, project.path);
      this.background.add(job);
      void job.finally(() => this.background.delete(job));
    }

    takeGuardCost(session.id);
    const mainBefore = (await mainCheckoutWritable(agents))
      ? await git.statusPorcelain(project.path).catch(() => null)
      : null;
    const channel = pool.get(session.id, session.agent as ProviderId);
    // Limits set but not enforceable here: said once, and the turn runs without them (capacity.md).
    const unenforced = await agents.limits.notice(session.id).catch(() => null);
    if (unenforced) await sessions.note(session.id, 'notice', unenforced);
    let output;
    const guarded = this.guard.forSession(session, project.path, 'this turn');
    try {
      output = await this.guard.around(guarded, () =>
        agents.turn(
          channel,
          {
            sessionId: session.id,
            userPrompt: prompt,
            ...(images.length > 0 ? { images } : {}),
            kind: session.providerConversationId ? 'session_resume' : 'session_start',
            // On a host the agent works in the host's worktree; the main checkout is not there.
            cwd: place ? place.worktree : session.worktreePath,
            mainCheckout: place ? '' : project.path,
            ...(place ? { remote: place } : {}),
            ...(run ? { remoteRun: run.cursor } : {}),
            model: session.model,
            reasoning: session.reasoning,
            permissionMode: session.permissionMode,
            providerConversationId: session.providerConversationId,
            modelRetries: modelRetries(this.deps.app.state.settings),
            history,
            ...(this.deps.approvals
              ? { hold: this.holdFor(session.id, run?.reattaching ?? false) }
              : {}),
          },
          (event) => {
            if (event.type === 'denied' || event.type === 'notice') {
              this.denied(session?.id ?? operation.sessionId, event.text, run);
              return;
            }
            if (event.type === 'tool') {
              this.toolCall(session?.id ?? operation.sessionId, event.text, run);
              return;
            }
            const text = progressText(event);
            if (text) this.progress(session?.id ?? operation.sessionId, text);
          },
          signal,
        ),
      );
      // An agent tree that met its memory or process limit fails its turn, even if the CLI finished.
      const met = await agents.limits.takeHit(session.id);
      if (met) throw new LimitMet(met);
    } catch (error) {
      this.progress(session.id, null);
      const met =
        error instanceof LimitMet
          ? error.hit
          : await agents.limits.takeHit(session.id).catch(() => null);
      // A reply unreadable even after its repair round was still billed: counted all the same.
      const spent = spentBy(error);
      if (spent)
        await countUsage(store, session.id, session.model, 'turn', spent).catch((e: unknown) =>
          this.deps.runtime.logger.log('warn', 'usage not counted', e),
        );
      // A turn on a host that failed (the host restarted) keeps the conversation it had: a reply resumes it.
      if (place) await keepConversation(store, session, error, this.now());
      const described = describeError(error);
      const diagnostics = described.diagnostics;
      const message = met ? limitMetText(met) : described.message;
      const limit =
        met || signal.aborted || !isModelError(error)
          ? null
          : readUsageLimit(session.agent, message, this.now());
      if (limit) {
        // The agent's service said when its limit lifts: the prompt goes back to the queue until then.
        await sessions.note(
          session.id,
          'notice',
          `[Waiting] ${message}\nThe prompt stays queued; Grove sends it again when the limit lifts (${waitingText(limit, this.now())}).`,
        );
        if (place)
          await this.fromHost(
            place,
            session,
            project.path,
            'Work of a turn that waits for a usage limit',
          );
        await commitTurn(this.context, session, project.path, signal, false).catch(() => {});
        await this.refreshDiff(session.id);
        await this.setStatus(session.id, 'Review');
        throw new DeferredTurn(limit.until, limit.agent, message);
      }
      if (signal.aborted) {
        await sessions.note(
          session.id,
          'notice',
          '[Stopped] You stopped the turn. The worktree and everything in it are kept.',
        );
      } else {
        const info = providerInfo(session.agent);
        const hint =
          /auth|log ?in|credential|401|api key/i.test(message + diagnostics) && info
            ? `\nSign-in: ${info.authHint}.`
            : '';
        await sessions.note(
          session.id,
          'notice',
          `[Error] ${message}${diagnostics ? `\n${diagnostics}` : ''}${hint}`,
        );
      }
      // The worktree may hold partial work: keep it committed on the branch.
      if (place)
        await this.fromHost(place, session, project.path, 'Work of a stopped or failed turn');
      await commitTurn(this.context, session, project.path, signal, false).catch(() => {});
      await this.refreshDiff(session.id);
      await this.setStatus(session.id, 'Review');
      // The operation records why, in the same words as the notice (without the stderr tail).
      throw new ReportedError(signal.aborted ? 'stopped' : message);
    }

    const { response, result } = output;
    // Grove's own cost per turn (transcript, commit, diff stats, status), timed for the log and the bench.
    const agentDoneAt = performance.now();
    this.utilityWaitMs.set(session.id, 0);
    const text = answerText(response);
    const position = await store.transaction(async (tx) => {
      const at = await tx.transcript.append(session.id, 'assistant_answer', text, this.now());
      await tx.sessions.update(
        session.id,
        {
          summary: response.summary ?? null,
          questions: response.questions,
          providerConversationId: result.providerConversationId ?? session.providerConversationId,
        },
        this.now(),
      );
      await countUsage(tx, session.id, session.model, 'turn', { ...result, repair: output.repair });
      return at;
    });
    this.deps.app.emit({
      type: 'transcriptAppended',
      sessionId: session.id,
      entries: [{ position, kind: 'assistant_answer', content: text, createdAt: this.now() }],
    });
    await sessions.publishSession(session.id);

    if (place) {
      this.progress(session.id, `Bringing the branch back from ${place.host.name}…`);
      await bringBackFromHost(
        this.deps,
        place,
        session,
        project.path,
        response.summary?.turn || 'Turn of the agent',
        true,
      );
    }
    this.progress(session.id, 'Committing changes…');
    // A hook fix runs the agent in the local worktree: not for a session whose agent runs on a host.
    const committed = await commitTurn(this.context, session, project.path, signal, !place);

    // The turn's outcome is one write and one session event: the diff size,
    // a main checkout warning, and the status the session moves to. A commit
    // of everything leaves the diff the commit message was written from, so
    // its counts are the session's: git is not asked a second time.
    const diff = committed ?? (await sessions.measureDiff(session));
    const mainAfter =
      mainBefore === null ? null : await git.statusPorcelain(project.path).catch(() => null);
    const mainChanged =
      mainBefore !== null &&
      mainAfter !== null &&
      JSON.stringify(mainBefore) !== JSON.stringify(mainAfter) &&
      mainAfter.length > 0;
    const warning = sanitizeText(
      `[Main Checkout Warning] The main checkout (${project.path}) changed during this turn. Check it with \`git status\` there.`,
    );
    this.progress(session.id, null);
    const outcome = await store.transaction(async (tx) => {
      const patch = { ...(diff ?? {}), ...(mainChanged ? { mainCheckoutWarning: true } : {}) };
      if (Object.keys(patch).length > 0) await tx.sessions.update(session.id, patch, this.now());
      const warnedAt = mainChanged
        ? await tx.transcript.append(session.id, 'notice', warning, this.now())
        : null;
      return {
        warnedAt,
        ended: await tx.sessions.setStatus(
          session.id,
          response.questions.length > 0 ? 'Question' : 'Review',
          this.now(),
        ),
      };
    });
    if (outcome.warnedAt !== null) {
      this.deps.app.emit({
        type: 'transcriptAppended',
        sessionId: session.id,
        entries: [
          { position: outcome.warnedAt, kind: 'notice', content: warning, createdAt: this.now() },
        ],
      });
    }
    this.deps.app.emit({ type: 'sessionUpdated', session: outcome.ended });
    const utilityMs = this.utilityWaitMs.get(session.id) ?? 0;
    this.utilityWaitMs.delete(session.id);
    const afterAgentMs = performance.now() - agentDoneAt;
    // The git guard's recording and checks (before and after the agent too) are Grove's own.
    const guardMs = takeGuardCost(session.id);
    this.deps.runtime.logger.log(
      'info',
      `turn of ${session.id}: after the agent ${afterAgentMs.toFixed(1)} ms, Grove's own ${(afterAgentMs - utilityMs + guardMs).toFixed(1)} ms (commit-message agent ${utilityMs.toFixed(1)} ms, git guard ${guardMs.toFixed(1)} ms)`,
    );
    await this.deps.afterTurn?.(session.id, signal, operation);
  }

  /** A failed turn's work on a host, brought back if it can be; why not goes to the transcript. */
  private async fromHost(
    place: HostPlace,
    session: Session,
    projectPath: string,
    message: string,
  ): Promise<void> {
    await bringBackFromHost(this.deps, place, session, projectPath, message, true).catch(
      (error: unknown) =>
        this.deps.sessions
          .note(
            session.id,
            'notice',
            `[Error] The work on ${place.host.name} was not brought back: ${describeError(error).message}`,
          )
          .catch(() => {}),
    );
  }

  /** A canceled turn's run left on a host by a Grove before this one: stopped, its work brought back. */
  stopLeftRun(operation: Operation): Promise<void> {
    return stopLeftRun(this.deps, operation);
  }

  /** Diff size and bucket, after every turn (SessionService.refreshDiff). */
  refreshDiff(sessionId: string): Promise<void> {
    return this.deps.sessions.refreshDiff(sessionId);
  }

  /** A tool call or command the agent ran: kept in the transcript, folded to its first line. */
  private toolCall(sessionId: string, text: string, run: RemoteRunRecord | null): void {
    (run
      ? run.note(sessionId, 'tool', text)
      : this.deps.sessions.note(sessionId, 'tool', text)
    ).catch((error: unknown) =>
      this.deps.runtime.logger.log('warn', 'tool call note failed', error),
    );
  }
}

/** The person's prompts and the agent's answers, oldest first: what a provider that lost its conversation is given again. */
export function conversationHistory(entries: readonly TranscriptEntry[]): HistoryEntry[] {
  return entries.flatMap((entry): HistoryEntry[] => {
    if (entry.kind === 'user_prompt') return [{ role: 'user', text: entry.content }];
    if (entry.kind === 'assistant_answer') return [{ role: 'agent', text: entry.content }];
    return [];
  });
}

/**
 * Whether an agent's turn could write the main checkout's files, so its
 * status is compared before and after (a walk of the whole checkout, twice).
 * A confined agent cannot: the sandbox binds every path read-only but its
 * worktree, the shared git folder (whose index, HEAD, refs and info/ the git
 * guard records and puts back) and its own temporary and state folders
 * (docs/usage/agents.md, Confinement). Unconfined (the opt-out) or unknown: it could.
 */
async function mainCheckoutWritable(agents: TurnDeps['agents']): Promise<boolean> {
  const how = await agents.confinement().catch(() => null);
  return how?.kind !== 'confined';
}

/** A turn whose agent tree met its limit (the counters of its cgroup say so). */
class LimitMet extends Error {
  constructor(readonly hit: LimitHit) {
    super(limitHitText(hit));
  }
}

/** "The agent's process tree was stopped at its 4 GB memory limit. …" */
function limitMetText(hit: LimitHit): string {
  const text = limitHitText(hit);
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}. Its work so far is kept and committed.`;
}

/** An agent's failed model request (not a crash of Grove, a missing CLI or a stop). */
function isModelError(error: unknown): boolean {
  const e = error as { kind?: unknown; reason?: unknown } | null;
  return (
    e?.kind === 'agent' && (e.reason === 'api' || e.reason === 'crash' || e.reason === 'protocol')
  );
}
