import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Session } from '../../src/domain/session.js';
import { agentEnv } from '../helpers/agent-env.js';
import { startFakeModelServer, type FakeModelServer } from '../helpers/fake-model/server.js';
import {
  checkoutState,
  installGitPause,
  killAtPause,
  pauseAt,
  paused,
  releasePause,
  restartGrove,
  seedReviewSession,
  startGrove,
  until,
  WORKING_STATUSES,
  type Restarted,
} from '../helpers/faults.js';
import { agentWorldEnv, git, makeRepo, makeWorld, type GroveWorld } from '../helpers/grove-env.js';
import { withStore } from '../helpers/seed.js';

// kill -9 of `grove merge` at each step of a squash merge, then a restart
// (recovery runs as at start-up), on a real repository and a real GROVE_HOME.
// A `git` wrapper on PATH stops at the chosen git command; see helpers/faults.ts.

let world: GroveWorld;
let repo: string;
let server: FakeModelServer;
let env: Record<string, string>;
let restarted: Restarted | null = null;

beforeEach(async () => {
  world = makeWorld();
  repo = makeRepo(world);
  installGitPause(world);
  server = await startFakeModelServer();
  env = { ...agentWorldEnv(world, agentEnv(server, world.home)), HOME: world.home };
});

afterEach(async () => {
  await restarted?.close();
  restarted = null;
  await server.close();
  world.cleanup();
});

/** `grove merge` killed when it reaches `pattern` (a glob over "<folder>|<git arguments>"). */
async function mergeKilledAt(session: Session, pattern: string): Promise<string> {
  const pause = pauseAt(world, pattern);
  const victim = startGrove(['merge', session.id], repo, { ...env, ...pause.env });
  return killAtPause(victim, pause.marker);
}

async function restart(): Promise<Restarted> {
  restarted = await restartGrove(world, repo);
  return restarted;
}

async function expectNoSessionWorking(grove: Restarted): Promise<void> {
  const sessions = await grove.infra.store.sessions.listByProject(grove.project.id);
  for (const s of sessions)
    expect(WORKING_STATUSES as readonly string[], `${s.id} is ${s.status}`).not.toContain(s.status);
}

describe('kill -9 during a squash merge', () => {
  it('before the squash is staged: the session is back in Review and the next merge lands it', async () => {
    const session = await seedReviewSession(world, repo, {
      files: { 'feature.txt': 'feature\n' },
      message: 'Add the feature',
    });
    const mainHead = git(repo, 'rev-parse', 'main');

    await mergeKilledAt(session, `${repo}|merge --squash *`);
    const grove = await restart();

    expect((await grove.session(session.id)).status).toBe('Review');
    await expectNoSessionWorking(grove);
    expect(checkoutState(repo)).toMatchObject({
      head: mainHead,
      porcelain: '',
      staged: '',
      merging: false,
      branch: 'main',
    });
    expect(git(repo, 'show', `${session.branch}:feature.txt`)).toBe('feature');
    await grove.close();
    restarted = null;
    const again = await startGrove(['merge', session.id], repo, env).exited;
    expect(again.code).toBe(0);
    expect(git(repo, 'show', 'main:feature.txt')).toBe('feature');
  });

  it('with the squash staged in the main checkout: recovery takes it back exactly and says so, and the next merge lands', async () => {
    const session = await seedReviewSession(world, repo, {
      files: { 'feature.txt': 'feature\n', 'README.md': '# project\nchanged by the session\n' },
      message: 'Add the feature',
    });
    const mainHead = git(repo, 'rev-parse', 'main');

    await mergeKilledAt(session, `${repo}|commit -q -F -*`);
    // The fault point: the squash is staged, not committed.
    expect(checkoutState(repo).staged.split('\n').sort()).toEqual(['README.md', 'feature.txt']);
    const grove = await restart();

    expect(checkoutState(repo)).toMatchObject({
      head: mainHead,
      porcelain: '',
      staged: '',
      merging: false,
      branch: 'main',
    });
    expect(existsSync(join(repo, 'feature.txt'))).toBe(false);
    expect(readFileSync(join(repo, 'README.md'), 'utf8')).toBe('# project\n');
    const after = await grove.session(session.id);
    expect(after.status).toBe('Review');
    expect(after.mergedCommit).toBeNull();
    const notice = (await grove.notices(session.id)).at(-1) ?? '';
    expect(notice).toMatch(/^\[Restart\] The merge into main was interrupted before its commit/);
    expect(notice).toContain(`main checkout (${repo})`);
    expect(git(repo, 'show', `${session.branch}:feature.txt`)).toBe('feature');
    await grove.close();
    restarted = null;
    const again = await startGrove(['merge', session.id], repo, env).exited;
    expect(again.code).toBe(0);
    expect(git(repo, 'show', 'main:feature.txt')).toBe('feature');
    expect(git(repo, 'rev-list', '--count', 'main')).toBe('2');
  });

  it('after the squash commit: recovery finishes the merge, and the session is Done with its worktree and branch removed', async () => {
    const session = await seedReviewSession(world, repo, {
      files: { 'feature.txt': 'feature\n' },
      message: 'Add the feature',
    });

    await mergeKilledAt(session, `${repo}|worktree remove *`);
    const landed = git(repo, 'rev-parse', 'main');
    expect(git(repo, 'show', 'main:feature.txt')).toBe('feature');
    const grove = await restart();

    const after = await grove.session(session.id);
    expect(after.status).toBe('Done');
    expect(after.mergedCommit).toBe(landed);
    expect(existsSync(session.worktreePath)).toBe(false);
    expect(git(repo, 'branch', '--list', session.branch)).toBe('');
    expect(checkoutState(repo)).toMatchObject({ head: landed, porcelain: '', staged: '' });
    expect((await grove.notices(session.id)).at(-1)).toMatch(
      /^\[Restart\] The merge into main had been committed as [0-9a-f]{12} .*Grove finished it/,
    );
    await expectNoSessionWorking(grove);
  });

  it('while committing work the agent left uncommitted: no file is lost and the session is back in Review', async () => {
    const session = await seedReviewSession(world, repo, {
      files: { 'feature.txt': 'feature\n' },
      message: 'Add the feature',
      uncommitted: { 'later.txt': 'written after the last commit\n' },
    });
    const mainHead = git(repo, 'rev-parse', 'main');

    await mergeKilledAt(session, `${session.worktreePath}|commit *`);
    const grove = await restart();

    expect((await grove.session(session.id)).status).toBe('Review');
    await expectNoSessionWorking(grove);
    expect(readFileSync(join(session.worktreePath, 'later.txt'), 'utf8')).toBe(
      'written after the last commit\n',
    );
    expect(readFileSync(join(session.worktreePath, 'feature.txt'), 'utf8')).toBe('feature\n');
    expect(checkoutState(session.worktreePath)).toMatchObject({
      rebasing: false,
      merging: false,
      branch: session.branch,
    });
    expect(checkoutState(repo)).toMatchObject({ head: mainHead, porcelain: '' });
  });
});

describe('after an interrupted run', () => {
  it('a session an older Grove left in Merging with no operation running it is back in Review after a restart', async () => {
    const session = await seedReviewSession(world, repo, {
      files: { 'feature.txt': 'feature\n' },
      message: 'Add the feature',
    });
    await withStore(world.groveHome, async (store) => {
      await store.sessions.setStatus(session.id, 'Queued', Date.now());
      await store.sessions.setStatus(session.id, 'Merging', Date.now());
    });

    const grove = await restart();

    expect((await grove.session(session.id)).status).toBe('Review');
    expect((await grove.notices(session.id)).at(-1)).toMatch(
      /^\[Restart\] This session was left in Merging .* It is back in Review/,
    );
  });
});

describe('a stop after the merge landed', () => {
  it('reports the merge as done, not as stopped', async () => {
    const session = await seedReviewSession(world, repo, {
      files: { 'feature.txt': 'feature\n' },
      message: 'Add the feature',
    });
    const pause = pauseAt(world, `${repo}|worktree remove *`);
    const victim = startGrove(['merge', session.id, '--progress'], repo, { ...env, ...pause.env });
    await paused(victim, pause.marker);

    victim.child.kill('SIGTERM');
    await until('the stop to be seen', () => victim.output().includes('Stopping'));
    releasePause(pause.marker);
    const result = await victim.exited;

    expect(result.code, victim.output()).toBe(0);
    expect(victim.output()).not.toMatch(/was stopped/);
    expect(victim.output()).toContain(`Done ${git(repo, 'rev-parse', 'main')}`);
  });
});
