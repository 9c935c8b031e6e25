import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { App } from '../../src/app/app.js';
import { Controller } from '../../src/app/controller.js';
import type { AppEvent } from '../../src/app/events.js';
import { loadSettings } from '../../src/app/services/projects.js';
import { initialState } from '../../src/app/state.js';
import { openInfra, type Infra } from '../../src/compose.js';
import type { Session } from '../../src/domain/session.js';
import { shellRunner } from '../../src/infra/shell.js';
import { agentEnv } from './agent-env.js';
import { startFakeGitHub, type FakeGitHub } from './fake-github/server.js';
import { startFakeModelServer, type FakeModelServer } from './fake-model/server.js';
import { git, makeRepo, makeWorld, type GroveWorld } from './grove-env.js';
import { REAL_CLI_BIN } from './real-clis.js';

/** A protocol reply as the agent's final message. */
export const reply = (answer: string): string =>
  JSON.stringify({ answer, questions: [], summary: { turn: answer, session: answer } });

/**
 * Grove's app core in this process, on real infrastructure: a real git
 * repository with a bare origin, a real SQLite store under GROVE_HOME, and
 * the real Claude Code CLI talking to the fake model server.
 */
export interface ReviewWorld {
  readonly world: GroveWorld;
  /** Grove's environment: the same GROVE_HOME and agents for `grove` run in another process. */
  readonly env: Record<string, string>;
  readonly server: FakeModelServer;
  readonly repo: string;
  readonly origin: string;
  readonly infra: Infra;
  readonly app: App;
  readonly controller: Controller;
  readonly projectId: number;
  readonly events: AppEvent[];
  /** The fake GitHub serving the project (origin is github.com/acme/widgets, pushes go to the bare origin), when asked for. */
  readonly github: FakeGitHub | null;
  /** A session in Review whose branch holds one commit with `files` (created through the real session service). */
  session(options: {
    files: Record<string, string | Buffer>;
    message: string;
    title?: string;
  }): Promise<Session>;
  get(sessionId: string): Promise<Session>;
  /** The session's transcript notices, in order. */
  notices(sessionId: string): Promise<string[]>;
  /** Commits `files` on main in the main checkout (optionally pushes). */
  commitOnMain(files: Record<string, string | Buffer>, message: string): string;
  /** A second clone of origin, to make commits that arrive from elsewhere. */
  pushFromElsewhere(files: Record<string, string>, message: string): void;
  close(): Promise<void>;
}

export function writeFiles(dir: string, files: Record<string, string | Buffer>): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
}

/** Polls until `probe` returns something other than undefined/false/null. */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined | null | false> | T | undefined | null | false,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== null && value !== false) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline)
      throw new Error(
        `timed out waiting for ${what}${last ? ` (last error: ${last instanceof Error ? last.message : JSON.stringify(last)})` : ''}`,
      );
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const savedHome = process.env['HOME'];

const GITHUB_TOKEN = 'grove-review-world-token-3b9e';

export async function makeReviewWorld(
  options: { github?: boolean; env?: Readonly<Record<string, string>> } = {},
): Promise<ReviewWorld> {
  const world = makeWorld();
  // Git run by Grove in this process takes its identity from HOME/.gitconfig.
  process.env['HOME'] = world.home;
  process.env['GIT_CONFIG_NOSYSTEM'] = '1';
  const server = await startFakeModelServer();
  // Utility prompts Grove may send around a turn; they never take a test's own steps.
  const repo = makeRepo(world, 'project', true);
  const origin = join(world.dir, 'project-origin.git');
  let github: FakeGitHub | null = null;
  const forgeEnv: Record<string, string> = {};
  if (options.github) {
    const remoteUrl = 'https://github.com/acme/widgets.git';
    git(repo, 'remote', 'set-url', 'origin', remoteUrl);
    git(repo, 'config', `url.${origin}.pushInsteadOf`, remoteUrl);
    github = await startFakeGitHub({
      owner: 'acme',
      repo: 'widgets',
      token: GITHUB_TOKEN,
      bareRepo: origin,
    });
    mkdirSync(join(world.home, 'gh-config'), { recursive: true });
    forgeEnv['GITHUB_TOKEN'] = GITHUB_TOKEN;
    forgeEnv['GROVE_GITHUB_API_URL'] = github.url;
    // A `gh` on this machine must not hand Grove a real token.
    forgeEnv['GH_CONFIG_DIR'] = join(world.home, 'gh-config');
  }
  const env = {
    ...agentEnv(server, world.home),
    PATH: `${REAL_CLI_BIN}:${process.env['PATH'] ?? '/usr/bin:/bin'}`,
    GROVE_HOME: world.groveHome,
    ...forgeEnv,
    // More of Grove's environment (a test host's GROVE_SSH_CONFIG).
    ...options.env,
  };
  const infra = openInfra(env);
  const project = await infra.store.projects.upsert(repo, 'project', infra.clock.now());
  const [sessions, settings] = await Promise.all([
    infra.store.sessions.listByProject(project.id),
    loadSettings(infra.store, project.id),
  ]);
  const app = new App(
    initialState({
      version: 'test',
      columns: 100,
      rows: 30,
      now: infra.clock.now(),
      tab: 'sessions',
      projects: [project],
      activeProjectId: project.id,
      sessions,
      settings,
    }),
    infra.logger,
  );
  app.onWake(() => setImmediate(() => app.drain()));
  const events: AppEvent[] = [];
  app.subscribe((event) => events.push(event));
  const controller = new Controller({
    app,
    store: infra.store,
    git: infra.git,
    agents: infra.agents,
    forge: infra.forge,
    shell: shellRunner,
    runtime: infra.runtime,
    // Sessions on hosts (a test host's GROVE_SSH_CONFIG in options.env) as headless commands have them.
    hosts: infra.hosts,
    focusedReviews: false,
  });
  app.setIntents(controller);
  const store = infra.store;

  const get = async (sessionId: string): Promise<Session> => {
    const s = await store.sessions.get(sessionId);
    if (!s) throw new Error(`no session ${sessionId}`);
    return s;
  };

  return {
    world,
    env,
    server,
    repo,
    origin,
    infra,
    app,
    controller,
    projectId: project.id,
    events,
    github,
    async session({ files, message, title }) {
      const created = await controller.sessions.create(
        project.id,
        { agent: 'claude', model: 'sonnet', reasoning: 'high' },
        app.state.settings,
      );
      await controller.sessions.whenReady(created.id);
      writeFiles(created.worktreePath, files);
      git(created.worktreePath, 'add', '-A');
      execFileSync('git', ['commit', '-q', '-F', '-'], {
        cwd: created.worktreePath,
        input: message,
      });
      const now = infra.clock.now();
      await store.sessions.update(
        created.id,
        {
          title: title ?? message.split('\n')[0] ?? '',
          prompt: title ?? message,
          commitMessage: message,
          headCommit: git(created.worktreePath, 'rev-parse', 'HEAD'),
        },
        now,
      );
      await store.sessions.setStatus(created.id, 'InProgress', now);
      await store.sessions.setStatus(created.id, 'Review', now);
      await controller.sessions.publishSession(created.id);
      await waitFor('the session in the snapshot', () =>
        app.state.sessions.find((s) => s.id === created.id && s.status === 'Review'),
      );
      return get(created.id);
    },
    get,
    async notices(sessionId) {
      return (await store.transcript.list(sessionId))
        .filter((e) => e.kind === 'notice')
        .map((e) => e.content);
    },
    commitOnMain(files, message) {
      writeFiles(repo, files);
      git(repo, 'add', '-A');
      git(repo, 'commit', '-q', '-m', message);
      return git(repo, 'rev-parse', 'HEAD');
    },
    pushFromElsewhere(files, message) {
      const other = join(world.dir, `elsewhere-${Math.random().toString(36).slice(2, 8)}`);
      execFileSync('git', ['clone', '-q', origin, other]);
      writeFiles(other, files);
      git(other, 'add', '-A');
      git(other, 'commit', '-q', '-m', message);
      git(other, 'push', '-q', 'origin', 'main');
    },
    async close() {
      await controller.shutdown();
      await infra.db.close();
      await server.close();
      await github?.stop();
      process.env['HOME'] = savedHome;
      world.cleanup();
    },
  };
}
