import type { App } from './app.js';
import type { AppCommands } from './commands.js';
import type { Agents, Clipboard, Forge, GitClient, Runtime, Store } from './ports.js';
import { sessionById, type Tab } from './state.js';
import { restoreCommand } from '../domain/session.js';
import type { PermissionMode } from '../domain/permission-mode.js';
import type { ShellRunner } from '../infra/shell.js';
import { isTerminal, isWorking } from '../domain/session-status.js';
import { ChannelPool } from './services/channel-pool.js';
import { ProjectService } from './services/projects.js';
import { SessionService, clarificationPrompt, provisionalTitle } from './services/sessions.js';
import { TurnRunner } from './services/turn.js';
import { SessionWorkers, type OperationHandler } from './services/worker.js';
import { ReviewService } from './services/review.js';
import { GitStatusPoller } from './services/git-status.js';
import { LeaseWatch } from './services/lease-watch.js';

export interface ControllerDeps {
  readonly app: App;
  readonly store: Store;
  readonly git: GitClient;
  readonly agents: Agents;
  readonly shell: ShellRunner;
  readonly runtime: Runtime;
  readonly forge: Forge;
  /** The system clipboard (the TUI's `y`); absent in headless commands. */
  readonly clipboard?: Clipboard;
  /** The TUI runs focused reviews after turns; a one-shot command does not. */
  readonly focusedReviews?: boolean;
}

/**
 * Wires the services together and implements the commands key handlers
 * call. Every command returns at once; work runs as app tasks.
 */
export class Controller implements AppCommands {
  readonly sessions: SessionService;
  readonly projects: ProjectService;
  readonly workers: SessionWorkers;
  readonly turns: TurnRunner;
  readonly review: ReviewService;
  readonly gitStatus: GitStatusPoller;
  readonly leases: LeaseWatch;
  private readonly pool: ChannelPool;
  private refreshTimer: NodeJS.Timeout | null = null;

  constructor(private readonly deps: ControllerDeps) {
    const { app, store, git, agents, shell, runtime, forge } = deps;
    this.pool = new ChannelPool(agents);
    this.sessions = new SessionService({ app, store, git, shell, runtime });
    this.turns = new TurnRunner({ app, store, git, agents, sessions: this.sessions, pool: this.pool, runtime });
    this.review = new ReviewService({ app, store, git, agents, sessions: this.sessions, turns: this.turns, pool: this.pool, runtime, forge });
    this.turns.afterTurn = (sessionId, signal) => this.review.afterTurn(sessionId, signal, deps.focusedReviews ?? true);
    this.gitStatus = new GitStatusPoller({ app, store, git, runtime });
    this.projects = new ProjectService(
      app,
      store,
      () => runtime.clock.now(),
      (projectId) => {
        this.gitStatus.restart(projectId);
        app.task('Resuming queued prompts', () => this.leases.resumeQueued());
      },
      runtime.owner,
    );
    const runTurn: OperationHandler = (operation, signal) => this.turns.run(operation, signal);
    this.workers = new SessionWorkers({
      store,
      owner: runtime.owner,
      now: () => runtime.clock.now(),
      logger: runtime.logger,
      handlers: {
        start_prompt: runTurn,
        reply: runTurn,
        rebase: (operation, signal) => this.review.runRebase(operation, signal),
        merge: (operation, signal) => this.review.runMerge(operation, signal),
        publish: (operation, signal) => this.review.runPublish(operation, signal),
        utility: async () => {},
      },
      onQueueChanged: (sessionId) => this.publishQueue(sessionId),
    });
    this.review.attachWorkers(this.workers);
    this.leases = new LeaseWatch({ app, store, git, runtime, workers: this.workers, note: (sessionId, text) => this.sessions.note(sessionId, 'notice', text) });
  }

  /** Background work that runs for the life of the TUI. */
  start(): void {
    const { app, agents } = this.deps;
    app.task('Looking for agent CLIs', async () => {
      app.emit({ type: 'agentsDetected', agents: await agents.detect() });
    });
    if (app.state.activeProjectId !== null) this.gitStatus.restart(app.state.activeProjectId);
    // Sessions changed by another Grove process (a headless command) show up here.
    this.refreshTimer = setInterval(() => {
      this.projects
        .refreshSessions()
        // Another process's merge may have ended: the local merge queue can go on.
        .then((changed) => changed && this.review.mergeQueue.pump())
        .catch((error: unknown) => this.deps.runtime.logger.log('warn', 'session refresh failed', error));
    }, 2000);
    this.refreshTimer.unref();
    this.review.start();
    // A `grove run` (or another Grove) that dies mid-turn is noticed while this one runs.
    this.leases.start();
    app.task('Resuming queued prompts', () => this.leases.resumeQueued());
  }

  async shutdown(): Promise<void> {
    if (this.refreshTimer) clearInterval(this.refreshTimer);
    this.leases.stop();
    this.gitStatus.stop();
    this.review.stop();
    this.workers.abortAll();
    await this.pool.shutdownAll();
    // Agents not held by a session's channel (title and commit-message prompts) end here too.
    await this.deps.agents.stopAll();
  }

  private publishQueue(sessionId: string): void {
    this.deps.app.task('Reading the queue', async () => {
      const ops = await this.deps.store.operations.listUnfinished(sessionId);
      const prompts = ops
        .filter((op) => op.status === 'queued' && (op.kind === 'reply' || op.kind === 'start_prompt'))
        .map((op) => (typeof op.payload['prompt'] === 'string' ? op.payload['prompt'] : ''));
      this.deps.app.emit({ type: 'queueChanged', sessionId, prompts });
    });
  }

  private notice(level: 'info' | 'warn' | 'error', text: string): void {
    this.deps.app.emit({ type: 'notice', notice: { level, text } });
  }

  quit(): void {
    this.deps.app.apply({ type: 'exit' });
  }

  rememberTab(tab: Tab): void {
    this.projects.rememberTab(tab);
  }

  activateProject(projectId: number): void {
    this.projects.activate(projectId);
  }

  setSetting(key: string, value: string): void {
    this.projects.setSetting(key, value);
  }

  openSession(sessionId: string): void {
    const { app } = this.deps;
    app.apply({ type: 'mode', mode: { kind: 'session', sessionId, scrollBack: 0, composer: null, question: null } });
    app.task('Loading the transcript', () => this.sessions.loadTranscript(sessionId));
    const session = sessionById(app.state, sessionId);
    if (session && !isTerminal(session.status) && !isWorking(session.status)) {
      app.task('Measuring the diff', () => this.turns.refreshDiff(sessionId));
    }
  }

  createSession(): void {
    const { app } = this.deps;
    const projectId = app.state.activeProjectId;
    if (projectId === null) {
      this.notice('warn', 'Pick a project on the Projects tab first.');
      return;
    }
    const choice = this.sessions.mainChoice();
    const available = app.state.agents?.find((a) => a.id === choice.agent);
    if (available && !available.path) {
      this.notice('error', `${choice.agent} is not installed (not found on PATH). Install it or pick another agent in Settings.`);
      return;
    }
    app.task('Creating the session', async () => {
      const session = await this.sessions.create(projectId, choice, app.state.settings);
      app.emit({ type: 'sessionUpdated', session });
      app.emit({ type: 'selectSession', sessionId: session.id });
      app.emit({ type: 'transcriptLoaded', sessionId: session.id, entries: [] });
      app.emit({ type: 'mode', mode: { kind: 'session', sessionId: session.id, scrollBack: 0, composer: { text: '', cursor: 0, undo: [], redo: [] }, question: null } });
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

  sendPrompt(sessionId: string, text: string): void {
    this.deps.app.task('Sending the prompt', async () => {
      const refused = await this.submitPrompt(sessionId, text);
      if (refused) this.notice('warn', refused);
    });
  }

  /**
   * Stores the prompt as a queued operation and wakes the session's worker.
   * Returns why it was refused, or null.
   */
  async submitPrompt(sessionId: string, text: string): Promise<string | null> {
    const { store, runtime } = this.deps;
    const session = await store.sessions.get(sessionId);
    if (!session) return 'The session no longer exists.';
    if (isTerminal(session.status) || session.status === 'Merged' || session.status === 'Queued' || session.status === 'Merging') {
      return `This session is ${session.status}; it takes no prompts now.`;
    }
    const first = session.prompt === null;
    if (first) {
      await store.sessions.update(sessionId, { prompt: text, title: provisionalTitle(text), titleProvisional: true }, runtime.clock.now());
      await this.sessions.publishSession(sessionId);
    }
    await store.operations.enqueue(sessionId, first ? 'start_prompt' : 'reply', { prompt: text }, runtime.clock.now(), runtime.owner);
    this.publishQueue(sessionId);
    this.workers.notify(sessionId);
    return null;
  }

  stop(sessionId: string): void {
    const { app, store, runtime } = this.deps;
    app.task('Stopping', async () => {
      // Only prompts: a queued merge, rebase or publish is not Ctrl+C's to drop.
      const retracted = await store.operations.retractNewestQueued(sessionId, runtime.clock.now(), ['start_prompt', 'reply']);
      if (retracted) {
        this.publishQueue(sessionId);
        this.notice('info', 'Removed the newest queued prompt.');
        return;
      }
      if (this.workers.abort(sessionId)) return;
      // A turn another Grove process runs (a headless command): ask it to stop.
      const elsewhere = (await store.operations.listUnfinished(sessionId)).find((op) => op.status === 'running' && op.owner !== runtime.owner);
      if (elsewhere && !this.leases.alive(elsewhere.owner, elsewhere.heartbeatAt ?? null)) {
        // Nobody is left to honour a stop request: recover the session now.
        await this.leases.check();
        this.notice('info', 'The Grove process running this turn is gone; the session is back in Review.');
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
    this.sendPrompt(sessionId, clarificationPrompt(session, answers));
  }

  endQuestions(sessionId: string): void {
    const { app, store, runtime } = this.deps;
    app.task('Ending the question round', async () => {
      await store.sessions.update(sessionId, { questions: [] }, runtime.clock.now());
      const session = await store.sessions.setStatus(sessionId, 'Review', runtime.clock.now());
      app.emit({ type: 'sessionUpdated', session });
    });
  }

  openDiff(sessionId: string): void {
    this.review.openDiff(sessionId);
  }

  requestMerge(sessionId: string): void {
    this.review.requestMerge(sessionId);
  }

  confirmMerge(sessionId: string): void {
    this.review.confirmMerge(sessionId);
  }

  rebase(sessionId: string): void {
    this.review.requestRebase(sessionId);
  }

  requestCancel(sessionId: string): void {
    this.review.requestCancel(sessionId);
  }

  confirmCancel(sessionId: string): void {
    this.review.confirmCancel(sessionId);
  }

  syncMain(): void {
    this.review.syncMain();
  }

  confirmSync(branch: string, head: string): void {
    this.review.confirmSync(branch, head);
  }

  requestPublish(sessionId: string): void {
    this.review.requestPublish(sessionId);
  }

  publish(sessionId: string, remoteBranch: string): void {
    this.review.publish(sessionId, remoteBranch);
  }

  regenerateReview(sessionId: string): void {
    this.review.focused.request(sessionId);
  }

  forceReview(sessionId: string): void {
    this.review.focused.start(sessionId, true);
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
        await clipboard.copy(text);
        this.notice('info', `Copied ${what}: ${text}`);
      } catch (error) {
        this.notice('warn', `Could not copy ${what}: ${error instanceof Error ? error.message : String(error)}`);
      }
    });
  }
}
