import { fileURLToPath } from 'node:url';
import { grovePaths, type GrovePaths } from './infra/paths.js';
import { createFileLogger, type Logger } from './infra/log.js';
import { systemClock, type Clock } from './infra/clock.js';
import { openDatabase, type GroveDb } from './infra/db/database.js';
import { createStore } from './infra/db/store.js';
import { createGitClient } from './infra/git/git-client.js';
import { createAgents } from './infra/agent/agents.js';
import { createLauncher } from './infra/agent/confine/launcher.js';
import { loadAcpAgents } from './infra/agent/acp/agents-file.js';
import { ALLOW_UNCONFINED_KEY } from './domain/settings.js';
import {
  effectiveLimit,
  MEMORY_MAX_KEY,
  NO_LIMITS,
  sessionLimits,
  TASKS_MAX_KEY,
} from './domain/limits.js';
import { NETWORK_ALLOW_KEY, NETWORK_MODE_KEY, networkPolicy } from './domain/network.js';
import { exposurePolicy, HIDDEN_PATHS_KEY, PASS_ENV_KEY } from './domain/agent-exposure.js';
import { createForge } from './infra/forge/forge.js';
import { processOwner } from './infra/owner.js';
import { makePrivateDir } from './infra/private-files.js';
import type { Agents, Forge, GitClient, HostSessions, Runtime, Store } from './app/ports.js';
import { parseSharedFolders, SHARED_FOLDERS_KEY } from './domain/shared-folders.js';
import { allowUnconfinedKey } from './domain/host.js';
import { groveSsh } from './infra/hosts/ssh.js';
import { readHostLoad } from './infra/hosts/host-load.js';
import { readMachineFigures } from './infra/machine-figures.js';
import { hostAgentStarter } from './infra/hosts/remote-server.js';
import { attachRemoteServer } from './infra/hosts/remote-reattach.js';
import { createHostSessions } from './infra/hosts/remote-session.js';

declare const __GROVE_VERSION__: string | undefined;
export const VERSION = typeof __GROVE_VERSION__ === 'string' ? __GROVE_VERSION__ : '0.0.0-dev';

/** The real infrastructure, built once per process (TUI or headless command). */
export interface Infra {
  readonly paths: GrovePaths;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly db: GroveDb;
  readonly store: Store;
  readonly git: GitClient;
  readonly agents: Agents;
  /** Sessions on hosts (issue 24). */
  readonly hosts: HostSessions;
  readonly forge: Forge;
  readonly runtime: Runtime;
}

/** The migrations/ folder this build ships. */
export function migrationsDir(): string {
  // src/compose.ts and the bundle (dist/grove-app.cjs) both sit one level
  // below the package root.
  return fileURLToPath(new URL('../migrations/', import.meta.url));
}

/** Opens the database (throws DatabaseError) and builds every adapter. */
export function openInfra(env: NodeJS.ProcessEnv): Infra {
  const paths = grovePaths(env);
  // GROVE_HOME is private (0700); infra/private-files.ts.
  makePrivateDir(paths.home);
  const logger = createFileLogger(paths.logFile, () => [
    env['GITHUB_TOKEN'] ?? '',
    env['GH_TOKEN'] ?? '',
  ]);
  const db = openDatabase(paths.database, migrationsDir());
  const clock = systemClock;
  const owner = processOwner();
  const store = createStore(db.kysely);
  // Every agent process starts here: confined, tied to this process, recorded for the sweep.
  const launcher = createLauncher({
    runDir: paths.run,
    allowUnconfined: async () => (await store.settings.getGlobal(ALLOW_UNCONFINED_KEY)) === 'on',
    network: async () =>
      networkPolicy(
        await store.settings.getGlobal(NETWORK_MODE_KEY),
        await store.settings.getGlobal(NETWORK_ALLOW_KEY),
      ),
    exposure: async () =>
      exposurePolicy(
        await store.settings.getGlobal(PASS_ENV_KEY),
        await store.settings.getGlobal(HIDDEN_PATHS_KEY),
      ),
    sharedFolders: async (mainCheckout) => {
      const project = (await store.projects.list()).find((p) => p.path === mainCheckout);
      if (!project) return [];
      const parsed = parseSharedFolders(
        (await store.settings.getProject(project.id, SHARED_FOLDERS_KEY)) ?? '',
      );
      return parsed.ok ? parsed.paths : [];
    },
    // A session's own limits (grove run --memory-max) over its project's settings.
    limits: async (sessionId) => {
      const session = await store.sessions.get(sessionId);
      if (!session) return NO_LIMITS;
      const project = (name: string): Promise<string | undefined> =>
        store.settings.getProject(session.projectId, name);
      return sessionLimits(
        effectiveLimit(session.limits?.memoryMax, await project(MEMORY_MAX_KEY)),
        effectiveLimit(session.limits?.tasksMax, await project(TASKS_MAX_KEY)),
      );
    },
    logger,
  });
  // One ssh transport for every host: the shared connections' sockets in GROVE_HOME/ssh.
  const ssh = groveSsh(env, paths.home);
  return {
    paths,
    logger,
    clock,
    db,
    store,
    // Worktrees of Grove's projects get their git folders from the repository's own list.
    git: createGitClient(env, async () => (await store.projects.list()).map((p) => p.path)),
    // The extra ACP agents of GROVE_HOME/agents.json, read once (a refused file offers none; doctor says why).
    agents: createAgents(
      env,
      logger,
      launcher,
      loadAcpAgents(paths.acpAgents),
      // A host that cannot forward the network filter's socket: open only where agents may run unconfined.
      {
        ...hostAgentStarter(
          ssh,
          async (host) => (await store.settings.getGlobal(allowUnconfinedKey(host.name))) === 'on',
        ),
        // A Codex or Gemini CLI run a killed Grove left on a host is taken over.
        attachServer: (place, spec) =>
          attachRemoteServer(
            ssh,
            place,
            spec,
            async (host) =>
              (await store.settings.getGlobal(allowUnconfinedKey(host.name))) === 'on',
          ),
      },
    ),
    hosts: createHostSessions(
      ssh,
      store.hosts,
      async (host) => (await store.settings.getGlobal(allowUnconfinedKey(host.name))) === 'on',
    ),
    forge: createForge(env, logger),
    runtime: {
      clock,
      logger,
      paths,
      env,
      owner,
      machine: readMachineFigures,
      hostLoad: (host) => readHostLoad(ssh, host, () => clock.now()),
    },
  };
}

/** True when the `host:pid` owner of an operation is still running (see infra/owner.ts). */
export { isOwnerAlive } from './infra/owner.js';
