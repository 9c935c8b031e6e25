import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type GroveDb } from '../../src/infra/db/database.js';
import { NotFoundError } from '../../src/infra/db/errors.js';
import { createStore, type NewSession, type Store } from '../../src/infra/db/store.js';
import { TransitionError } from '../../src/domain/session-status.js';

const MIGRATIONS = fileURLToPath(new URL('../../migrations/', import.meta.url));
const T0 = 1_700_000_000_000;

let dir: string;
let db: GroveDb;
let store: Store;
let projectId: number;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'grove-db-sessions-'));
  db = openDatabase(join(dir, 'grove.db'), MIGRATIONS);
  store = createStore(db.kysely);
  projectId = (await store.projects.upsert('/repo', 'repo', T0)).id;
});

afterEach(async () => {
  await db.close();
  rmSync(dir, { recursive: true, force: true });
});

function newSession(overrides: Partial<NewSession> = {}): NewSession {
  return {
    id: '3f2a9c1e-0000-4000-8000-000000000001',
    projectId,
    title: 'Fix the parser',
    status: 'Draft',
    baseBranch: 'main',
    branch: 'grove/3f2a9c1e',
    worktreePath: '/wt/repo/3f2a9c1e',
    agent: 'claude',
    model: 'sonnet',
    reasoning: 'high',
    createdAt: T0,
    ...overrides,
  };
}

async function sessionIn(status: 'Draft' | 'Review', id = newSession().id): Promise<string> {
  await store.sessions.insert(newSession({ id, status }));
  return id;
}

describe('sessions repository', () => {
  it('reads back an inserted session with the column defaults', async () => {
    await store.sessions.insert(newSession());

    const session = await store.sessions.get(newSession().id);

    expect(session).toMatchObject({
      id: newSession().id,
      projectId,
      title: 'Fix the parser',
      titleProvisional: true,
      titleGeneration: 0,
      status: 'Draft',
      reasoning: 'high',
      permissionMode: 'auto_edit',
      prompt: null,
      size: 'XS',
      hasDiff: null,
      inputTokens: 0,
      activeSeconds: 0,
      activeSince: null,
      createdAt: T0,
      updatedAt: T0,
      queuedAt: null,
      summary: null,
      questions: [],
      mainCheckoutWarning: false,
      reviewRequest: null,
    });
  });

  it('round-trips a patch including the JSON columns and booleans', async () => {
    await store.sessions.insert(newSession());
    const questions = [{ text: 'Which database?', options: ['SQLite', 'Postgres'] }];

    await store.sessions.update(
      newSession().id,
      {
        summary: { turn: 'Added a test.', session: 'Parser fixed.' },
        questions,
        hasDiff: false,
        titleProvisional: false,
        mainCheckoutWarning: true,
        size: 'M',
        addedLines: 40,
        focusedReviewStatus: 'ready',
        providerConversationId: 'conv-1',
      },
      T0 + 5,
    );
    const session = await store.sessions.get(newSession().id);

    expect(session).toMatchObject({
      summary: { turn: 'Added a test.', session: 'Parser fixed.' },
      questions,
      hasDiff: false,
      titleProvisional: false,
      mainCheckoutWarning: true,
      size: 'M',
      addedLines: 40,
      focusedReviewStatus: 'ready',
      providerConversationId: 'conv-1',
      updatedAt: T0 + 5,
    });
  });

  it('decodes malformed JSON columns to their empty forms', async () => {
    await store.sessions.insert(newSession());
    db.sqlite
      .prepare("UPDATE session SET summary = '{\"turn\": 3}', questions = 'not json' WHERE id = ?")
      .run(newSession().id);

    const session = await store.sessions.get(newSession().id);

    expect(session?.summary).toBeNull();
    expect(session?.questions).toEqual([]);
  });

  it('joins the review request into the session', async () => {
    await store.sessions.insert(newSession());
    await store.reviewRequests.upsert(newSession().id, {
      number: 7,
      url: 'https://github.com/o/r/pull/7',
      state: 'open',
      isDraft: true,
      reviewDecision: null,
      checksSummary: '2/2 passed',
      headBranch: 'grove/3f2a9c1e',
      baseBranch: 'main',
    });

    const session = await store.sessions.get(newSession().id);

    expect(session?.reviewRequest).toEqual({
      number: 7,
      url: 'https://github.com/o/r/pull/7',
      state: 'open',
      isDraft: true,
      reviewDecision: null,
      checksSummary: '2/2 passed',
      checksState: null,
      headBranch: 'grove/3f2a9c1e',
      baseBranch: 'main',
    });
  });

  it('lists a project’s sessions most recently updated first', async () => {
    await store.sessions.insert(newSession({ id: 'a', createdAt: T0 }));
    await store.sessions.insert(newSession({ id: 'b', createdAt: T0 + 1 }));
    await store.sessions.update('a', { title: 'touched' }, T0 + 10);

    const ids = (await store.sessions.listByProject(projectId)).map((s) => s.id);

    expect(ids).toEqual(['a', 'b']);
  });

  it('lists the live sessions and only the archived ones touched since a time', async () => {
    await store.sessions.insert(newSession({ id: 'live-old', status: 'Review', createdAt: T0 }));
    await store.sessions.insert(newSession({ id: 'done-old', status: 'Done', createdAt: T0 }));
    await store.sessions.insert(newSession({ id: 'merged-new', status: 'Merged', createdAt: T0 }));
    await store.sessions.update('merged-new', { title: 'merged just now' }, T0 + 500);

    const ids = (await store.sessions.listTouchedSince(projectId, T0 + 100)).map((s) => s.id);

    expect(ids.sort()).toEqual(['live-old', 'merged-new']);
  });

  it('finds sessions by id prefix, ignoring dashes and case', async () => {
    await store.sessions.insert(newSession({ id: 'abcd1234-ef00-4000-8000-000000000001' }));
    await store.sessions.insert(newSession({ id: 'abcd9999-ef00-4000-8000-000000000002' }));

    expect((await store.sessions.findByIdPrefix('ABCD')).map((s) => s.id)).toHaveLength(2);
    expect((await store.sessions.findByIdPrefix('abcd1234ef')).map((s) => s.id)).toEqual([
      'abcd1234-ef00-4000-8000-000000000001',
    ]);
    expect(await store.sessions.findByIdPrefix('')).toEqual([]);
  });

  it('adds tokens to the running totals', async () => {
    await store.sessions.insert(newSession());

    await store.sessions.addTokens(newSession().id, 100, 20);
    await store.sessions.addTokens(newSession().id, 5, 1);

    expect(await store.sessions.get(newSession().id)).toMatchObject({
      inputTokens: 105,
      outputTokens: 21,
    });
  });

  it('deletes a session with its transcript and operations', async () => {
    await store.sessions.insert(newSession());
    await store.transcript.append(newSession().id, 'user_prompt', 'hi', T0);
    await store.operations.enqueue(newSession().id, 'reply', { prompt: 'hi' }, T0);

    await store.sessions.delete(newSession().id);

    expect(await store.sessions.get(newSession().id)).toBeUndefined();
    expect(await store.transcript.count(newSession().id)).toBe(0);
    expect(await store.operations.listUnfinished(newSession().id)).toEqual([]);
  });

  it('refuses an illegal status change and leaves the session as it was', async () => {
    const id = await sessionIn('Draft');

    await expect(store.sessions.setStatus(id, 'Merged', T0 + 1)).rejects.toBeInstanceOf(
      TransitionError,
    );

    expect(await store.sessions.get(id)).toMatchObject({ status: 'Draft', updatedAt: T0 });
  });

  it('refuses a status change of a missing session', async () => {
    await expect(store.sessions.setStatus('nope', 'Review', T0)).rejects.toBeInstanceOf(
      NotFoundError,
    );
  });

  it('starts the timer when work begins and banks it when work stops', async () => {
    const id = await sessionIn('Draft');

    const working = await store.sessions.setStatus(id, 'InProgress', T0 + 1_000);
    const stopped = await store.sessions.setStatus(id, 'Review', T0 + 62_500);

    expect(working).toMatchObject({
      status: 'InProgress',
      activeSince: T0 + 1_000,
      activeSeconds: 0,
    });
    expect(stopped).toMatchObject({
      status: 'Review',
      activeSince: null,
      activeSeconds: 61,
      updatedAt: T0 + 62_500,
    });
    expect(await store.sessions.get(id)).toEqual(stopped);
  });

  it('keeps banking across several stretches of work', async () => {
    const id = await sessionIn('Review');

    await store.sessions.setStatus(id, 'InProgress', T0);
    await store.sessions.setStatus(id, 'Review', T0 + 10_000);
    await store.sessions.setStatus(id, 'Rebasing', T0 + 20_000);
    const session = await store.sessions.setStatus(id, 'Review', T0 + 25_000);

    expect(session.activeSeconds).toBe(15);
  });

  it('records when a session joins the merge queue and keeps it while merging', async () => {
    const id = await sessionIn('Review');

    const queued = await store.sessions.setStatus(id, 'Queued', T0 + 100);
    const merging = await store.sessions.setStatus(id, 'Merging', T0 + 200);

    expect(queued.queuedAt).toBe(T0 + 100);
    expect(merging.queuedAt).toBe(T0 + 100);
  });

  it('clears the merge-queue time when the session leaves the queue', async () => {
    const id = await sessionIn('Review');
    await store.sessions.setStatus(id, 'Queued', T0 + 100);

    const back = await store.sessions.setStatus(id, 'Review', T0 + 200);

    expect(back.queuedAt).toBeNull();
    expect((await store.sessions.get(id))?.queuedAt).toBeNull();
  });
});
