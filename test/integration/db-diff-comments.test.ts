import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type GroveDb } from '../../src/infra/db/database.js';
import { createStore, type Store } from '../../src/infra/db/store.js';

// The inline diff comments repository on a real SQLite file with the real
// migrations: drafts survive a restart, status moves, and a deleted session
// takes its comments with it.

const MIGRATIONS = fileURLToPath(new URL('../../migrations/', import.meta.url));
const T0 = 1_700_000_000_000;

let dir: string;
let file: string;
let db: GroveDb;
let store: Store;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'grove-db-comments-'));
  file = join(dir, 'grove.db');
  db = openDatabase(file, MIGRATIONS);
  store = createStore(db.kysely);
  const project = await store.projects.upsert('/src/app', 'app', T0);
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

const rangeComment = {
  sessionId: 's1',
  path: 'src/a.ts',
  side: 'new' as const,
  startLine: 3,
  endLine: 5,
  body: 'Use a **map** here.',
  excerpt: '+a\n+b\n+c',
  hunk: '@@ -1,2 +1,5 @@\n x\n+a\n+b\n+c',
};

describe('diff comments repository', () => {
  it('keeps draft comments across a restart, in the order they were written', async () => {
    const first = await store.diffComments.insert(rangeComment, T0);
    const second = await store.diffComments.insert(
      {
        sessionId: 's1',
        path: 'README.md',
        side: 'file',
        startLine: 7,
        endLine: 9,
        body: 'Document it.',
        severity: 'high',
        origin: 'review',
      },
      T0,
    );

    await db.close();
    db = openDatabase(file, MIGRATIONS);
    store = createStore(db.kysely);

    const listed = await store.diffComments.listBySession('s1');
    expect(listed.map((c) => c.id)).toEqual([first.id, second.id]);
    expect(listed[0]).toEqual({
      id: first.id,
      ...rangeComment,
      severity: null,
      origin: 'person',
      status: 'draft',
      createdAt: T0,
      updatedAt: T0,
    });
    // A whole-file comment has no lines, whatever it was given.
    expect(listed[1]).toMatchObject({
      side: 'file',
      startLine: null,
      endLine: null,
      severity: 'high',
      origin: 'review',
      excerpt: '',
      hunk: '',
    });
  });

  it('edits the text of a comment and records when', async () => {
    const stored = await store.diffComments.insert(rangeComment, T0);

    const edited = await store.diffComments.update(stored.id, { body: 'Use a Map.' }, T0 + 10);

    expect(edited).toMatchObject({
      body: 'Use a Map.',
      excerpt: '+a\n+b\n+c',
      updatedAt: T0 + 10,
      createdAt: T0,
    });
  });

  it('moves several comments to a status at once', async () => {
    const a = await store.diffComments.insert(rangeComment, T0);
    const b = await store.diffComments.insert(rangeComment, T0);
    const c = await store.diffComments.insert(rangeComment, T0);

    await store.diffComments.setStatus([a.id, c.id], 'sent', T0 + 1);

    const statuses = (await store.diffComments.listBySession('s1')).map((x) => [x.id, x.status]);
    expect(statuses).toEqual([
      [a.id, 'sent'],
      [b.id, 'draft'],
      [c.id, 'sent'],
    ]);
  });

  it('deletes one comment', async () => {
    const a = await store.diffComments.insert(rangeComment, T0);
    const b = await store.diffComments.insert(rangeComment, T0);

    await store.diffComments.delete(a.id);

    expect((await store.diffComments.listBySession('s1')).map((x) => x.id)).toEqual([b.id]);
  });

  it('drops the comments of a deleted session', async () => {
    await store.diffComments.insert(rangeComment, T0);

    await store.sessions.delete('s1');

    expect(await store.diffComments.listBySession('s1')).toEqual([]);
  });

  it('refuses a status the schema does not know', async () => {
    const a = await store.diffComments.insert(rangeComment, T0);
    // @ts-expect-error -- the type allows only the four statuses; the table checks too.
    await expect(store.diffComments.setStatus([a.id], 'resolved', T0)).rejects.toThrow(
      /CHECK constraint failed/,
    );
  });
});
