import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Session } from '../../src/domain/session.js';
import { agentEnv } from '../helpers/agent-env.js';
import { replyWith, sameSummary } from '../helpers/fake-model/reply.js';
import { startFakeModelServer, type FakeModelServer } from '../helpers/fake-model/server.js';
import {
  checkoutState,
  commitFiles,
  installGitPause,
  killAtPause,
  pauseAt,
  restartGrove,
  seedReviewSession,
  startGrove,
  WORKING_STATUSES,
  type Restarted,
} from '../helpers/faults.js';
import { agentWorldEnv, git, makeRepo, makeWorld, type GroveWorld } from '../helpers/grove-env.js';

// kill -9 of `grove rebase` / `grove merge` at each step of a rebase with
// conflicts (the session's agent, the real Claude Code CLI against the fake
// model server, resolves them), then a restart: recovery aborts the rebase.

let world: GroveWorld;
let repo: string;
let server: FakeModelServer;
let env: Record<string, string>;
let restarted: Restarted | null = null;

const reply = replyWith(sameSummary);

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

/** A session whose change to shared.txt conflicts with a later commit on main. */
async function conflictingSession(uncommitted?: Record<string, string>): Promise<Session> {
  commitFiles(world, repo, { 'shared.txt': 'one\ntwo\nthree\n' }, 'Add shared.txt');
  const session = await seedReviewSession(world, repo, {
    files: { 'shared.txt': 'one\nSESSION\nthree\n', 'extra.txt': 'extra\n' },
    message: 'Change two in the session',
    ...(uncommitted ? { uncommitted } : {}),
  });
  commitFiles(world, repo, { 'shared.txt': 'one\nMAIN\nthree\n' }, 'Change two on main');
  return session;
}

/** The agent resolves the conflict by keeping both lines. */
function agentResolves(): void {
  server.script('anthropic', [
    {
      when: 'Grove is rebasing this branch onto `main`',
      toolCall: { kind: 'write_file', path: 'shared.txt', content: 'one\nMAIN\nSESSION\nthree\n' },
    },
    { when: 'Grove is rebasing this branch onto `main`', text: reply('Kept both lines.') },
  ]);
}

async function killedAt(args: readonly string[], pattern: string): Promise<void> {
  const pause = pauseAt(world, pattern);
  await killAtPause(startGrove(args, repo, { ...env, ...pause.env }), pause.marker);
}

async function restart(): Promise<Restarted> {
  restarted = await restartGrove(world, repo);
  return restarted;
}

async function expectNoSessionWorking(grove: Restarted): Promise<void> {
  for (const s of await grove.infra.store.sessions.listByProject(grove.project.id))
    expect(WORKING_STATUSES as readonly string[], `${s.id} is ${s.status}`).not.toContain(s.status);
}

describe('kill -9 during a rebase with conflicts', () => {
  it('after the agent resolved the conflict, mid-rebase: recovery aborts the rebase and the worktree is back at the session commit', async () => {
    const session = await conflictingSession();
    const before = git(session.worktreePath, 'rev-parse', 'HEAD');
    agentResolves();

    await killedAt(['rebase', session.id], `${session.worktreePath}|add -- shared.txt`);
    expect(checkoutState(session.worktreePath).rebasing).toBe(true);
    const grove = await restart();

    expect(checkoutState(session.worktreePath)).toEqual({
      porcelain: '',
      head: before,
      branch: session.branch,
      rebasing: false,
      merging: false,
      staged: '',
    });
    expect(readFileSync(join(session.worktreePath, 'shared.txt'), 'utf8')).toBe(
      'one\nSESSION\nthree\n',
    );
    expect(readFileSync(join(session.worktreePath, 'extra.txt'), 'utf8')).toBe('extra\n');
    expect((await grove.session(session.id)).status).toBe('Review');
    await expectNoSessionWorking(grove);
    const notice = (await grove.notices(session.id)).at(-1) ?? '';
    expect(notice).toMatch(/^\[Restart\] The rebase of grove\/\w+ onto main was interrupted/);
    expect(notice).toContain(`back on ${session.branch} at ${before.slice(0, 12)}`);
  });

  it('at git rebase --continue: recovery aborts the rebase, and the session rebases cleanly afterwards', async () => {
    const session = await conflictingSession();
    const before = git(session.worktreePath, 'rev-parse', 'HEAD');
    agentResolves();

    await killedAt(['rebase', session.id], `${session.worktreePath}|*rebase --continue`);
    const grove = await restart();

    expect(checkoutState(session.worktreePath)).toMatchObject({
      porcelain: '',
      head: before,
      branch: session.branch,
      rebasing: false,
    });
    expect((await grove.session(session.id)).status).toBe('Review');
    await grove.close();
    restarted = null;
    agentResolves();
    const again = await startGrove(['rebase', session.id], repo, env).exited;
    expect(again.code).toBe(0);
    expect(git(repo, 'show', `${session.branch}:shared.txt`)).toBe('one\nMAIN\nSESSION\nthree');
    expect(git(repo, 'merge-base', session.branch, 'main')).toBe(git(repo, 'rev-parse', 'main'));
  });

  it('as the rebase starts: work the agent left uncommitted was committed on the branch first and is kept', async () => {
    const session = await conflictingSession({ 'wip.txt': 'not yet committed\n' });

    await killedAt(['rebase', session.id], `${session.worktreePath}|rebase main`);
    const grove = await restart();

    expect(git(repo, 'show', `${session.branch}:wip.txt`)).toBe('not yet committed');
    expect(git(repo, 'show', `${session.branch}:shared.txt`)).toBe('one\nSESSION\nthree');
    expect(checkoutState(session.worktreePath)).toMatchObject({
      porcelain: '',
      branch: session.branch,
      rebasing: false,
    });
    expect((await grove.session(session.id)).status).toBe('Review');
  });

  it('inside a merge: the session leaves Merging for Review, main is untouched, and the next merge lands it', async () => {
    const session = await conflictingSession();
    const mainHead = git(repo, 'rev-parse', 'main');
    const before = git(session.worktreePath, 'rev-parse', 'HEAD');
    agentResolves();

    await killedAt(['merge', session.id], `${session.worktreePath}|add -- shared.txt`);
    const grove = await restart();

    expect((await grove.session(session.id)).status).toBe('Review');
    await expectNoSessionWorking(grove);
    expect(checkoutState(session.worktreePath)).toMatchObject({
      porcelain: '',
      head: before,
      branch: session.branch,
      rebasing: false,
    });
    expect(checkoutState(repo)).toMatchObject({
      head: mainHead,
      porcelain: '',
      staged: '',
      merging: false,
    });
    await grove.close();
    restarted = null;
    agentResolves();
    const again = await startGrove(['merge', session.id], repo, env).exited;
    expect(again.code).toBe(0);
    expect(git(repo, 'show', 'main:shared.txt')).toBe('one\nMAIN\nSESSION\nthree');
    expect(git(repo, 'show', 'main:extra.txt')).toBe('extra');
  });
});
