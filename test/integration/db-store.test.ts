import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { InsertQueryNode, type KyselyPlugin } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type GroveDb } from '../../src/infra/db/database.js';
import { createStore, type Store } from '../../src/infra/db/store.js';

const MIGRATIONS = fileURLToPath(new URL('../../migrations/', import.meta.url));
const T0 = 1_700_000_000_000;

let dir: string;
let db: GroveDb;
let store: Store;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'grove-db-store-'));
  db = openDatabase(join(dir, 'grove.db'), MIGRATIONS);
  store = createStore(db.kysely);
});

afterEach(async () => {
  await db.close();
  rmSync(dir, { recursive: true, force: true });
});

async function addSession(id: string, projectId: number, model = 'sonnet'): Promise<void> {
  await store.sessions.insert({
    id,
    projectId,
    title: id,
    status: 'Draft',
    baseBranch: 'main',
    branch: `grove/${id}`,
    worktreePath: `/wt/${id}`,
    agent: 'claude',
    model,
    reasoning: 'high',
    createdAt: T0,
  });
}

describe('projects repository', () => {
  it('registers a path once and updates when it was last opened', async () => {
    const first = await store.projects.upsert('/src/app', 'app', T0);

    const again = await store.projects.upsert('/src/app', 'renamed', T0 + 50);

    expect(again).toEqual({
      id: first.id,
      path: '/src/app',
      displayName: 'app',
      createdAt: T0,
      lastOpenedAt: T0 + 50,
    });
    expect(await store.projects.get(first.id)).toEqual(again);
  });

  it('lists projects most recently opened first', async () => {
    const a = await store.projects.upsert('/a', 'a', T0);
    const b = await store.projects.upsert('/b', 'b', T0 + 1);

    await store.projects.touch(a.id, T0 + 2);

    expect((await store.projects.list()).map((p) => p.id)).toEqual([a.id, b.id]);
  });

  it('returns undefined for an unknown project', async () => {
    expect(await store.projects.get(42)).toBeUndefined();
  });
});

describe('settings repository', () => {
  it('stores and overwrites global settings', async () => {
    await store.settings.setGlobal('git.statusInterval', '30s');
    await store.settings.setGlobal('git.statusInterval', '60s');

    expect(await store.settings.getGlobal('git.statusInterval')).toBe('60s');
    expect(await store.settings.getGlobal('missing')).toBeUndefined();
  });

  it('keeps project settings per project', async () => {
    const a = await store.projects.upsert('/a', 'a', T0);
    const b = await store.projects.upsert('/b', 'b', T0);

    await store.settings.setProject(a.id, 'main.model', 'opus');
    await store.settings.setProject(a.id, 'main.agent', 'claude');
    await store.settings.setProject(b.id, 'main.model', 'gpt-5');
    await store.settings.setProject(a.id, 'main.model', 'sonnet');

    expect(await store.settings.listProject(a.id)).toEqual({
      'main.agent': 'claude',
      'main.model': 'sonnet',
    });
    expect(await store.settings.getProject(b.id, 'main.model')).toBe('gpt-5');
    expect(await store.settings.getProject(b.id, 'main.agent')).toBeUndefined();
  });
});

describe('transcript repository', () => {
  it('numbers entries contiguously from 0 per session, even when appended concurrently', async () => {
    const project = await store.projects.upsert('/a', 'a', T0);
    await addSession('s1', project.id);
    await addSession('s2', project.id);

    const positions = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        store.transcript.append('s1', 'output', `line ${i}`, T0 + i),
      ),
    );
    await store.transcript.append('s2', 'user_prompt', 'other', T0);

    expect([...positions].sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect((await store.transcript.list('s1')).map((e) => e.position)).toEqual([
      0, 1, 2, 3, 4, 5, 6, 7, 8, 9,
    ]);
    expect(await store.transcript.count('s1')).toBe(10);
    expect(await store.transcript.list('s2')).toEqual([
      { position: 0, kind: 'user_prompt', content: 'other', createdAt: T0 },
    ]);
  });
});

describe('usage repository', () => {
  it('adds invocations per session and model and totals them by model', async () => {
    const a = await store.projects.upsert('/a', 'a', T0);
    const b = await store.projects.upsert('/b', 'b', T0);
    await addSession('s1', a.id);
    await addSession('s2', a.id);
    await addSession('s3', b.id);

    await store.usage.add('s1', 'sonnet', 'turn', 100, 10);
    await store.usage.add('s1', 'sonnet', 'turn', 50, 5);
    await store.usage.add('s2', 'sonnet', 'turn', 1, 1);
    await store.usage.add('s2', 'haiku', 'turn', 7, 3);
    await store.usage.add('s3', 'sonnet', 'turn', 1000, 1000);

    expect(await store.usage.totals(a.id)).toEqual([
      { model: 'sonnet', inputTokens: 151, outputTokens: 16, invocationCount: 3, sessionCount: 2 },
      { model: 'haiku', inputTokens: 7, outputTokens: 3, invocationCount: 1, sessionCount: 1 },
    ]);
    expect((await store.usage.totals()).find((t) => t.model === 'sonnet')?.inputTokens).toBe(1151);
  });
});

describe('review requests repository', () => {
  const pr = {
    number: 3,
    url: 'https://github.com/o/r/pull/3',
    state: 'open' as const,
    isDraft: true,
    reviewDecision: null,
    checksSummary: null,
    headBranch: 'grove/s1',
    baseBranch: 'main',
  };

  it('keeps what Grove wrote when a later refresh does not mention it', async () => {
    const project = await store.projects.upsert('/a', 'a', T0);
    await addSession('s1', project.id);
    await store.reviewRequests.upsert('s1', {
      ...pr,
      writtenTitle: 'Title',
      writtenBody: 'Body',
      lastRefreshedAt: T0,
    });

    await store.reviewRequests.upsert('s1', {
      ...pr,
      state: 'merged',
      isDraft: false,
      lastRefreshedAt: T0 + 1,
    });

    expect(await store.reviewRequests.get('s1')).toEqual({
      ...pr,
      sessionId: 's1',
      forge: 'github',
      state: 'merged',
      isDraft: false,
      writtenTitle: 'Title',
      writtenBody: 'Body',
      lastRefreshedAt: T0 + 1,
      // Its checks are the poller's (checks-repo.ts): none read yet.
      checksState: null,
    });
  });

  it('deletes a review request', async () => {
    const project = await store.projects.upsert('/a', 'a', T0);
    await addSession('s1', project.id);
    await store.reviewRequests.upsert('s1', pr);

    await store.reviewRequests.delete('s1');

    expect(await store.reviewRequests.get('s1')).toBeUndefined();
    expect((await store.sessions.get('s1'))?.reviewRequest).toBeNull();
  });
});

describe('store.transaction', () => {
  it('commits everything written through the transaction store', async () => {
    const project = await store.projects.upsert('/a', 'a', T0);
    await addSession('s1', project.id);

    const position = await store.transaction(async (tx) => {
      const at = await tx.transcript.append('s1', 'assistant_answer', 'done', T0);
      await tx.sessions.addTokens('s1', 10, 2);
      await tx.usage.add('s1', 'sonnet', 'turn', 10, 2);
      return at;
    });

    expect(position).toBe(0);
    expect(await store.transcript.count('s1')).toBe(1);
    expect((await store.sessions.get('s1'))?.inputTokens).toBe(10);
  });

  it('rolls everything back when the function throws', async () => {
    const project = await store.projects.upsert('/a', 'a', T0);
    await addSession('s1', project.id);

    const run = store.transaction(async (tx) => {
      await tx.transcript.append('s1', 'assistant_answer', 'half', T0);
      await tx.sessions.update('s1', { title: 'changed' }, T0 + 1);
      await tx.sessions.setStatus('s1', 'InProgress', T0 + 1);
      throw new Error('boom');
    });

    await expect(run).rejects.toThrow('boom');
    expect(await store.transcript.count('s1')).toBe(0);
    expect(await store.sessions.get('s1')).toMatchObject({
      title: 's1',
      status: 'Draft',
      updatedAt: T0,
    });
  });

  it('joins the outer transaction when nested', async () => {
    const project = await store.projects.upsert('/a', 'a', T0);
    await addSession('s1', project.id);

    const run = store.transaction(async (tx) => {
      await tx.transaction((inner) => inner.transcript.append('s1', 'notice', 'inner', T0));
      throw new Error('outer fails');
    });

    await expect(run).rejects.toThrow('outer fails');
    expect(await store.transcript.count('s1')).toBe(0);
  });
});

describe('groups repository', () => {
  it('writes a new best-of-N group with its members at once: another connection sees both or neither', async () => {
    const projectId = (await store.projects.upsert('/repo', 'repo', T0)).id;
    await addSession('s1', projectId);
    await addSession('s2', projectId);
    const reader = openDatabase(join(dir, 'grove.db'), MIGRATIONS);
    try {
      // Between the writer's statements (right after the group's own row), another connection reads it.
      const other = createStore(reader.kysely);
      const seen: (number | null)[] = [];
      const groupInserts = new Set<unknown>();
      const between: KyselyPlugin = {
        transformQuery({ node, queryId }) {
          if (InsertQueryNode.is(node) && node.into?.table.identifier.name === 'session_group')
            groupInserts.add(queryId);
          return node;
        },
        async transformResult({ result, queryId }) {
          if (groupInserts.has(queryId))
            seen.push((await other.groups.get('g1'))?.members.length ?? null);
          return result;
        },
      };
      await createStore(db.kysely.withPlugin(between)).groups.create(
        { id: 'g1', projectId, prompt: 'Fan-out', sessionIds: ['s1', 's2'] },
        T0,
      );
      seen.push((await other.groups.get('g1'))?.members.length ?? null);
      // A reader never gets the group without its variants (a judge would rank no sessions).
      expect(seen).toEqual([null, 2]);
    } finally {
      await reader.close();
    }
  });
});
