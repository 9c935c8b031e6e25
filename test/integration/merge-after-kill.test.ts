import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { agentEnv } from '../helpers/agent-env.js';
import { startFakeModelServer, type FakeModelServer } from '../helpers/fake-model/server.js';
import { spawnSync } from 'node:child_process';
import { ownerOf } from '../../src/infra/owner.js';
import { seedReviewSession, startGrove } from '../helpers/faults.js';
import { withStore } from '../helpers/seed.js';
import { agentWorldEnv, git, makeRepo, makeWorld, type GroveWorld } from '../helpers/grove-env.js';

// `grove merge` killed with -9 mid-merge leaves its session in Merging. The
// next `grove merge` recovers it (as any start does) and then merges it: it
// does not refuse first with "a Merging session cannot be merged". The built
// binary, a real repository and database; the killed merge is what it leaves
// in the database: the session Merging, its merge operation running, owned by
// a process that is gone.

let world: GroveWorld;
let repo: string;
let server: FakeModelServer;
let env: Record<string, string>;

beforeEach(async () => {
  world = makeWorld();
  repo = makeRepo(world);
  server = await startFakeModelServer();
  env = { ...agentWorldEnv(world, agentEnv(server, world.home)), HOME: world.home };
});

afterEach(async () => {
  await server.close();
  world.cleanup();
});

describe('the first grove merge after a killed merge', () => {
  it('recovers the session and lands it, without refusing it as Merging', async () => {
    const session = await seedReviewSession(world, repo, {
      files: { 'feature.txt': 'feature\n' },
      message: 'Add the feature',
    });
    const gone = ownerOf(spawnSync('true').pid ?? 0);
    await withStore(world.groveHome, async (store) => {
      await store.sessions.setStatus(session.id, 'Merging', Date.now());
      await store.operations.enqueue(session.id, 'merge', {}, Date.now(), gone);
      expect((await store.operations.claimNext(session.id, gone, Date.now()))?.kind).toBe('merge');
    });

    const again = startGrove(['merge', session.id], repo, env);
    const result = await again.exited;

    expect(again.output()).not.toContain('cannot be merged');
    expect(result.code, again.output()).toBe(0);
    expect(git(repo, 'show', 'main:feature.txt')).toBe('feature');
  });
});
