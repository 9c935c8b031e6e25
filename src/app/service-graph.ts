import type { App } from './app.js';
import type {
  Agents,
  Clipboard,
  Forge,
  GitClient,
  HostCleaner,
  HostSessions,
  ImageStore,
  Notifier,
  Runtime,
  Store,
  TerminalHandoff,
} from './ports.js';
import type { ShellRunner } from '../infra/shell.js';
import type { ProcessTable } from '../domain/resources.js';
import { ResourceSampler } from './services/resources.js';
import { HostSampler } from './services/host-sampler.js';
import { SessionActions } from './services/session-actions.js';
import { Notifications } from './services/notifications.js';
import { SessionHooks } from './services/session-hooks.js';
import { ComposerService } from './services/composer.js';
import { ChannelPool } from './services/channel-pool.js';
import { ProjectService } from './services/projects.js';
import { SessionService } from './services/sessions.js';
import { TurnRunner } from './services/turn.js';
import { ApprovalDesk } from './services/approvals.js';
import { SessionWorkers, type OperationHandler } from './services/worker.js';
import { ReviewService } from './services/review/index.js';
import { GitStatusPoller } from './services/git-status.js';
import { LeaseWatch } from './services/lease-watch.js';
import { BudgetService } from './services/budget.js';
import { BestOfService } from './services/best-of.js';
import { cancelSession } from './services/review/cancel.js';
import type { Admission } from './services/admission.js';
import type { HostLoads } from './services/host-loads.js';
import { admissionGate, hostLoadsOf } from './admission-gate.js';

// The service graph behind the Controller: which service gets what at
// construction, and the events that tie them together.

export interface ControllerDeps {
  readonly app: App;
  readonly store: Store;
  readonly git: GitClient;
  readonly agents: Agents;
  readonly shell: ShellRunner;
  readonly runtime: Runtime;
  readonly forge: Forge;
  /** Sessions on hosts: their place before a turn and their branch brought back after. */
  readonly hosts?: HostSessions;
  /** Removes what sessions that ended left on their hosts (absent: recorded for grove gc). */
  readonly hostCleaner?: HostCleaner;
  /** The system clipboard (the TUI's `y`); absent in headless commands. */
  readonly clipboard?: Clipboard;
  /** Where images attached in the composer are stored (the TUI). */
  readonly images?: ImageStore;
  /** The TUI runs focused reviews after turns; a one-shot command does not. */
  readonly focusedReviews?: boolean;
  /** The TUI's terminal, lent to a shell or an editor (`o`, `e`). */
  readonly handoff?: TerminalHandoff;
  /** Bell, terminal and desktop notifications when a session needs the person (the TUI). */
  readonly notifier?: Notifier;
  /**
   * A one-shot command lets the session hooks it fired run to their end
   * (each time-limited) when it shuts down; the TUI ends them when it quits.
   */
  readonly settleHooks?: boolean;
  /** Reads the process table for the resource figures (the TUI); absent: nothing is sampled. */
  readonly processes?: () => Promise<ProcessTable | null>;
}

/** The services the Controller holds. */
export interface Services {
  readonly sessions: SessionService;
  readonly projects: ProjectService;
  readonly workers: SessionWorkers;
  readonly turns: TurnRunner;
  /** Agent requests held for the person (the inbox's approvals). */
  readonly approvals: ApprovalDesk;
  readonly review: ReviewService;
  /** Best-of-N groups: fan-out, checks, the judge's ranking, choosing the winner. */
  readonly bestOf: BestOfService;
  readonly gitStatus: GitStatusPoller;
  readonly leases: LeaseWatch;
  readonly composer: ComposerService;
  readonly actions: SessionActions;
  readonly notifications: Notifications | null;
  /** The project's hook command, run when a session changes state (TUI and headless). */
  readonly sessionHooks: SessionHooks;
  readonly budget: BudgetService;
  readonly pool: ChannelPool;
  /** The admission gate of agent turns (null where the machine's figures are not given). */
  readonly admission: Admission | null;
  /** The hosts' free memory and load, kept a few seconds (null: hosts are not read). */
  readonly hostLoads: HostLoads | null;
  /** The running agents' CPU and memory (the TUI only). */
  readonly resources: ResourceSampler | null;
}

/** What the services call back on the Controller. */
export interface ControllerHooks {
  publishQueue(sessionId: string): void;
  submitPrompt(sessionId: string, prompt: string): Promise<string | null>;
}

/**
 * Builds the services. The graph has one direction (docs/architecture/runtime-flow.md):
 * workers run operations; review queues its operations on them; turns end by
 * calling review's afterTurn. The closures below reach services built after
 * them through `s`, the one late-bound edge being the workers' handler table.
 */
export function buildServices(
  deps: ControllerDeps,
  shutdown: AbortSignal,
  hooks: ControllerHooks,
): Services {
  const s = {} as { -readonly [K in keyof Services]: Services[K] };

  const { app, store, git, agents, shell, runtime, forge } = deps;
  s.pool = new ChannelPool(agents);
  s.sessions = new SessionService({ app, store, git, shell, runtime, shutdown });
  s.composer = new ComposerService({
    app,
    store,
    git,
    runtime,
    whenReady: (id) => s.sessions.whenReady(id),
    ...(deps.images ? { images: deps.images } : {}),
  });
  // The service graph has one direction (docs/architecture/runtime-flow.md):
  // workers run operations; review queues its operations on them; turns end
  // by calling review's afterTurn. Each service gets what it uses at
  // construction; the workers' handler table is the one late-bound edge.
  const runTurn: OperationHandler = (operation, signal) => s.turns.run(operation, signal);
  s.hostLoads = hostLoadsOf(deps);
  s.admission = admissionGate(
    deps,
    s.hostLoads,
    (id) => s.workers.notify(id),
    (id, text) => s.sessions.note(id, 'notice', text),
    (id) => s.sessions.publishSession(id),
  );
  s.workers = new SessionWorkers({
    store,
    owner: runtime.owner,
    now: () => runtime.clock.now(),
    logger: runtime.logger,
    handlers: {
      start_prompt: runTurn,
      reply: runTurn,
      rebase: (operation, signal) => s.review.runRebase(operation, signal),
      merge: (operation, signal) => s.review.runMerge(operation, signal),
      publish: (operation, signal) => s.review.runPublish(operation, signal),
      utility: async () => {},
    },
    onQueueChanged: (sessionId) => hooks.publishQueue(sessionId),
    hold: (sessionId, next) => s.budget.hold(sessionId, next),
    ...(s.admission ? { admission: s.admission } : {}),
    stopLeftRun: (operation) => s.turns.stopLeftRun(operation),
  });
  s.review = new ReviewService({
    app,
    store,
    git,
    agents,
    sessions: s.sessions,
    pool: s.pool,
    runtime,
    forge,
    queue: s.workers,
    shutdown,
    hostCleaner: deps.hostCleaner,
  });
  const review = s.review;
  const focusedReviews = deps.focusedReviews ?? true;
  s.approvals = new ApprovalDesk({
    store,
    runtime,
    settings: () => app.state.settings,
    note: (sessionId, text) => s.sessions.note(sessionId, 'notice', text),
  });
  s.sessionHooks = new SessionHooks({
    store,
    agents,
    shell,
    runtime,
    note: (sessionId, text) => s.sessions.note(sessionId, 'notice', text),
  });
  s.sessionHooks.start(s.workers, s.approvals);
  s.turns = new TurnRunner({
    app,
    store,
    git,
    agents,
    sessions: s.sessions,
    pool: s.pool,
    runtime,
    shutdown,
    approvals: s.approvals,
    ...(deps.hosts ? { hosts: deps.hosts } : {}),
    afterTurn: (sessionId, signal, operation) =>
      review.afterTurn(sessionId, signal, focusedReviews, operation),
  });
  s.gitStatus = new GitStatusPoller({ app, store, git, runtime });
  s.budget = new BudgetService({ app, store, runtime });
  s.projects = new ProjectService(
    app,
    store,
    () => runtime.clock.now(),
    (projectId) => {
      s.gitStatus.restart(projectId);
      s.composer.loadProject(projectId);
      app.task('Reading the budgets', () => s.budget.refresh(projectId));
      app.task('Reading the best-of-N groups', () => s.bestOf.load(projectId));
      app.task('Resuming stranded best-of-N groups', () => s.bestOf.resumeStranded(projectId));
      app.task('Resuming queued prompts', () => s.leases.resumeQueued());
    },
    runtime.owner,
  );
  s.actions = new SessionActions({
    app,
    store,
    git,
    shell,
    runtime,
    sessions: s.sessions,
    enqueueStart: async (sessionId, prompt, display) => {
      await store.operations.enqueue(
        sessionId,
        'start_prompt',
        { prompt, display },
        runtime.clock.now(),
        runtime.owner,
      );
      hooks.publishQueue(sessionId);
      s.workers.notify(sessionId);
    },
    refreshDiff: (sessionId) => s.sessions.refreshDiff(sessionId),
    shutdown,
    ...(deps.handoff ? { handoff: deps.handoff } : {}),
  });
  s.notifications = deps.notifier ? new Notifications(app, deps.notifier, runtime) : null;
  // The hosts' figures in the header: the TUI only, read while it is watched.
  const hostSampler =
    deps.processes && s.hostLoads
      ? new HostSampler({ app, store, loads: s.hostLoads, now: () => runtime.clock.now() })
      : null;
  s.resources = deps.processes
    ? new ResourceSampler({
        app,
        roots: () => agents.running(),
        read: deps.processes,
        self: process.pid,
        ...(hostSampler ? { followers: [hostSampler] } : {}),
      })
    : null;
  hostSampler?.start();
  s.bestOf = new BestOfService({
    app,
    store,
    git,
    agents,
    shell,
    runtime,
    sessions: s.sessions,
    submitPrompt: (sessionId, prompt) => hooks.submitPrompt(sessionId, prompt),
    merge: (sessionId) => s.review.confirmMerge(sessionId),
    publish: (sessionId) => s.review.publish(sessionId, ''),
    cancel: (sessionId) => cancelSession(s.review.ctx, sessionId, (id) => s.workers.abort(id)),
    shutdown,
  });
  // The last variant of a best-of-N group to finish starts its checks and the judge.
  s.workers.onOutcome((outcome) => {
    if (outcome.operation.kind !== 'start_prompt' && outcome.operation.kind !== 'reply') return;
    app.task('Checking the best-of-N group', () =>
      s.bestOf.sessionSettled(outcome.operation.sessionId),
    );
  });
  // Spending shown in the header follows every turn; a changed budget setting lets held prompts go when it allows.
  s.workers.onOutcome((outcome) => {
    const projectId = app.state.activeProjectId;
    if (
      projectId !== null &&
      (outcome.operation.kind === 'start_prompt' || outcome.operation.kind === 'reply')
    )
      app.task('Reading the budgets', () => s.budget.refresh(projectId));
  });
  // Grove's own calls after a turn (the title, the focused review) add to a session's
  // tokens later: the header's spending follows when a session's total changes.
  const seenTokens = new Map<string, number>();
  app.subscribe((event) => {
    if (event.type !== 'sessionUpdated') return;
    const { id, inputTokens, outputTokens } = event.session;
    const was = seenTokens.get(id);
    seenTokens.set(id, inputTokens + outputTokens);
    const projectId = app.state.activeProjectId;
    if (was !== undefined && was !== inputTokens + outputTokens && projectId !== null)
      app.task('Reading the budgets', () => s.budget.refresh(projectId));
  });
  app.subscribe((event) => {
    if (event.type !== 'settingsLoaded') return;
    for (const sessionId of Object.keys(app.state.budget?.held ?? {})) s.workers.notify(sessionId);
    const projectId = app.state.activeProjectId;
    if (projectId !== null) app.task('Reading the budgets', () => s.budget.refresh(projectId));
  });
  s.leases = new LeaseWatch({
    app,
    store,
    git,
    runtime,
    workers: s.workers,
    note: (sessionId, text) => s.sessions.note(sessionId, 'notice', text),
    sweepLeftovers: () => agents.sweepLeftovers(),
  });
  return s;
}
