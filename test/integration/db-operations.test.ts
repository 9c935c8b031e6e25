import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type GroveDb } from '../../src/infra/db/database.js';
import { LEASE_MS } from '../../src/infra/db/operation-repo.js';
import { createStore, type Store } from '../../src/infra/db/store.js';
import { INTERRUPTED_BY_RESTART } from '../../src/domain/operation.js';
import type { SessionStatus } from '../../src/domain/session-status.js';

const MIGRATIONS = fileURLToPath(new URL('../../migrations/', import.meta.url));
const T0 = 1_700_000_000_000;

let dir: string;
let file: string;
let db: GroveDb;
let store: Store;
let projectId: number;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'grove-db-ops-'));
  file = join(dir, 'grove.db');
  db = openDatabase(file, MIGRATIONS);
  store = createStore(db.kysely);
  projectId = (await store.projects.upsert('/repo', 'repo', T0)).id;
  await addSession('s1');
});

afterEach(async () => {
  await db.close();
  rmSync(dir, { recursive: true, force: true });
});

async function addSession(id: string, path: readonly SessionStatus[] = []): Promise<void> {
  await store.sessions.insert({
    id,
    projectId,
    title: id,
    status: 'Draft',
    baseBranch: 'main',
    branch: `grove/${id}`,
    worktreePath: `/wt/${id}`,
    agent: 'claude',
    model: 'sonnet',
    reasoning: 'high',
    createdAt: T0,
  });
  let at = T0;
  for (const status of path) await store.sessions.setStatus(id, status, (at += 10_000));
}

describe('operations repository', () => {
  it('stores a queued operation with its payload', async () => {
    const id = await store.operations.enqueue('s1', 'reply', { prompt: 'add tests' }, T0);

    const [op] = await store.operations.listUnfinished('s1');

    expect(op).toEqual({
      id,
      sessionId: 's1',
      kind: 'reply',
      status: 'queued',
      payload: { prompt: 'add tests' },
      cancelRequested: false,
      owner: null,
      queuedAt: T0,
      startedAt: null,
      heartbeatAt: null,
      finishedAt: null,
      lastError: null,
      notBefore: null,
      waitAgent: null,
      remoteRun: null,
    });
  });

  it('claims operations oldest first, in insertion order when queued in the same millisecond', async () => {
    const first = await store.operations.enqueue('s1', 'start_prompt', { n: 1 }, T0);
    const second = await store.operations.enqueue('s1', 'reply', { n: 2 }, T0);
    const third = await store.operations.enqueue('s1', 'reply', { n: 3 }, T0);

    const claimed = [];
    for (let i = 0; i < 3; i += 1)
      claimed.push(await store.operations.claimNext('s1', 'host:1', T0 + 1));

    expect(claimed.map((op) => op?.id)).toEqual([first, second, third]);
    expect(claimed[0]).toMatchObject({ status: 'running', owner: 'host:1', startedAt: T0 + 1 });
  });

  it('claims only the given session’s operations and nothing when none is queued', async () => {
    await addSession('s2');
    await store.operations.enqueue('s2', 'reply', {}, T0);

    expect(await store.operations.claimNext('s1', 'host:1', T0)).toBeUndefined();
  });

  it('never hands one operation to two claimers, even over two connections', async () => {
    const ids = new Set<string>();
    for (let i = 0; i < 20; i += 1)
      ids.add(await store.operations.enqueue('s1', 'reply', { i }, T0 + i));
    const other = openDatabase(file, MIGRATIONS);
    const otherStore = createStore(other.kysely);

    const claims = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        (i % 2 === 0 ? store : otherStore).operations.claimNext('s1', 'host:1', T0 + 100),
      ),
    );
    await other.close();

    const claimed = claims.flatMap((op) => (op ? [op.id] : []));
    expect(claimed).toHaveLength(20);
    expect(new Set(claimed)).toEqual(ids);
  });

  it('lets no second process drive a session while the first holds a live lease', async () => {
    await store.operations.enqueue('s1', 'reply', {}, T0);
    await store.operations.enqueue('s1', 'reply', {}, T0 + 1);
    const first = await store.operations.claimNext('s1', 'host:tui', T0 + 10);

    expect(first).toBeDefined();
    expect(await store.operations.claimNext('s1', 'host:cli', T0 + 20)).toBeUndefined();
    expect(await store.operations.heartbeat(first?.id ?? '', 'host:tui', T0 + 20_000)).toBe(true);
    expect(await store.operations.claimNext('s1', 'host:cli', T0 + 40_000)).toBeUndefined();
    expect(
      (await store.operations.claimNext('s1', 'host:cli', T0 + 20_000 + LEASE_MS + 1))?.owner,
    ).toBe('host:cli');
  });

  it('finishes an operation once and records the error', async () => {
    const id = await store.operations.enqueue('s1', 'merge', {}, T0);
    await store.operations.claimNext('s1', 'host:1', T0);

    await store.operations.finish(id, 'failed', 'conflict in a.txt', T0 + 5);
    await store.operations.finish(id, 'done', null, T0 + 6);

    const row = db.sqlite
      .prepare('SELECT status, last_error, finished_at FROM session_operation WHERE id = ?')
      .get(id);
    expect(row).toEqual({ status: 'failed', last_error: 'conflict in a.txt', finished_at: T0 + 5 });
    expect(await store.operations.listUnfinished('s1')).toEqual([]);
  });

  it('renews the lease only for the owner of a running operation', async () => {
    const id = await store.operations.enqueue('s1', 'reply', {}, T0);
    await store.operations.claimNext('s1', 'host:1', T0);

    expect(await store.operations.heartbeat(id, 'host:1', T0 + 5_000)).toBe(true);
    expect(await store.operations.heartbeat(id, 'host:2', T0 + 5_000)).toBe(false);
  });

  it('keeps the progress line of a running operation for other processes to read', async () => {
    await addSession('s2');
    const a = await store.operations.enqueue('s1', 'reply', { prompt: 'a' }, T0);
    const b = await store.operations.enqueue('s2', 'reply', { prompt: 'b' }, T0);
    await store.operations.claimNext('s1', 'cli:1', T0);
    await store.operations.claimNext('s2', 'tui:2', T0);
    await store.operations.setProgress(a, 'Editing hello.txt');
    await store.operations.setProgress(b, 'Thinking…');

    // The TUI (tui:2) sees the progress of the turn the command (cli:1) runs, not its own.
    expect(await store.operations.progressElsewhere(projectId, 'tui:2')).toEqual([
      { sessionId: 's1', progress: 'Editing hello.txt' },
    ]);
    expect(await store.operations.progressElsewhere(projectId + 1, 'tui:2')).toEqual([]);

    // A finished operation has no progress to show, and a later write cannot revive it.
    await store.operations.finish(a, 'done', null, T0 + 1);
    await store.operations.setProgress(a, 'late line');
    expect(await store.operations.progressElsewhere(projectId, 'tui:2')).toEqual([]);
  });

  it('persists a cancel request', async () => {
    const id = await store.operations.enqueue('s1', 'reply', {}, T0);
    expect(await store.operations.isCancelRequested(id)).toBe(false);

    await store.operations.requestCancel(id);

    expect(await store.operations.isCancelRequested(id)).toBe(true);
  });

  it('retracts the newest queued operation and leaves the older ones', async () => {
    const older = await store.operations.enqueue('s1', 'reply', { prompt: 'one' }, T0);
    const newer = await store.operations.enqueue('s1', 'reply', { prompt: 'two' }, T0 + 1);

    const retracted = await store.operations.retractNewestQueued('s1', T0 + 2);

    expect(retracted).toMatchObject({ id: newer, status: 'canceled', finishedAt: T0 + 2 });
    expect((await store.operations.listUnfinished('s1')).map((op) => op.id)).toEqual([older]);
  });

  it('retracts only operations of the given kinds', async () => {
    const prompt = await store.operations.enqueue('s1', 'reply', {}, T0);
    await store.operations.enqueue('s1', 'merge', {}, T0 + 1);

    const retracted = await store.operations.retractNewestQueued('s1', T0 + 2, [
      'reply',
      'start_prompt',
    ]);

    expect(retracted?.id).toBe(prompt);
  });

  it('reads the newest finished operation of the given sessions only, through the session index', async () => {
    await addSession('s2');
    for (const [sid, at] of [
      ['s1', T0],
      ['s1', T0 + 10],
      ['s2', T0 + 20],
    ] as const) {
      const id = await store.operations.enqueue(sid, 'reply', { prompt: `at ${at}` }, at);
      await store.operations.claimNext(sid, 'host:1', at);
      await store.operations.finish(id, 'done', null, at + 1);
    }
    const prepared: string[] = [];
    const prepare = db.sqlite.prepare.bind(db.sqlite);
    db.sqlite.prepare = (source: string) => {
      prepared.push(source);
      return prepare(source);
    };

    const newest = await store.operations.newestFinished(['reply'], ['s1']);

    db.sqlite.prepare = prepare;
    expect(newest.map((op) => [op.sessionId, op.payload['prompt']])).toEqual([
      ['s1', `at ${T0 + 10}`],
    ]);
    // The rows are found by session id, not by reading every session's history.
    const statement = prepared.find((source) => source.includes('row_number()')) ?? '';
    const holes = statement.split('?').length - 1;
    const plan = db.sqlite
      .prepare(`EXPLAIN QUERY PLAN ${statement}`)
      .all(...Array.from({ length: holes }, () => 'x')) as { detail: string }[];
    expect(plan.map((step) => step.detail).join('\n')).toMatch(
      /SEARCH session_operation USING INDEX session_operation_session_status_idx \(session_id=\?/,
    );
    expect(await store.operations.newestFinished(['reply'], [])).toEqual([]);
  });

  it('lists unfinished operations of every session oldest first', async () => {
    await addSession('s2');
    const a = await store.operations.enqueue('s2', 'reply', {}, T0);
    const b = await store.operations.enqueue('s1', 'reply', {}, T0 + 1);

    expect((await store.operations.listUnfinished()).map((op) => op.id)).toEqual([a, b]);
  });
});

describe('failInterrupted', () => {
  it('fails the running and queued operations of dead owners (queued prompts excepted) and moves their sessions back to Review', async () => {
    await store.sessions.setStatus('s1', 'InProgress', T0 + 1_000);
    const running = await store.operations.enqueue('s1', 'reply', {}, T0);
    await store.operations.claimNext('s1', 'host:dead', T0 + 1_000);
    const prompt = await store.operations.enqueue(
      's1',
      'reply',
      { prompt: 'next' },
      T0 + 2_000,
      'host:dead',
    );
    const rebase = await store.operations.enqueue('s1', 'rebase', {}, T0 + 3_000, 'host:dead');

    const affected = await store.operations.failInterrupted(
      T0 + 31_000,
      (owner) => owner === 'host:alive',
    );

    expect(affected).toEqual(['s1']);
    const rows = db.sqlite
      .prepare('SELECT id, status, last_error FROM session_operation ORDER BY queued_at')
      .all();
    expect(rows).toEqual([
      { id: running, status: 'failed', last_error: INTERRUPTED_BY_RESTART },
      { id: prompt, status: 'queued', last_error: null },
      { id: rebase, status: 'failed', last_error: INTERRUPTED_BY_RESTART },
    ]);
    expect((await store.sessions.get('s1'))?.status).toBe('Review');
  });

  it("puts a dead owner's running turn on a host back in the queue, its run and offset kept, the session still working", async () => {
    await store.sessions.setStatus('s1', 'InProgress', T0 + 1_000);
    const turn = await store.operations.enqueue('s1', 'reply', { prompt: 'on a host' }, T0);
    await store.operations.claimNext('s1', 'host:dead', T0 + 1_000);
    await store.operations.setRemoteRun(turn, 'r-0123456789abcdef01234567', 4242);
    await store.operations.setRemoteOffset(turn, 900);
    // The offset never moves back (a late write of an older line).
    await store.operations.setRemoteOffset(turn, 300);

    const affected = await store.operations.failInterrupted(T0 + 31_000, () => false);

    expect(affected).toEqual([]);
    const [op] = await store.operations.listUnfinished('s1');
    expect(op).toMatchObject({
      id: turn,
      status: 'queued',
      owner: null,
      remoteRun: { runId: 'r-0123456789abcdef01234567', pgid: 4242, offset: 900 },
    });
    expect((await store.sessions.get('s1'))?.status).toBe('InProgress');
    // The next worker takes it as it would any queued prompt.
    expect((await store.operations.claimNext('s1', 'host:new', T0 + 32_000))?.id).toBe(turn);
  });

  it("stops the timer at the dead owner's last heartbeat, so the time Grove was down is not counted", async () => {
    await store.sessions.setStatus('s1', 'InProgress', T0);
    await store.operations.enqueue('s1', 'reply', {}, T0);
    const [op] = [await store.operations.claimNext('s1', 'host:dead', T0)];
    await store.operations.heartbeat(op?.id ?? '', 'host:dead', T0 + 5_000);

    // Restarted 18 minutes later.
    await store.operations.failInterrupted(T0 + 18 * 60_000, () => false);

    expect(await store.sessions.get('s1')).toMatchObject({
      status: 'Review',
      activeSince: null,
      activeSeconds: 5,
    });
  });

  it("tells the liveness check each running operation's last heartbeat", async () => {
    await store.operations.enqueue('s1', 'reply', {}, T0);
    const op = await store.operations.claimNext('s1', 'far:7', T0);
    await store.operations.heartbeat(op?.id ?? '', 'far:7', T0 + 4_000);
    const asked: [string | null, number | null][] = [];

    await store.operations.failInterrupted(T0 + 60_000, (owner, heartbeatAt) => {
      asked.push([owner, heartbeatAt]);
      return true;
    });

    expect(asked).toEqual([['far:7', T0 + 4_000]]);
  });

  it.each<[readonly SessionStatus[], SessionStatus]>([
    [['InProgress'], 'Review'],
    [['InProgress', 'AgentReview'], 'Review'],
    [['InProgress', 'Rebasing'], 'Review'],
    [['InProgress', 'Review', 'Merging'], 'Review'],
    [['InProgress', 'Review', 'Queued'], 'Review'],
    [['InProgress', 'Question'], 'Question'],
    [['InProgress', 'Review'], 'Review'],
  ])('a session at the end of %j ends in %s', async (path, expected) => {
    await addSession('s2', path);
    await store.operations.enqueue('s2', 'merge', {}, T0);

    await store.operations.failInterrupted(T0 + 100_000, () => false);

    const session = await store.sessions.get('s2');
    expect(session?.status).toBe(expected);
    expect(session?.queuedAt).toBeNull();
  });

  it('leaves the operations and sessions of live owners alone', async () => {
    await store.sessions.setStatus('s1', 'InProgress', T0);
    const id = await store.operations.enqueue('s1', 'reply', {}, T0);
    await store.operations.claimNext('s1', 'host:alive', T0);

    const affected = await store.operations.failInterrupted(
      T0 + 1,
      (owner) => owner === 'host:alive',
    );

    expect(affected).toEqual([]);
    expect((await store.operations.listUnfinished('s1')).map((op) => op.id)).toEqual([id]);
    expect((await store.sessions.get('s1'))?.status).toBe('InProgress');
  });

  it('asks about each owner once', async () => {
    await store.operations.enqueue('s1', 'reply', {}, T0);
    await store.operations.enqueue('s1', 'reply', {}, T0);
    await store.operations.claimNext('s1', 'host:9', T0);
    await store.operations.claimNext('s1', 'host:9', T0);
    const asked: (string | null)[] = [];

    await store.operations.failInterrupted(T0, (owner) => {
      asked.push(owner);
      return false;
    });

    expect(asked).toEqual(['host:9']);
  });
});
