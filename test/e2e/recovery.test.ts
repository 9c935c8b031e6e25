import { spawn, type ChildProcess } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { agentEnv } from '../helpers/agent-env.js';
import { startFakeModelServer, type FakeModelServer } from '../helpers/fake-model/server.js';
import {
  GROVE_BIN,
  agentWorldEnv,
  git,
  makeRepo,
  makeWorld,
  startGrove,
  type GroveWorld,
} from '../helpers/grove-env.js';
import type { TmuxTerminal } from '../helpers/tmux.js';

// The built binary in tmux: a TUI that notices a dead `grove run`, and a
// sync that asks before it pushes anything.

const reply = (answer: string) =>
  JSON.stringify({
    answer,
    questions: [],
    summary: { turn: `turn: ${answer}`, session: `session: ${answer}` },
  });

let world: GroveWorld;
let server: FakeModelServer | null = null;
let term: TmuxTerminal | null = null;
const children: ChildProcess[] = [];

beforeEach(() => {
  world = makeWorld();
});

afterEach(async () => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  await term?.kill();
  term = null;
  await server?.close();
  server = null;
  world.cleanup();
});

describe('a TUI and a `grove run` that dies', () => {
  it('the TUI brings the session back to Review, with a notice, once the command driving its turn is killed', async () => {
    server = await startFakeModelServer();
    const repo = makeRepo(world);
    const env = agentWorldEnv(world, agentEnv(server, world.home));
    server.script('anthropic', [
      { when: 'Write a title for a coding task', text: reply('Slow scripted task') },
      { when: 'Slow scripted task', delayMs: 120_000, then: { text: reply('too late') } },
    ]);
    const t = await startGrove(world, repo, { env, columns: 120, rows: 34 });
    term = t;
    await t.waitFor('No sessions yet.');
    const run = spawn(process.execPath, [GROVE_BIN, 'run', 'Slow scripted task'], {
      cwd: repo,
      env,
      stdio: 'ignore',
    });
    children.push(run);
    await t.waitFor(/InProgress/, 20_000);

    const exited = new Promise((resolve) => run.once('exit', resolve));
    run.kill('SIGKILL');
    await exited;

    await t.waitFor(/ Review /, 30_000);
    await t.keys('Enter');
    await t.waitFor('[Interrupted] The Grove process running this session', 10_000);
    const screen = await t.waitFor(/ Review /);
    expect(screen).not.toMatch(/InProgress/);
  });
});

describe('sync (s) asks before it pushes', () => {
  async function syncWorld(): Promise<{
    t: TmuxTerminal;
    repo: string;
    origin: string;
    local: string;
    remoteBefore: string;
  }> {
    const repo = makeRepo(world, 'project', true);
    const origin = `${world.dir}/project-origin.git`;
    git(repo, 'commit', '-q', '--allow-empty', '-m', 'Local work to push');
    const t = await startGrove(world, repo, { columns: 120, rows: 34 });
    term = t;
    await t.waitFor('No sessions yet.');
    return {
      t,
      repo,
      origin,
      local: git(repo, 'rev-parse', 'main'),
      remoteBefore: git(origin, 'rev-parse', 'main'),
    };
  }

  it('`s` shows what would be pushed where; n pushes nothing', async () => {
    const { t, origin, remoteBefore } = await syncWorld();

    await t.keys('s');
    const asked = await t.waitFor('Sync main with origin/main?', 15_000);
    expect(asked).toContain('Push 1 commit from main to origin/main:');
    expect(asked).toContain('↑ Local work to push');
    await t.keys('n');

    await t.waitForGone('Sync main with origin/main?');
    expect(git(origin, 'rev-parse', 'main')).toBe(remoteBefore);
  });

  it('Esc pushes nothing either', async () => {
    const { t, origin, remoteBefore } = await syncWorld();
    await t.keys('s');
    await t.waitFor('Sync main with origin/main?', 15_000);

    await t.keys('Escape');

    await t.waitForGone('Sync main with origin/main?');
    expect(git(origin, 'rev-parse', 'main')).toBe(remoteBefore);
  });

  it('y pushes the listed commits', async () => {
    const { t, origin, local } = await syncWorld();
    await t.keys('s');
    await t.waitFor('Sync main with origin/main?', 15_000);

    await t.keys('y');

    await t.waitFor('Sync finished', 15_000);
    expect(git(origin, 'rev-parse', 'main')).toBe(local);
  });

  it('`s` on the Settings tab does nothing', async () => {
    const { t, origin, remoteBefore } = await syncWorld();
    await t.keys('Tab');
    await t.waitFor('Worktree folder');
    const before = await t.screen();

    await t.keys('s', '?');

    const help = await t.waitFor(/Show this help|Close help/);
    expect(help).not.toMatch(/Sync main with|Syncing|Checking what a sync/);
    expect(before).not.toMatch(/Sync main with/);
    expect(git(origin, 'rev-parse', 'main')).toBe(remoteBefore);
  });
});
