import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { headlessContext, shutdownContexts, type HeadlessContext } from '../../src/cli/headless.js';
import { openInfra, type Infra } from '../../src/compose.js';
import type { Session } from '../../src/domain/session.js';
import { agentEnv } from './agent-env.js';
import { startGitHubProject } from './fake-github/project.js';
import { startFakeGitHub, type FakeGitHub } from './fake-github/server.js';
import { startFakeModelServer, type FakeModelServer } from './fake-model/server.js';
import {
  GROVE_BIN,
  agentWorldEnv,
  makeWorld,
  snapshotWorld,
  type GroveWorld,
} from './grove-env.js';

// The world of the publish and review-thread tests, through the real layers:
// the built `grove` binary with the real Claude Code CLI against the fake
// model server, a real repository whose pushes go to a bare remote, real
// SQLite, and the fake GitHub. In-process services (the pull request poller,
// the TUI's controller) run on the same GROVE_HOME.
//
// A test file calls setUpGitHubWorld once at its top level. What it sets up is
// exported as live bindings (each system test file runs in its own process),
// so a test reads `github`, `model` or `repo` as the current test's.

export let world: GroveWorld;
export let repo: string;
export let bare: string;
export let model: FakeModelServer;
export let github: FakeGitHub;
export let env: Record<string, string>;
/** The session the file's beforeAll made, kept in the snapshot every test starts from. */
export let workId: string;
let infra: Infra | null = null;
/** The world after the file's first session (made once: a real Claude Code turn takes seconds). */
let snapshot: ReturnType<typeof snapshotWorld>;

/** An x-ratelimit-reset the failure tests name: 2031-01-01 17:45 UTC. */
export const RESET = Math.floor(Date.UTC(2031, 0, 1, 17, 45) / 1000);

function worldEnv(token: string): Record<string, string> {
  return {
    ...agentWorldEnv(world, agentEnv(model, world.home)),
    HOME: world.home,
    TZ: 'UTC',
    GITHUB_TOKEN: token,
    GROVE_GITHUB_API_URL: github.url,
    // A `gh` on this machine must not hand Grove a real token.
    GH_CONFIG_DIR: join(world.home, 'gh-config'),
  };
}

/** Closes the store's database (a later store() opens it again). */
export async function closeDb(): Promise<void> {
  await infra?.db.close();
  infra = null;
}

/** Shuts the in-process controllers, then closes the store. */
export async function closeStore(): Promise<void> {
  await shutdownContexts();
  await closeDb();
}

async function closeAll(): Promise<void> {
  await closeStore();
  await github.stop();
  await model.close();
}

/**
 * Registers the file's hooks: beforeAll makes the world and its first session
 * (`sessionWithWork`, returning its id) with `token` in GITHUB_TOKEN and
 * snapshots it; before each test the snapshot is put back and the test gets
 * its own fake GitHub (no pull requests, no threads, no requests seen) and
 * model server.
 */
export function setUpGitHubWorld(token: string, sessionWithWork: () => Promise<string>): void {
  beforeAll(async () => {
    world = makeWorld();
    ({ repo, bare, github } = await startGitHubProject(world, token));
    model = await startFakeModelServer();
    mkdirSync(join(world.home, 'gh-config'), { recursive: true });
    env = worldEnv(token);
    workId = await sessionWithWork();
    await closeAll();
    snapshot = snapshotWorld(world);
  }, 120_000);

  beforeEach(async () => {
    snapshot.restore();
    github = await startFakeGitHub({ owner: 'acme', repo: 'widgets', token, bareRepo: bare });
    model = await startFakeModelServer();
    env = worldEnv(token);
  });

  afterEach(closeAll);

  afterAll(() => {
    snapshot?.drop();
    world?.cleanup();
  });
}

export interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** The built binary as a child process (asynchronously: the fake servers live in this process). */
export function grove(
  args: readonly string[],
  extraEnv: Record<string, string | undefined> = {},
): Promise<Run> {
  const merged: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...env, ...extraEnv })) if (v !== undefined) merged[k] = v;
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [GROVE_BIN, ...args],
      { cwd: repo, env: merged, timeout: 90_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

export function store(): Infra {
  infra ??= openInfra(env);
  return infra;
}

export async function load(id: string): Promise<Session> {
  const session = await store().store.sessions.get(id);
  if (!session) throw new Error(`no session ${id}`);
  return session;
}

/** A controller on the same GROVE_HOME, as the TUI builds it (for the pull request poller). */
export function controllerContext(): Promise<HeadlessContext> {
  const io = {
    stdout: new PassThrough(),
    stderr: new PassThrough(),
    stdin: new PassThrough(),
    stderrIsTTY: false,
    env,
    cwd: repo,
  };
  return headlessContext(store(), io, repo, false);
}

/** The commit `branch` points at on the bare remote (null when it is not there). */
export function remoteHead(branch: string): string | null {
  try {
    return execFileSync('git', ['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`], {
      cwd: bare,
      encoding: 'utf8',
    }).trim();
  } catch {
    return null;
  }
}

export async function transcript(id: string): Promise<string> {
  return (await store().store.transcript.list(id)).map((e) => e.content).join('\n');
}
