import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, beforeEach, expect } from 'vitest';
import { agentEnv } from '../helpers/agent-env.js';
import {
  startFakeModelServer,
  type FakeModelServer,
  type Scripted,
} from '../helpers/fake-model/server.js';
import {
  GROVE_BIN,
  agentWorldEnv,
  makeRepo,
  makeWorld,
  snapshotWorld,
  type GroveWorld,
} from '../helpers/grove-env.js';
import { reply } from '../helpers/fake-model/reply.js';
import { ListSchema, ShowSchema } from './headless-schema.js';

export { reply };

// Shared by the headless-*.test.ts files: the built binary (dist/grove.js)
// run as a child process with a private HOME and GROVE_HOME, the pinned real
// Claude Code on PATH, talking to the fake model server.

export interface Run {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface Running {
  readonly child: ChildProcess;
  readonly done: Promise<Run>;
  /** stderr so far. */
  stderr(): string;
  stdout(): string;
}

export interface Harness {
  readonly world: GroveWorld;
  readonly server: FakeModelServer;
  readonly repo: string;
  readonly env: Record<string, string>;
  /** Runs `node dist/grove.js ...args` to the end. */
  grove(args: readonly string[], options?: GroveOptions): Promise<Run>;
  /** Starts it and returns at once. */
  start(args: readonly string[], options?: GroveOptions): Running;
  /** Scripts the title and commit-message prompts for one more session turn. */
  utilities(title?: string, commit?: string): void;
  close(): Promise<void>;
}

export interface GroveOptions {
  /** Written to stdin, then closed; `null` leaves stdin open and empty (never a TTY). */
  readonly input?: string | null;
  readonly cwd?: string;
  readonly env?: Record<string, string>;
}

/**
 * A private world with a repository and a fake model server. Given `into`, the
 * harness works in that world and repository instead (with a server of its
 * own), and `close()` leaves the world to its owner.
 */
export async function harness(into?: {
  readonly world: GroveWorld;
  readonly repo: string;
}): Promise<Harness> {
  if (!existsSync(GROVE_BIN))
    throw new Error(`${GROVE_BIN} is missing: run npm run build first (npm test does).`);
  const world = into?.world ?? makeWorld();
  const server = await startFakeModelServer();
  const repo = into?.repo ?? makeRepo(world);
  const env = agentWorldEnv(world, agentEnv(server, world.home));
  const start = (args: readonly string[], options: GroveOptions = {}): Running => {
    const child = spawn(process.execPath, [GROVE_BIN, ...args], {
      cwd: options.cwd ?? repo,
      env: { ...env, ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.stdin.on('error', () => {});
    if (options.input !== null) child.stdin.end(options.input ?? '');
    const done = new Promise<Run>((resolve) =>
      child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })),
    );
    return { child, done, stderr: () => stderr, stdout: () => stdout };
  };
  return {
    world,
    server,
    repo,
    env,
    start,
    grove: (args, options) => start(args, options).done,
    utilities(
      title = 'Add a greeting file',
      commit = 'Add the greeting\n\nCreates the greeting file.',
    ) {
      const steps: Scripted[] = [
        { when: 'Write a title for a coding task', text: reply(title) },
        { when: 'Write the git commit message for the changes', text: reply(commit) },
      ];
      server.script('anthropic', steps);
    },
    async close() {
      await server.close();
      if (!into) world.cleanup();
    },
  };
}

/**
 * For tests that all start from the same costly state (a session a real
 * `grove run` made, seconds of Claude Code): `make` runs once, in beforeAll,
 * and each test then gets the world back exactly as `make` left it
 * (snapshotWorld: same paths, nothing another test changed) with a fake model
 * server of its own. Call it in a file or describe; read `h` and `made` in the
 * tests.
 */
export function fromSnapshot<T>(make: (h: Harness) => Promise<T>): {
  readonly h: Harness;
  readonly made: T;
} {
  const state = {} as { h: Harness; made: T };
  let base: Harness | undefined;
  let snapshot: ReturnType<typeof snapshotWorld> | undefined;
  beforeAll(async () => {
    base = await harness();
    state.made = await make(base);
    await base.server.close();
    snapshot = snapshotWorld(base.world);
  }, 120_000);
  beforeEach(async () => {
    if (!base || !snapshot) throw new Error('the starting state was not made');
    snapshot.restore();
    state.h = await harness({ world: base.world, repo: base.repo });
  });
  afterEach(async () => {
    await state.h.close();
  });
  afterAll(() => {
    snapshot?.drop();
    base?.world.cleanup();
  });
  return state;
}

/** Waits until `check` holds, polling; fails with `what` after `timeoutMs`. */
export async function until(
  what: string,
  check: () => boolean | Promise<boolean>,
  timeoutMs = 30_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** The id of the session `grove ls --json` lists with `title`, once it is listed. */
export async function sessionIdOf(
  h: Harness,
  title: string,
  env: Record<string, string> = {},
): Promise<string> {
  let id = '';
  await until(
    `the session of "${title}" is listed`,
    async () => {
      const list = ListSchema.parse(JSON.parse((await h.grove(['ls', '--json'], { env })).stdout));
      id = list.find((s) => s.title === title)?.sessionId ?? '';
      return id !== '';
    },
    60_000,
  );
  return id;
}

/** A session's transcript as `grove show --json` gives it: an entry a line, `kind: content`. */
export async function transcriptOf(
  h: Harness,
  sessionId: string,
  env: Record<string, string> = {},
): Promise<string[]> {
  const shown = ShowSchema.parse(
    JSON.parse((await h.grove(['show', sessionId, '--json'], { env })).stdout),
  );
  return shown.transcript.map((e) => `${e.kind}: ${e.content}`);
}

/** A run's output, for failure messages. */
export function show(run: Run): string {
  return `exit ${String(run.code)} (signal ${String(run.signal)})\n--- stdout\n${run.stdout}\n--- stderr\n${run.stderr}`;
}

export function expectExit(run: Run, code: number): void {
  expect(run.code, show(run)).toBe(code);
}
