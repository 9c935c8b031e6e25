import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type GroveDb } from '../../src/infra/db/database.js';
import { createStore, type Store } from '../../src/infra/db/store.js';
import { withTransaction } from '../../src/infra/db/executor.js';

// A full disk, for real: SQLite's max_page_count makes the database refuse
// to grow, which fails writes with the same SQLITE_FULL error a full disk gives.

const MIGRATIONS = fileURLToPath(new URL('../../migrations/', import.meta.url));
const T0 = 1_700_000_000_000;

let dir: string;
let db: GroveDb;
let store: Store;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'grove-db-full-'));
  db = openDatabase(join(dir, 'grove.db'), MIGRATIONS);
  store = createStore(db.kysely);
  const project = await store.projects.upsert('/repo', 'repo', T0);
  await store.sessions.insert({
    id: 's1',
    projectId: project.id,
    title: 's1',
    status: 'Draft',
    baseBranch: 'main',
    branch: 'grove/s1',
    worktreePath: '/wt/s1',
    agent: 'claude',
    model: 'sonnet',
    reasoning: 'high',
    createdAt: T0,
  });
});

afterEach(async () => {
  await db.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The database may not grow by a single page from here on. */
function fillDisk(): void {
  const pages = db.sqlite.pragma('page_count', { simple: true }) as number;
  db.sqlite.pragma(`max_page_count = ${pages}`);
}

async function failure(work: () => Promise<unknown>): Promise<Error> {
  try {
    await work();
  } catch (error) {
    if (error instanceof Error) return error;
    throw error;
  }
  throw new Error('the write succeeded');
}

describe('a full disk', () => {
  it('a transaction that fails on a full disk reports the full disk, not the failed rollback', async () => {
    fillDisk();

    const error = await failure(() =>
      store.transaction(async (tx) => {
        await tx.sessions.update('s1', { title: 'written first' }, T0);
        await tx.sessions.update('s1', { commitMessage: 'x'.repeat(200_000) }, T0);
      }),
    );

    expect(error.message).toMatch(/disk is full/);
    expect(error.message).not.toMatch(/rollback/);
  });

  it('withTransaction reports the full disk too', async () => {
    fillDisk();

    const error = await failure(() =>
      withTransaction(db.kysely, async (trx) => {
        await createStore(trx).sessions.update('s1', { title: 'written first' }, T0);
        await createStore(trx).sessions.update('s1', { commitMessage: 'y'.repeat(200_000) }, T0);
      }),
    );

    expect(error.message).toMatch(/disk is full/);
  });

  it('a failed transaction leaves nothing half written', async () => {
    fillDisk();

    await failure(() =>
      store.transaction(async (tx) => {
        await tx.sessions.update('s1', { title: 'written first' }, T0);
        await tx.sessions.update('s1', { commitMessage: 'x'.repeat(200_000) }, T0);
      }),
    );

    expect((await store.sessions.get('s1'))?.title).toBe('s1');
  });
});
