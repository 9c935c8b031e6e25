import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { InsertQueryNode, type KyselyPlugin } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type GroveDb } from '../../src/infra/db/database.js';
import { createStore, type Store } from '../../src/infra/db/store.js';

// A best-of-N group as another process reads it: the group and its members
// appear together, never a group without its variants (a reader that judged
// or showed it then would act on no sessions).

const MIGRATIONS = fileURLToPath(new URL('../../migrations/', import.meta.url));
const T0 = 1_700_000_000_000;

let dir: string;
let writer: GroveDb;
let reader: GroveDb;
let store: Store;
let projectId: number;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'grove-db-groups-'));
  writer = openDatabase(join(dir, 'grove.db'), MIGRATIONS);
  reader = openDatabase(join(dir, 'grove.db'), MIGRATIONS);
  store = createStore(writer.kysely);
  projectId = (await store.projects.upsert('/repo', 'repo', T0)).id;
  for (const id of ['s1', 's2'])
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
});

afterEach(async () => {
  await writer.close();
  await reader.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a new best-of-N group', () => {
  it('is seen by another connection with all its members or not at all', async () => {
    // Between the writer's statements (right after the group's own row is
    // written), another connection reads the group.
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
    await createStore(writer.kysely.withPlugin(between)).groups.create(
      { id: 'g1', projectId, prompt: 'Fan-out', sessionIds: ['s1', 's2'] },
      T0,
    );
    seen.push((await other.groups.get('g1'))?.members.length ?? null);
    expect(seen).toEqual([null, 2]);
  });
});
