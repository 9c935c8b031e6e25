import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { agentEnv } from '../helpers/agent-env.js';
import { startGitHubProject } from '../helpers/fake-github/project.js';
import type { FakeGitHub } from '../helpers/fake-github/server.js';
import { startFakeModelServer, type FakeModelServer } from '../helpers/fake-model/server.js';
import {
  checkoutState,
  installGitPause,
  killAtPause,
  pauseAt,
  restartGrove,
  seedReviewSession,
  startGrove,
  WORKING_STATUSES,
  type Restarted,
} from '../helpers/faults.js';
import { agentWorldEnv, git, makeWorld, type GroveWorld } from '../helpers/grove-env.js';

// kill -9 of `grove publish` while it pushes the session branch (the fake
// GitHub server stands in for the API), and of `grove run` while it commits
// the agent's work after a turn; then a restart.

const TOKEN = 'grove-fault-token-0c4d2e';
const reply = (answer: string): string =>
  JSON.stringify({ answer, questions: [], summary: { turn: answer, session: answer } });

let world: GroveWorld;
let repo: string;
let bare: string;
let github: FakeGitHub;
let server: FakeModelServer;
let env: Record<string, string>;
let restarted: Restarted | null = null;

beforeEach(async () => {
  world = makeWorld();
  ({ repo, bare, github } = await startGitHubProject(world, TOKEN));
  installGitPause(world);
  server = await startFakeModelServer();
  mkdirSync(join(world.home, 'gh-config'), { recursive: true });
  env = {
    ...agentWorldEnv(world, agentEnv(server, world.home)),
    HOME: world.home,
    GITHUB_TOKEN: TOKEN,
    GROVE_GITHUB_API_URL: github.url,
    GH_CONFIG_DIR: join(world.home, 'gh-config'),
  };
});

afterEach(async () => {
  await restarted?.close();
  restarted = null;
  await github.stop();
  await server.close();
  world.cleanup();
});

describe('kill -9 during a publish', () => {
  it('while pushing the branch: the session is back in Review with its work, and publishing again opens the pull request', async () => {
    const session = await seedReviewSession(world, repo, {
      files: { 'feature.txt': 'feature\n' },
      message: 'Add the feature',
    });
    const head = git(session.worktreePath, 'rev-parse', 'HEAD');
    const pause = pauseAt(world, `${session.worktreePath}|push *`);

    await killAtPause(
      startGrove(['publish', session.id], repo, { ...env, ...pause.env }),
      pause.marker,
    );
    restarted = await restartGrove(world, repo);

    expect((await restarted.session(session.id)).status).toBe('Review');
    expect(github.pulls).toHaveLength(0);
    expect(checkoutState(session.worktreePath)).toMatchObject({
      head,
      porcelain: '',
      branch: session.branch,
      rebasing: false,
    });
    expect(git(repo, 'show', `${session.branch}:feature.txt`)).toBe('feature');
    await restarted.close();
    restarted = null;
    const again = await startGrove(['publish', session.id], repo, env).exited;
    expect(again.code).toBe(0);
    expect(github.pulls).toHaveLength(1);
    expect(git(bare, 'rev-parse', `refs/heads/${session.branch}`)).toBe(head);
  });
});

describe('kill -9 during the commit after a turn', () => {
  it('keeps every file the agent wrote in the worktree, and the session is back in Review', async () => {
    server.script('anthropic', [
      { when: 'Write a title for a coding task', text: reply('Add a greeting file') },
      {
        when: 'Write the git commit message for the changes',
        text: reply('Add the greeting file'),
      },
      {
        when: 'Create hello.txt',
        toolCall: { kind: 'write_file', path: 'hello.txt', content: 'hello\n' },
      },
      { when: 'Create hello.txt', text: reply('I created hello.txt.') },
    ]);
    // The turn's commit is git's plumbing (commit-staged.ts): stopped before the branch moves.
    const pause = pauseAt(world, `${world.groveHome}/wt/*|commit-tree *`);

    const paused = await killAtPause(
      startGrove(['run', 'Create hello.txt with a greeting'], repo, { ...env, ...pause.env }),
      pause.marker,
    );
    restarted = await restartGrove(world, repo);

    const worktree = paused.slice(0, paused.indexOf('|'));
    const [session] = await restarted.infra.store.sessions.listByProject(restarted.project.id);
    expect(session?.worktreePath).toBe(worktree);
    expect(WORKING_STATUSES as readonly string[]).not.toContain(session?.status);
    expect(session?.status).toBe('Review');
    expect(readFileSync(join(worktree, 'hello.txt'), 'utf8')).toBe('hello\n');
    expect(checkoutState(worktree)).toMatchObject({ rebasing: false, merging: false });
  });
});
