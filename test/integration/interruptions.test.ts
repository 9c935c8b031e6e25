import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { openInfra, type Infra } from '../../src/compose.js';
import { INTERRUPTED_BY_RESTART } from '../../src/domain/operation.js';
import { DRIVER_GONE_NOTICE, INTERRUPTED_NOTICE } from '../../src/app/services/recovery.js';
import type { Session } from '../../src/domain/session.js';
import { startGroveApp, type GroveApp } from '../helpers/grove-app.js';
import { bundleWorkerDriver, git, makeWorkerWorld } from '../helpers/worker-world.js';

// Interruptions a person runs into, on a real SQLite file and real git
// repositories, with a fake `claude` first on PATH that replays a recorded
// real Claude Code stream (test/fixtures/fake-claude; prompt markers steer
// it). A second Grove process is the bundled test/helpers/worker-driver.ts.

const WAIT = { timeout: 30_000, interval: 25 };

let dir: string;
let repo: string;
let control: string;
let env: Record<string, string>;
let DRIVER: string;
const opened: { infra: Infra; grove: GroveApp }[] = [];
const children: ChildProcess[] = [];

beforeAll(async () => {
  const bundled = await bundleWorkerDriver('interruptions');
  DRIVER = bundled.driver;
  return bundled.remove;
});

beforeEach(() => {
  ({ dir, repo, control, env } = makeWorkerWorld('interrupt'));
});

afterEach(async () => {
  for (const { infra, grove } of opened.splice(0)) {
    await grove.controller.shutdown();
    await grove.controller.turns.settled();
    await infra.db.close();
  }
  // Agents die with the Grove that started them (and the pids they record are the sandbox's own).
  for (const child of children.splice(0)) child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
});

async function startGrove(): Promise<GroveApp & { infra: Infra }> {
  const infra = openInfra(env);
  const grove = await startGroveApp(infra, repo);
  opened.push({ infra, grove });
  return { ...grove, infra };
}

/** Grove as the TUI runs it: with its background work (lease watch, refresh, queued prompts). */
async function startTui(): Promise<GroveApp & { infra: Infra }> {
  const grove = await startGrove();
  grove.controller.start();
  return grove;
}

async function newSession(grove: GroveApp & { infra: Infra }): Promise<Session> {
  const session = await grove.controller.sessions.create(
    grove.project.id,
    { agent: 'claude', model: 'sonnet', reasoning: 'high' },
    grove.app.state.settings,
  );
  grove.app.emit({ type: 'sessionUpdated', session });
  await grove.controller.sessions.whenReady(session.id);
  return session;
}

interface OperationRow {
  readonly kind: string;
  readonly status: string;
  readonly payload: string;
  readonly last_error: string | null;
}

async function promptOperations(infra: Infra, sessionId: string): Promise<OperationRow[]> {
  const rows = await infra.db.kysely
    .selectFrom('session_operation')
    .selectAll()
    .where('session_id', '=', sessionId)
    .orderBy('queued_at')
    .orderBy(sql`rowid`)
    .execute();
  return rows.filter((row) => row.kind === 'start_prompt' || row.kind === 'reply');
}

function promptOf(row: OperationRow): string {
  return (JSON.parse(row.payload) as { prompt?: string }).prompt ?? '';
}

/** Session turns the fake CLI has seen, in order (not `claude --version` nor the one-off title and commit-message prompts). */
function sessionCalls(): { prompt: string; cwd: string }[] {
  const file = join(control, 'calls.jsonl');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { prompt: string; cwd: string; utility: boolean })
    .filter(
      (call) =>
        !call.utility &&
        call.prompt !== '' &&
        !/Write a title for a coding task|Write the git commit message/.test(call.prompt),
    );
}

/** The first word of the task in a session turn's prompt (after Grove's instructions). */
function task(prompt: string): string {
  return /^(first|follow-up|one|two|work|again) /m.exec(prompt)?.[1] ?? prompt.slice(0, 20);
}

/** Agents that have reached a [[hang]] marker. */
function hangingAgents(): string[] {
  if (!existsSync(control)) return [];
  return readdirSync(control).filter((f) => f.startsWith('hang-'));
}

/** Another Grove process that sends `prompts` to the session (the later ones queue) and keeps running. */
async function otherGrove(
  sessionId: string,
  ...prompts: string[]
): Promise<ChildProcess & { pid: number }> {
  const child = spawn(process.execPath, [DRIVER, repo, sessionId, ...prompts], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  await vi.waitFor(() => expect(out).toContain('submitted\n'), WAIT);
  if (child.pid === undefined) throw new Error('no pid');
  return child as ChildProcess & { pid: number };
}

/** kill -9. */
async function killHard(child: ChildProcess): Promise<void> {
  const exited = new Promise((done) => child.once('exit', done));
  child.kill('SIGKILL');
  await exited;
}

async function transcript(
  infra: Infra,
  sessionId: string,
): Promise<{ kind: string; content: string }[]> {
  return (await infra.store.transcript.list(sessionId)).map(({ kind, content }) => ({
    kind,
    content,
  }));
}

async function notices(infra: Infra, sessionId: string): Promise<string[]> {
  return (await transcript(infra, sessionId))
    .filter((e) => e.kind === 'notice')
    .map((e) => e.content);
}

async function status(infra: Infra, sessionId: string): Promise<string | undefined> {
  return (await infra.store.sessions.get(sessionId))?.status;
}

/** One session, created by a Grove that then stops working on it; `otherGrove` drives it. */
async function sessionForOthers(): Promise<{ session: Session; infra: Infra }> {
  const first = await startGrove();
  const session = await newSession(first);
  await first.controller.shutdown();
  return { session, infra: first.infra };
}

describe('a Grove process that dies while another one runs', () => {
  it('the running one notices the dead driver of a turn and brings the session back to Review with a notice', async () => {
    const tui = await startTui();
    const session = await newSession(tui);
    const driver = await otherGrove(session.id, 'work [[hang]]');
    await vi.waitFor(() => expect(hangingAgents().length).toBeGreaterThan(0), WAIT);
    await vi.waitFor(
      () =>
        expect(tui.app.state.sessions.find((s) => s.id === session.id)?.status).toBe('InProgress'),
      WAIT,
    );

    await killHard(driver);

    await vi.waitFor(
      () => expect(tui.app.state.sessions.find((s) => s.id === session.id)?.status).toBe('Review'),
      WAIT,
    );
    expect(await status(tui.infra, session.id)).toBe('Review');
    expect(
      (await promptOperations(tui.infra, session.id)).map((op) => [op.status, op.last_error]),
    ).toEqual([['failed', INTERRUPTED_BY_RESTART]]);
    expect(await notices(tui.infra, session.id)).toContain(DRIVER_GONE_NOTICE);
    expect(tui.app.state.progress[session.id]).toBeUndefined();
    // The session takes the next prompt here.
    expect(await tui.controller.submitPrompt(session.id, 'again [[answer:Back]]')).toBeNull();
    await vi.waitFor(
      async () =>
        expect((await promptOperations(tui.infra, session.id)).map((op) => op.status)).toEqual([
          'failed',
          'done',
        ]),
      WAIT,
    );
  });

  it('Ctrl+C on a turn whose driver died recovers the session at once', async () => {
    const grove = await startGrove();
    const session = await newSession(grove);
    const driver = await otherGrove(session.id, 'work [[hang]]');
    await vi.waitFor(() => expect(hangingAgents().length).toBeGreaterThan(0), WAIT);
    await killHard(driver);

    grove.controller.stop(session.id);

    await vi.waitFor(
      () =>
        expect(grove.app.state.notice?.text).toBe(
          'The Grove process running this turn is gone; the session is back in Review.',
        ),
      WAIT,
    );
    expect(await status(grove.infra, session.id)).toBe('Review');
  });
});

describe('queued follow-ups', () => {
  it('a follow-up queued behind a running turn survives kill -9 of its Grove and runs after the restart', async () => {
    const { session, infra } = await sessionForOthers();
    const driver = await otherGrove(
      session.id,
      'first [[hang]]',
      'follow-up [[answer:The follow-up ran]]',
    );
    await vi.waitFor(() => expect(hangingAgents().length).toBeGreaterThan(0), WAIT);
    expect((await promptOperations(infra, session.id)).map((op) => op.status)).toEqual([
      'running',
      'queued',
    ]);

    await killHard(driver);
    const restarted = await startTui();

    await vi.waitFor(
      async () =>
        expect(
          (await promptOperations(restarted.infra, session.id)).map((op) => [
            promptOf(op).split(' ')[0],
            op.status,
          ]),
        ).toEqual([
          ['first', 'failed'],
          ['follow-up', 'done'],
        ]),
      WAIT,
    );
    await restarted.controller.workers.idle(session.id);
    const entries = await transcript(restarted.infra, session.id);
    expect(entries.filter((e) => e.kind === 'assistant_answer').map((e) => e.content)).toEqual([
      'The follow-up ran',
    ]);
    expect(entries.filter((e) => e.kind === 'notice').map((e) => e.content)).toEqual(
      expect.arrayContaining([
        INTERRUPTED_NOTICE,
        expect.stringMatching(/^\[Queued\] 1 prompt was still queued/),
      ]),
    );
    expect(sessionCalls().map((call) => task(call.prompt))).toEqual(['first', 'follow-up']);
    expect(await status(restarted.infra, session.id)).toBe('Review');
  });
});

describe("a worktree deleted behind Grove's back", () => {
  it('is recreated from the session branch before the next turn, which then runs in it', async () => {
    const grove = await startGrove();
    const session = await newSession(grove);
    await grove.controller.submitPrompt(session.id, 'one [[file:a.txt]] [[answer:A1]]');
    await vi.waitFor(
      async () => expect((await promptOperations(grove.infra, session.id))[0]?.status).toBe('done'),
      WAIT,
    );
    await grove.controller.workers.idle(session.id);
    rmSync(session.worktreePath, { recursive: true, force: true });

    await grove.controller.submitPrompt(session.id, 'two [[answer:A2]]');

    await vi.waitFor(
      async () =>
        expect((await promptOperations(grove.infra, session.id)).map((op) => op.status)).toEqual([
          'done',
          'done',
        ]),
      WAIT,
    );
    await grove.controller.workers.idle(session.id);
    expect(readFileSync(join(session.worktreePath, 'a.txt'), 'utf8')).toBe(
      'written by fake claude\n',
    );
    expect(git(session.worktreePath, 'rev-parse', '--abbrev-ref', 'HEAD')).toBe(session.branch);
    expect(sessionCalls().at(-1)?.cwd).toBe(session.worktreePath);
    const all = await notices(grove.infra, session.id);
    expect(
      all.some((n) =>
        n.startsWith(
          `[Worktree] ${session.worktreePath} was deleted outside Grove; it was recreated from the branch ${session.branch}.`,
        ),
      ),
    ).toBe(true);
    expect(all.join('\n')).not.toMatch(/not installed/);
  });

  it('is recreated when its diff is opened', async () => {
    const grove = await startGrove();
    const session = await newSession(grove);
    await grove.controller.submitPrompt(session.id, 'one [[file:a.txt]] [[answer:A1]]');
    await vi.waitFor(
      async () => expect((await promptOperations(grove.infra, session.id))[0]?.status).toBe('done'),
      WAIT,
    );
    await grove.controller.workers.idle(session.id);
    rmSync(session.worktreePath, { recursive: true, force: true });

    grove.controller.openDiff(session.id);

    await vi.waitFor(() => expect(grove.app.state.diff?.loading).toBe(false), WAIT);
    expect(grove.app.state.diff?.error).toBeNull();
    expect(grove.app.state.diff?.files.map((f) => f.path)).toEqual(['a.txt']);
    expect(existsSync(join(session.worktreePath, 'a.txt'))).toBe(true);
  });

  it('whose branch is gone too fails the turn in words, giving the prompt back, never as a missing agent', async () => {
    const grove = await startGrove();
    const session = await newSession(grove);
    rmSync(session.worktreePath, { recursive: true, force: true });
    git(repo, 'worktree', 'prune');
    git(repo, 'branch', '-D', session.branch);

    await grove.controller.submitPrompt(session.id, 'lost [[answer:never]]');

    await vi.waitFor(
      async () =>
        expect((await promptOperations(grove.infra, session.id))[0]?.status).toBe('failed'),
      WAIT,
    );
    const [op] = await promptOperations(grove.infra, session.id);
    expect(op?.last_error).toMatch(
      /^The worktree .* was deleted, and the session's branch grove\/\w+ is gone too, so it cannot be recreated\./,
    );
    const error = (await notices(grove.infra, session.id)).find((n) => n.startsWith('[Error] '));
    expect(error).toContain('This prompt was not sent:\nlost [[answer:never]]');
    expect(error).not.toMatch(/not installed/);
    expect(sessionCalls()).toEqual([]);
  });
});

describe('a full disk', () => {
  it('fails the turn with "disk is full" in words and the session leaves InProgress', async () => {
    const grove = await startGrove();
    const session = await newSession(grove);
    const answer = 'x'.repeat(20_000);
    await grove.controller.submitPrompt(session.id, `work [[wait:full]] [[answer:${answer}]]`);
    await vi.waitFor(() => expect(sessionCalls()).toHaveLength(1), WAIT);
    await vi.waitFor(
      async () => expect(await status(grove.infra, session.id)).toBe('InProgress'),
      WAIT,
    );

    // The database may not grow any more, as on a full disk (SQLITE_FULL):
    // no page beyond the current ones, and the free ones used up.
    const sqlite = grove.infra.db.sqlite;
    sqlite.pragma(`max_page_count = ${String(sqlite.pragma('page_count', { simple: true }))}`);
    for (let i = 0; ; i++) {
      try {
        sqlite
          .prepare('INSERT INTO setting (name, value) VALUES (?, ?)')
          .run(`filler-${i}`, 'f'.repeat(3000));
      } catch {
        break;
      }
    }
    writeFileSync(join(control, 'release-full'), '');

    await vi.waitFor(
      () =>
        expect(grove.app.state.sessions.find((s) => s.id === session.id)?.status).toBe('Review'),
      WAIT,
    );
    await grove.controller.workers.idle(session.id);
    expect(grove.app.state.notice?.text).toMatch(
      /^Grove could not save this turn: the disk is full \(database or disk is full\)\. Free some space, then reply to try again/,
    );

    // With room again, a reply works and is stored.
    sqlite.pragma('max_page_count = 1073741823');
    await grove.controller.submitPrompt(session.id, 'again [[answer:Saved]]');
    await vi.waitFor(
      async () =>
        expect(
          (await transcript(grove.infra, session.id))
            .filter((e) => e.kind === 'assistant_answer')
            .map((e) => e.content),
        ).toEqual(['Saved']),
      WAIT,
    );
    await grove.controller.workers.idle(session.id);
    expect(await status(grove.infra, session.id)).toBe('Review');
  });
});
