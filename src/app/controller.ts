import type { AppIntents, SessionChoiceChange } from './intents.js';
import { SessionActions, withForkContext } from './services/session-actions.js';
import type { Notifications } from './services/notifications.js';
import type { SessionHooks } from './services/session-hooks.js';
import type { ComposerService } from './services/composer.js';
import { providerInfo } from '../domain/providers.js';
import { sessionById, type Tab } from './state.js';
import { restoreCommand } from '../domain/session.js';
import type { PermissionMode } from '../domain/permission-mode.js';
import { isTerminal, isWorking } from '../domain/session-status.js';
import type { ChannelPool } from './services/channel-pool.js';
import type { ResourceSampler } from './services/resources.js';
import type { ProjectService } from './services/projects.js';
import type { SessionService } from './services/sessions.js';
import { clarificationPrompt, provisionalTitle } from './services/sessions.js';
import type { TurnRunner } from './services/turn.js';
import type { SessionWorkers } from './services/worker.js';
import type { ReviewService } from './services/review/index.js';
import type { GitStatusPoller } from './services/git-status.js';
import type { LeaseWatch } from './services/lease-watch.js';
import type { BudgetService } from './services/budget.js';
import type { Admission } from './services/admission.js';
import type { BestOfService } from './services/best-of.js';
import { reclaimOnStart } from './services/gc.js';
import type { BudgetMeasure, BudgetScope } from '../domain/budget.js';

import { buildServices, type ControllerDeps } from './service-graph.js';
import { InboxCommands } from './inbox-commands.js';
import { DiskWalks } from './services/disk.js';
import { AgentLookup } from './services/agent-lookup.js';
import { loadIssues, startFromIssue, type IssueCommandDeps } from './issue-commands.js';
import { changeSessionHost, createOnDefaultHost } from './host-commands.js';
import type { ApprovalDesk } from './services/approvals.js';

export type { ControllerDeps };

/** How long quitting waits for stopped turns to settle (commit, session to Review) before going on. */
const STOP_GRACE_MS = 10_000;

/**
 * Wires the services together and implements the commands key handlers
 * call. Every command returns at once; work runs as app tasks.
 */
export class Controller extends InboxCommands implements AppIntents {
  readonly sessions: SessionService;
  readonly projects: ProjectService;
  readonly workers: SessionWorkers;
  readonly turns: TurnRunner;
  readonly approvals: ApprovalDesk;
  readonly review: ReviewService;
  /** Best-of-N groups: fan-out, checks, the judge's ranking, choosing the winner. */
  readonly bestOf: BestOfService;
  readonly gitStatus: GitStatusPoller;
  readonly leases: LeaseWatch;
  readonly composer: ComposerService;
  readonly actions: SessionActions;
  private readonly notifications: Notifications | null;
  private readonly sessionHooks: SessionHooks;
  readonly budget: BudgetService;
  /** The admission gate of agent turns (null: no machine figures given). */
  readonly admission: Admission | null;
  private readonly pool: ChannelPool;
  /** The running agents' CPU and memory (the TUI; null in headless commands). */
  readonly resources: ResourceSampler | null;
  /** Aborted by shutdown(): long work not run by a worker (worktree setup, titles, sync's agent) stops with Grove. */
  private readonly stopping = new AbortController();
  private refreshTimer: NodeJS.Timeout | null = null;

  constructor(protected readonly deps: ControllerDeps) {
    super();
    const services = buildServices(deps, this.stopping.signal, {
      publishQueue: (sessionId) => this.publishQueue(sessionId),
      submitPrompt: (sessionId, prompt) => this.submitPrompt(sessionId, prompt),
    });
    this.sessions = services.sessions;
    this.disks = new DiskWalks(deps, this.stopping.signal);
    this.agentLookup = new AgentLookup(deps.app, deps.agents);
    this.projects = services.projects;
    this.workers = services.workers;
    this.turns = services.turns;
    this.approvals = services.approvals;
    this.review = services.review;
    this.bestOf = services.bestOf;
    this.gitStatus = services.gitStatus;
    this.leases = services.leases;
    this.composer = services.composer;
    this.actions = services.actions;
    this.notifications = services.notifications;
    this.sessionHooks = services.sessionHooks;
    this.budget = services.budget;
    this.pool = services.pool;
    this.admission = services.admission;
    this.resources = services.resources;
  }

  /** Background work that runs for the life of the TUI. */
  start(): void {
    const { app } = this.deps;
    this.notifications?.start();
    this.agentLookup.start();
    this.projects.loadArchive(true); // start-up read only the live sessions (start.ts)
    const activeId = app.state.activeProjectId;
    if (activeId !== null) {
      this.gitStatus.restart(activeId);
      this.composer.loadProject(activeId);
      app.task('Reading the budgets', () => this.budget.refresh(activeId));
      app.task('Reading the best-of-N groups', () => this.bestOf.load(activeId));
      // A group a gone Grove left in checking or judging is evaluated again.
      app.task('Resuming stranded best-of-N groups', () => this.bestOf.resumeStranded(activeId));
    }
    // Disk reclaim at start-up, when the setting asks for it (off by default).
    app.task('Reclaiming disk', () => reclaimOnStart(this.deps));
    // Sessions changed by another Grove process (a headless command) show up here.
    this.refreshTimer = setInterval(() => {
      this.projects
        .refreshSessions()
        // Another process's merge may have ended: the local merge queue can go on.
        .then((changed) => changed && this.review.mergeQueue.pump())
        .catch((error: unknown) =>
          this.deps.runtime.logger.log('warn', 'session refresh failed', error),
        );
      // The inbox spans every project and follows what any process did (this one included).
      this.refreshInbox(true).catch((error: unknown) =>
        this.deps.runtime.logger.log('warn', 'inbox refresh failed', error),
      );
    }, 2000);
    this.refreshTimer.unref();
    this.review.start();
    // A `grove run` (or another Grove) that dies mid-turn is noticed while this one runs.
    this.leases.start();
    app.task('Resuming queued prompts', () => this.leases.resumeQueued());
    this.loadInbox();
  }

  private readonly disks: DiskWalks;
  private readonly agentLookup: AgentLookup;

  measureDisk(): void {
    this.disks.all();
  }

  async shutdown(): Promise<void> {
    // A one-shot command's hooks run to their end (time-limited) before its agents are stopped.
    if (this.deps.settleHooks) await this.sessionHooks.settle();
    this.sessionHooks.stop();
    this.stopping.abort();
    if (this.refreshTimer) clearInterval(this.refreshTimer);
    this.leases.stop();
    this.admission?.stop();
    this.gitStatus.stop();
    this.resources?.stop();
    this.review.stop();
    // Running turns stop and settle first, so their sessions are in Review when Grove exits.
    await this.workers.stopAll(STOP_GRACE_MS);
    await this.pool.shutdownAll();
    // Agents not held by a session's channel (title and commit-message prompts) end here too.
    await this.deps.agents.stopAll();
  }

  private publishQueue(sessionId: string): void {
    this.deps.app.task('Reading the queue', async () => {
      const ops = await this.deps.store.operations.listUnfinished(sessionId);
      const prompts = ops
        .filter(
          (op) => op.status === 'queued' && (op.kind === 'reply' || op.kind === 'start_prompt'),
        )
        // A turn of inline comments shows its short form (one line per comment), not the whole prompt.
        .map((op) =>
          typeof op.payload['display'] === 'string'
            ? op.payload['display']
            : typeof op.payload['prompt'] === 'string'
              ? op.payload['prompt']
              : '',
        );
      // The next prompt waits for its agent's usage limit to lift.
      const head = ops.find((op) => op.status === 'queued');
      const waiting =
        head?.notBefore && head.notBefore > this.deps.runtime.clock.now()
          ? { agent: head.waitAgent ?? 'the agent', until: head.notBefore }
          : null;
      this.deps.app.emit({ type: 'queueChanged', sessionId, prompts, waiting });
    });
  }

  protected notice(level: 'info' | 'warn' | 'error', text: string): void {
    this.deps.app.emit({ type: 'notice', notice: { level, text } });
  }

  quit(): void {
    this.deps.app.apply({ type: 'exit' });
  }

  readonly loadArchive = (more: boolean): void => this.projects.loadArchive(more);
  readonly setWatched = (watched: boolean): void =>
    watched ? this.resources?.resume() : this.resources?.pause();

  rememberTab(tab: Tab): void {
    this.projects.rememberTab(tab);
    this.agentLookup.tabShown(tab);
  }

  activateProject(projectId: number): void {
    this.projects.activate(projectId);
  }

  setSetting(key: string, value: string): void {
    this.projects.setSetting(key, value);
  }

  openSession(sessionId: string): void {
    const { app } = this.deps;
    app.apply({ type: 'sessionOpened', sessionId, compose: false });
    app.task('Loading the transcript', () => this.sessions.loadTranscript(sessionId));
    if (sessionById(app.state, sessionId)?.reviewRequest) this.review.loadThreads(sessionId);
    const session = sessionById(app.state, sessionId);
    if (session && !isTerminal(session.status) && !isWorking(session.status))
      app.task('Measuring the diff', () => this.sessions.refreshDiff(sessionId));
    if (session) this.disks.one(session);
  }

  createSession(): void {
    const { app } = this.deps;
    const projectId = app.state.activeProjectId;
    if (projectId === null) {
      this.notice('warn', 'Pick a project on the Projects tab first.');
      return;
    }
    app.task('Creating the session', async () => {
      // A worktree starts from a commit: an empty repository has none, and says so before a
      // prompt is typed (first: it is the problem whichever agent is picked).
      const project = app.state.projects.find((p) => p.id === projectId);
      if (
        project &&
        !(await this.deps.git.headCommit(project.path).then(
          () => true,
          () => false,
        ))
      ) {
        this.notice(
          'error',
          `${project.path} has no commits yet, and a session starts from one. Make a first commit (git commit --allow-empty -m "Initial commit"), then press a again.`,
        );
        return;
      }
      const choice = this.sessions.mainChoice();
      const available = app.state.agents?.find((a) => a.id === choice.agent);
      if (available && !available.path) {
        this.notice(
          'error',
          `${choice.agent} is not installed (not found on PATH). Install it or pick another agent in Settings.`,
        );
        return;
      }
      const session = await createOnDefaultHost(this.deps, this.sessions, projectId, choice);
      app.emit({ type: 'sessionUpdated', session });
      app.emit({ type: 'selectSession', sessionId: session.id });
      app.emit({ type: 'transcriptLoaded', sessionId: session.id, entries: [] });
      app.emit({ type: 'sessionOpened', sessionId: session.id, compose: true });
    });
  }

  saveDraftSession(sessionId: string, text: string): void {
    const { app } = this.deps;
    app.task('Saving the draft', async () => {
      const session = await this.actions.saveAsDraft(sessionId, text);
      this.composer.saveDraft(sessionId, '');
      if (session) app.emit({ type: 'sessionUpdated', session });
      this.notice(
        'info',
        'Saved as a draft session: r in the list starts it, R starts every draft (or the marked ones).',
      );
    });
  }

  startDraft(sessionId: string): void {
    const session = sessionById(this.deps.app.state, sessionId);
    if (!session || !SessionActions.isSavedDraft(session)) {
      this.notice(
        'warn',
        "Only a draft session (saved with Ctrl+S in a new session's composer) can be started with r.",
      );
      return;
    }
    this.deps.app.task('Starting the draft', () => this.actions.startDraft(sessionId));
  }

  startDrafts(sessionIds: readonly string[] | null): void {
    const { app } = this.deps;
    app.task('Starting the drafts', async () => {
      const started = await this.actions.startDrafts(sessionIds);
      app.emit({ type: 'markSession', sessionId: null });
      this.notice(
        'info',
        started === 0
          ? 'No draft session to start.'
          : `Started ${started} draft session${started === 1 ? '' : 's'}.`,
      );
    });
  }

  fork(sessionId: string): void {
    const { app } = this.deps;
    this.notice('info', 'Forking the session…');
    app.task('Forking the session', async () => {
      const child = await this.actions.fork(sessionId);
      app.emit({ type: 'selectSession', sessionId: child.id });
      app.emit({
        type: 'transcriptLoaded',
        sessionId: child.id,
        entries: await this.deps.store.transcript.list(child.id),
      });
      app.emit({ type: 'sessionOpened', sessionId: child.id, compose: true });
      app.emit({
        type: 'notice',
        notice: { level: 'info', text: 'Forked: write the first prompt of the new session.' },
      });
    });
  }

  continueSession(sessionId: string): void {
    this.deps.app.task('Continuing the session', async () => {
      await this.actions.continueSession(sessionId);
    });
  }

  openWorktree(sessionId: string, tool: 'shell' | 'editor'): void {
    this.deps.app.task(tool === 'shell' ? 'Opening a shell' : 'Opening the editor', async () => {
      this.notice('info', await this.actions.openWorktree(sessionId, tool));
    });
  }

  discardUnstarted(sessionId: string): void {
    this.deps.app.task('Discarding the session', () => this.sessions.discardUnstarted(sessionId));
  }

  setPermissionMode(sessionId: string, mode: PermissionMode): void {
    this.deps.app.task('Changing the permission mode', async () => {
      await this.sessions.setPermissionMode(sessionId, mode);
    });
  }

  sendPrompt(sessionId: string, text: string, images: readonly string[] = []): void {
    this.deps.app.task('Sending the prompt', async () => {
      // The transcript shows which images went with the prompt.
      const extra =
        images.length > 0
          ? {
              images,
              display: `${text}\n[Images: ${images.map((p) => p.split('/').pop() ?? p).join(', ')}]`,
            }
          : {};
      const refused = await this.submitPrompt(sessionId, text, extra);
      if (refused) this.notice('warn', refused);
      else await this.composer.recordSent(sessionId, text);
    });
  }

  loadFiles(sessionId: string): void {
    this.composer.loadFiles(sessionId);
  }

  private get issueDeps(): IssueCommandDeps {
    return {
      ...this.deps,
      now: () => this.deps.runtime.clock.now(),
      signal: this.stopping.signal,
      submitPrompt: (id, text) => this.submitPrompt(id, text),
    };
  }

  loadIssues(): void {
    const projectId = this.deps.app.state.activeProjectId;
    if (projectId !== null) loadIssues(this.issueDeps, projectId);
  }

  startFromIssue(sessionId: string, number: number, text: string): void {
    startFromIssue(this.issueDeps, sessionId, number, text);
  }

  saveDraft(sessionId: string, text: string): void {
    this.composer.saveDraft(sessionId, text);
  }

  attachImage(sessionId: string, path: string): void {
    this.composer.attachFile(sessionId, path);
  }

  pasteClipboardImage(sessionId: string): void {
    this.composer.attachClipboard(sessionId);
  }

  changeSessionChoice(sessionId: string, change: SessionChoiceChange): void {
    if ('host' in change)
      return changeSessionHost(this.deps, this.sessions, sessionId, change.host);
    const { app, store, runtime } = this.deps;
    app.task('Changing the model', async () => {
      const session = await store.sessions.get(sessionId);
      if (!session) return;
      const now = runtime.clock.now();
      if ('agent' in change) {
        if (change.agent === session.agent) return;
        // Another CLI cannot continue this one's conversation: the next turn starts a new one, on the same worktree.
        if (isWorking(session.status)) {
          this.notice('warn', 'The agent is working: change the agent after the turn ends.');
          return;
        }
        const info = providerInfo(change.agent);
        if (!info) return;
        await store.sessions.update(
          sessionId,
          {
            agent: change.agent,
            model: info.defaultModel,
            reasoning: info.defaultReasoning,
            providerConversationId: null,
          },
          now,
        );
        await this.pool.release(sessionId);
        await this.sessions.note(
          sessionId,
          'notice',
          `[Agent] ${info.name} (${info.defaultModel} [${info.defaultReasoning}]) from the next turn, in a new conversation on the same worktree.`,
        );
      } else if ('model' in change) {
        if (change.model === session.model) return;
        await store.sessions.update(sessionId, { model: change.model }, now);
        await this.sessions.note(
          sessionId,
          'notice',
          `[Model] ${change.model} from the next turn.`,
        );
      } else {
        if (change.reasoning === session.reasoning) return;
        await store.sessions.update(sessionId, { reasoning: change.reasoning }, now);
        await this.sessions.note(
          sessionId,
          'notice',
          `[Reasoning] ${change.reasoning} from the next turn.`,
        );
      }
      await this.sessions.publishSession(sessionId);
    });
  }

  clearContext(sessionId: string): void {
    const { app, store, runtime } = this.deps;
    app.task('Clearing the agent context', async () => {
      const session = await store.sessions.get(sessionId);
      if (!session) return;
      if (isWorking(session.status)) {
        this.notice(
          'warn',
          'The agent is working: /clear after the turn ends (or stop it with Ctrl+C).',
        );
        return;
      }
      await store.sessions.update(sessionId, { providerConversationId: null }, runtime.clock.now());
      // An app-server keeps the old thread in memory: end it too.
      await this.pool.release(sessionId);
      await this.sessions.note(
        sessionId,
        'notice',
        '[Clear] A fresh agent context: the next prompt starts a new conversation on the same worktree and branch.',
      );
      await this.sessions.publishSession(sessionId);
    });
  }

  /** Stores the prompt as a queued operation and wakes the session's worker; why it was refused, or null. */
  async submitPrompt(
    sessionId: string,
    text: string,
    extra: Readonly<Record<string, unknown>> = {},
  ): Promise<string | null> {
    const { store, runtime } = this.deps;
    const session = await store.sessions.get(sessionId);
    if (!session) return 'The session no longer exists.';
    if (
      isTerminal(session.status) ||
      session.status === 'Merged' ||
      session.status === 'Queued' ||
      session.status === 'Merging'
    ) {
      return `This session is ${session.status}; it takes no prompts now.`;
    }
    const first = session.prompt === null;
    if (first) {
      await store.sessions.update(
        sessionId,
        { prompt: text, title: provisionalTitle(text), titleProvisional: true },
        runtime.clock.now(),
      );
      await this.sessions.publishSession(sessionId);
    }
    // A fork's first prompt carries its parent's context; the transcript shows what was typed.
    const prompt = first ? withForkContext(session, text) : text;
    const display = prompt !== text && extra['display'] === undefined ? { display: text } : {};
    await store.operations.enqueue(
      sessionId,
      first ? 'start_prompt' : 'reply',
      { ...extra, ...display, prompt },
      runtime.clock.now(),
      runtime.owner,
    );
    this.publishQueue(sessionId);
    this.workers.notify(sessionId);
    return null;
  }

  stop(sessionId: string): void {
    const { app, store, runtime } = this.deps;
    app.task('Stopping', async () => {
      // Only prompts: a queued merge, rebase or publish is not Ctrl+C's to drop.
      const retracted = await store.operations.retractNewestQueued(sessionId, runtime.clock.now(), [
        'start_prompt',
        'reply',
      ]);
      if (retracted) {
        this.publishQueue(sessionId);
        this.notice('info', 'Removed the newest queued prompt.');
        return;
      }
      if (this.workers.abort(sessionId)) return;
      // A turn another Grove process runs (a headless command): ask it to stop.
      const elsewhere = (await store.operations.listUnfinished(sessionId)).find(
        (op) => op.status === 'running' && op.owner !== runtime.owner,
      );
      if (elsewhere && !this.leases.alive(elsewhere.owner, elsewhere.heartbeatAt ?? null)) {
        // Nobody is left to honour a stop request: recover the session now.
        await this.leases.check();
        this.notice(
          'info',
          'The Grove process running this turn is gone; the session is back in Review.',
        );
      } else if (elsewhere) {
        await store.operations.requestCancel(elsewhere.id);
        this.notice('info', 'Asked the other Grove process running this turn to stop it.');
      } else {
        this.notice('info', 'Nothing is running in this session.');
      }
    });
  }

  answerQuestions(sessionId: string, answers: readonly string[]): void {
    const session = sessionById(this.deps.app.state, sessionId);
    if (!session) return;
    // Answers are not typed prompts: they stay out of the prompt history.
    this.deps.app.task('Sending the answers', async () => {
      const refused = await this.submitPrompt(sessionId, clarificationPrompt(session, answers));
      if (refused) this.notice('warn', refused);
    });
  }

  endQuestions(sessionId: string): void {
    const { app, store, runtime } = this.deps;
    app.task('Ending the question round', async () => {
      await store.sessions.update(sessionId, { questions: [] }, runtime.clock.now());
      const session = await store.sessions.setStatus(sessionId, 'Review', runtime.clock.now());
      app.emit({ type: 'sessionUpdated', session });
    });
  }

  raiseBudget(sessionId: string, scope: BudgetScope, measure: BudgetMeasure, limit: number): void {
    this.deps.app.task('Raising the budget', async () => {
      await this.budget.raise(sessionId, scope, measure, limit);
      // A project limit held every session at it; each looks again.
      for (const id of new Set([sessionId, ...Object.keys(this.deps.app.state.budget?.held ?? {})]))
        this.workers.notify(id);
    });
  }

  copyHandle(sessionId: string): void {
    const session = sessionById(this.deps.app.state, sessionId);
    const clipboard = this.deps.clipboard;
    if (!session || !clipboard) return;
    const [what, text] = session.reviewRequest
      ? ['the pull request URL', session.reviewRequest.url]
      : session.keptBranch
        ? ['the command that restores the branch', restoreCommand(session.keptBranch)]
        : ['the worktree path', session.worktreePath];
    this.deps.app.task('Copying to the clipboard', async () => {
      try {
        const via = await clipboard.copy(text);
        this.notice('info', `Copied ${what} via ${via}: ${text}`);
      } catch (error) {
        this.notice(
          'warn',
          `Could not copy ${what}: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    });
  }
}
