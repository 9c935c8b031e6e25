import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterEach, beforeAll, beforeEach } from 'vitest';
import { openInfra, type Infra } from '../../src/compose.js';
import type { Session } from '../../src/domain/session.js';
import { startGroveApp, type GroveApp } from './grove-app.js';
import { processesWithEnv } from './processes.js';
import { bundleWorkerDriver, makeWorkerWorld } from './worker-world.js';

// The world of the session worker tests (test/integration/worker*.test.ts):
// Grove's app core in this process on a real SQLite file and real git
// repositories, with a fake `claude` first on PATH that replays a recorded
// real Claude Code stream (test/fixtures/fake-claude). Prompt markers steer
// the fake. What a test reads (repo, control, env, DRIVER) is exported as
// live bindings, set before each test (each system test file runs in its own
// process).

export const WAIT = { timeout: 30_000, interval: 25 };

let dir: string;
export let repo: string;
/** The fake's control folder (calls.jsonl, hang-*, release-*). */
export let control: string;
export let env: Record<string, string>;
/** The bundled worker driver (test/helpers/worker-driver.ts): another Grove process. */
export let DRIVER: string;
const opened: { infra: Infra; grove: GroveApp }[] = [];
/** Processes a test started; killed after it. */
export const children: ChildProcess[] = [];

/**
 * Registers the file's hooks: the worker driver is bundled once; each test
 * gets its own world (repository, GROVE_HOME, the fake's control folder);
 * after it, the Groves it opened are shut down and its processes killed.
 */
export function setUpWorkerWorld(): void {
  beforeAll(async () => {
    const bundled = await bundleWorkerDriver('worker');
    DRIVER = bundled.driver;
    return bundled.remove;
  });

  beforeEach(() => {
    ({ dir, repo, control, env } = makeWorkerWorld('worker'));
  });

  afterEach(async () => {
    for (const { infra, grove } of opened.splice(0)) {
      await grove.controller.shutdown();
      await grove.controller.turns.settled();
      await infra.db.close();
    }
    for (const child of children.splice(0)) child.kill('SIGKILL');
    // Agents left behind on purpose (a killed Grove's agent keeps running).
    for (const { pid } of hangingAgents()) killGroup(pid);
    rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
  });
}

export async function startGrove(): Promise<GroveApp & { infra: Infra }> {
  const infra = openInfra(env);
  const grove = await startGroveApp(infra, repo);
  opened.push({ infra, grove });
  return { ...grove, infra };
}

export async function newSession(grove: GroveApp & { infra: Infra }): Promise<Session> {
  const session = await grove.controller.sessions.create(
    grove.project.id,
    { agent: 'claude', model: 'sonnet', reasoning: 'high' },
    grove.app.state.settings,
  );
  grove.app.emit({ type: 'sessionUpdated', session });
  await grove.controller.sessions.whenReady(session.id);
  return session;
}

export interface OperationRow {
  readonly id: string;
  readonly kind: string;
  readonly status: string;
  readonly owner: string | null;
  readonly payload: string;
  readonly last_error: string | null;
  readonly queued_at: number;
  readonly started_at: number | null;
  readonly finished_at: number | null;
}

/** Every operation of a session, oldest first, straight from SQLite. */
export async function operations(infra: Infra, sessionId: string): Promise<OperationRow[]> {
  return infra.db.kysely
    .selectFrom('session_operation')
    .selectAll()
    .where('session_id', '=', sessionId)
    .orderBy('queued_at')
    .orderBy(sql`rowid`)
    .execute();
}

export async function promptOperations(infra: Infra, sessionId: string): Promise<OperationRow[]> {
  const rows = await operations(infra, sessionId);
  return rows.filter((row) => row.kind === 'start_prompt' || row.kind === 'reply');
}

export function promptOf(row: OperationRow): string {
  return (JSON.parse(row.payload) as { prompt?: string }).prompt ?? '';
}

export interface Call {
  readonly pid: number;
  readonly utility: boolean;
  readonly prompt: string;
  readonly cwd: string;
}

/** Session turns the fake CLI has seen, in order. */
export function sessionCalls(): Call[] {
  const file = join(control, 'calls.jsonl');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Call)
    .filter((call) => !call.utility);
}

/**
 * The fake agents hanging on `[[hang]]`, as pids of this machine. The fake runs in Grove's
 * sandbox, in its own pid namespace, so the pids it records are not ours: it is found by
 * its environment and its `sleep` child instead.
 */
export function hangingAgents(): { pid: number; child: number }[] {
  if (!existsSync(control) || !readdirSync(control).some((f) => f.startsWith('hang-'))) return [];
  const ours = processesWithEnv(`CLAUDE_FAKE_DIR=${control}`);
  return ours.flatMap((agent) => {
    const child = ours.find((p) => p.ppid === agent.pid && p.cmdline.startsWith('sleep 600'));
    return agent.cmdline.includes('fake-claude.mjs') && child
      ? [{ pid: agent.pid, child: child.pid }]
      : [];
  });
}

export function release(name: string): void {
  writeFileSync(join(control, `release-${name}`), '');
}

/** True once the process is gone (a zombie nobody reaps counts as gone). */
export function isGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return true;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}

export function killGroup(pid: number): void {
  for (const target of [-pid, pid]) {
    try {
      process.kill(target, 'SIGKILL');
    } catch {
      // Already gone (or not a group leader).
    }
  }
}

/** The transcript without the agent's tool-call lines (agents-fidelity.test.ts covers those). */
export async function transcript(
  infra: Infra,
  sessionId: string,
): Promise<{ kind: string; content: string }[]> {
  return (await infra.store.transcript.list(sessionId))
    .filter((e) => e.kind !== 'tool')
    .map(({ kind, content }) => ({ kind, content }));
}

export async function status(infra: Infra, sessionId: string): Promise<string | undefined> {
  return (await infra.store.sessions.get(sessionId))?.status;
}
