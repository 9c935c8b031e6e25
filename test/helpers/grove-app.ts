import { basename } from 'node:path';
import { App } from '../../src/app/app.js';
import { Controller } from '../../src/app/controller.js';
import type { AppEvent } from '../../src/app/events.js';
import { loadSettings, startSessions } from '../../src/app/services/projects.js';
import {
  recoverInterruptedOperations,
  recoverInterruptedReviews,
} from '../../src/app/services/recovery.js';
import { initialState } from '../../src/app/state.js';
import { VERSION, isOwnerAlive, type Infra } from '../../src/compose.js';
import type { Project } from '../../src/domain/project.js';
import { shellRunner } from '../../src/infra/shell.js';

export interface GroveApp {
  readonly project: Project;
  readonly app: App;
  readonly controller: Controller;
  /** Sessions whose operations start-up recovery failed ("interrupted by restart"). */
  readonly interrupted: readonly string[];
  /** Every event the app emitted, in order. */
  readonly events: AppEvent[];
  /** What recovery said about checkouts of no session (an interrupted sync of the main checkout). */
  readonly checkoutNotices: readonly string[];
}

/**
 * Starts the app core on real infrastructure the way Grove does (main.ts and
 * headless commands): recovery of operations left by dead processes first,
 * then App, initial state and Controller, with no screen (events are
 * drained as they come, as headless commands do).
 */
export async function startGroveApp(infra: Infra, repo: string): Promise<GroveApp> {
  const { store, clock, runtime } = infra;
  const project = await store.projects.upsert(repo, basename(repo), clock.now());
  const checkoutNotices: string[] = [];
  const interrupted = await recoverInterruptedOperations(
    store,
    clock.now(),
    (owner) => isOwnerAlive(owner, runtime.owner),
    undefined,
    {
      git: infra.git,
      owner: runtime.owner,
      logger: infra.logger,
      onProjectNotice: (text) => checkoutNotices.push(text),
    },
  );
  await recoverInterruptedReviews(store, clock.now());
  const [{ sessions, archive }, settings] = await Promise.all([
    startSessions(store, project.id),
    loadSettings(store, project.id),
  ]);
  const app = new App(
    initialState({
      version: VERSION,
      columns: 80,
      rows: 24,
      now: clock.now(),
      tab: 'sessions',
      projects: [project],
      activeProjectId: project.id,
      sessions,
      archive,
      settings,
    }),
    infra.logger,
  );
  app.onWake(() => setImmediate(() => app.drain()));
  const events: AppEvent[] = [];
  app.subscribe((event) => events.push(event));
  const controller = new Controller({
    app,
    store,
    git: infra.git,
    agents: infra.agents,
    forge: infra.forge,
    shell: shellRunner,
    runtime,
    focusedReviews: false,
  });
  app.setIntents(controller);
  return { project, app, controller, interrupted, events, checkoutNotices };
}
