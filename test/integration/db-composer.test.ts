import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type GroveDb } from '../../src/infra/db/database.js';
import { createStore, type Store } from '../../src/infra/db/store.js';

// The composer's memory in a real SQLite file: prompt history per project, drafts per session.

const MIGRATIONS = fileURLToPath(new URL('../../migrations/', import.meta.url));
const T0 = 1_700_000_000_000;

let dir: string;
let db: GroveDb;
let store: Store;
let projectId: number;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'grove-db-composer-'));
  db = openDatabase(join(dir, 'grove.db'), MIGRATIONS);
  store = createStore(db.kysely);
  projectId = (await store.projects.upsert('/repo/a', 'a', T0)).id;
});

afterEach(async () => {
  await db.close();
  rmSync(dir, { recursive: true, force: true });
});

async function addSession(id: string, project: number): Promise<void> {
  await store.sessions.insert({
    id,
    projectId: project,
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
}

describe('the prompt history', () => {
  it("lists a project's prompts oldest first, without a repeat of the newest", async () => {
    for (const text of ['one', 'two', 'two', 'three'])
      await store.composer.addPrompt(projectId, text, T0, 100);
    expect(await store.composer.listPrompts(projectId, 10)).toEqual(['one', 'two', 'three']);
  });

  it('keeps only the newest prompts', async () => {
    for (let i = 0; i < 6; i++) await store.composer.addPrompt(projectId, `p${i}`, T0, 4);
    expect(await store.composer.listPrompts(projectId, 10)).toEqual(['p2', 'p3', 'p4', 'p5']);
  });

  it('keeps projects apart', async () => {
    const other = (await store.projects.upsert('/repo/b', 'b', T0)).id;
    await store.composer.addPrompt(projectId, 'in a', T0, 100);
    await store.composer.addPrompt(other, 'in b', T0, 100);
    expect(await store.composer.listPrompts(other, 10)).toEqual(['in b']);
  });
});

describe('drafts', () => {
  it("stores, replaces and lists the drafts of a project's sessions", async () => {
    await addSession('s1', projectId);
    await store.composer.saveDraft('s1', 'first', T0);
    await store.composer.saveDraft('s1', 'second', T0 + 1);
    expect(await store.composer.listDrafts(projectId)).toEqual({ s1: 'second' });
  });

  it('drops a draft saved empty', async () => {
    await addSession('s1', projectId);
    await store.composer.saveDraft('s1', 'first', T0);
    await store.composer.saveDraft('s1', '  ', T0);
    expect(await store.composer.listDrafts(projectId)).toEqual({});
  });
});
