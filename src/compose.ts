import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import { fileURLToPath } from 'node:url';
import { grovePaths, type GrovePaths } from './infra/paths.js';
import { createFileLogger, type Logger } from './infra/log.js';
import { systemClock, type Clock } from './infra/clock.js';
import { openDatabase, type GroveDb } from './infra/db/database.js';
import { createStore } from './infra/db/store.js';
import { createGitClient } from './infra/git/git-client.js';
import { createAgents } from './infra/agent/agents.js';
import { createForge } from './infra/forge/forge.js';
import type { Agents, Forge, GitClient, Runtime, Store } from './app/ports.js';

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
  readonly forge: Forge;
  readonly runtime: Runtime;
}

function migrationsDir(): string {
  // src/compose.ts sits one level below the package root, the bundled chunk
  // (dist/chunks/) two levels: the nearest migrations/ folder above is ours.
  for (const up of ['../migrations/', '../../migrations/']) {
    const dir = fileURLToPath(new URL(up, import.meta.url));
    if (existsSync(dir)) return dir;
  }
  return fileURLToPath(new URL('../migrations/', import.meta.url));
}

/** Opens the database (throws DatabaseError) and builds every adapter. */
export function openInfra(env: NodeJS.ProcessEnv): Infra {
  const paths = grovePaths(env);
  const logger = createFileLogger(paths.logFile, () => [env['GITHUB_TOKEN'] ?? '', env['GH_TOKEN'] ?? '']);
  const db = openDatabase(paths.database, migrationsDir());
  const clock = systemClock;
  const owner = `${hostname()}:${process.pid}`;
  return {
    paths,
    logger,
    clock,
    db,
    store: createStore(db.kysely),
    git: createGitClient(),
    agents: createAgents(env, logger),
    forge: createForge(env, logger),
    runtime: { clock, logger, paths, env, owner },
  };
}

/** True when the `host:pid` owner of an operation is still running. */
export function isOwnerAlive(owner: string | null, self: string): boolean {
  if (!owner || owner === self) return false;
  const [host, pid] = owner.split(':');
  if (host !== hostname()) return true; // another machine: assume alive
  try {
    process.kill(Number(pid), 0);
    return true;
  } catch {
    return false;
  }
}
