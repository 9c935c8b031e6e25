import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { agentEnv } from '../helpers/agent-env.js';
import { startFakeModelServer, type FakeModelServer } from '../helpers/fake-model/server.js';
import {
  GROVE_BIN,
  agentWorldEnv,
  git,
  makeRepo,
  makeWorld,
  newSession,
  startGrove,
  type GroveWorld,
} from '../helpers/grove-env.js';
import { liveProcesses, processesWithEnv } from '../helpers/processes.js';
import type { TmuxTerminal } from '../helpers/tmux.js';
import { waitUntil } from '../helpers/wait.js';
import { reply } from '../helpers/fake-model/reply.js';

// The built binary in tmux: a TUI that notices a dead `grove run`, a TUI
// killed mid-turn and started again, and a sync that asks before it pushes
// anything.

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

describe('the TUI killed with -9 in the middle of a turn, then started again', () => {
  /** Agent processes of this world's Grove (they carry this test's model server address; GROVE_HOME is never passed to an agent). */
  function agentPids(): number[] {
    return processesWithEnv(`ANTHROPIC_BASE_URL=${server?.url ?? '-'}`)
      .filter((p) => !p.cmdline.includes('grove.js'))
      .map((p) => p.pid);
  }

  /** Running, not a zombie: an agent killed with Grove may wait a moment for a parent to reap it. */
  function alive(pid: number): boolean {
    return liveProcesses().some((p) => p.pid === pid);
  }

  it('shows the session in Review with the [Restart] notice, no agent of the first run alive, and the work in the worktree', async () => {
    server = await startFakeModelServer();
    const repo = makeRepo(world);
    const env = agentWorldEnv(world, agentEnv(server, world.home));
    server.script('anthropic', [
      { when: 'Write a title for a coding task', text: reply('Half-done task') },
      {
        when: 'Write the notes file',
        toolCall: { kind: 'write_file', path: 'notes.txt', content: 'written before the kill\n' },
      },
      // The model's next answer is held: the turn is mid-flight when Grove is killed.
      { when: 'Write the notes file', delayMs: 300_000, then: { text: reply('too late') } },
    ]);
    const first = await startGrove(world, repo, { env, columns: 120, rows: 34 });
    term = first;
    await first.waitFor('No sessions yet.');
    await newSession(first, 'Write the notes file');
    const worktrees = join(world.groveHome, 'wt');
    const notes = await waitUntil(
      'the agent to write notes.txt and wait for the model',
      () => {
        const found = existsSync(worktrees)
          ? readdirSync(worktrees)
              .map((d) => join(worktrees, d, 'notes.txt'))
              .find((f) => existsSync(f))
          : undefined;
        const held =
          server?.requests.filter((r) => JSON.stringify(r.body).includes('Write the notes file'))
            .length ?? 0;
        return found !== undefined && held >= 2 ? found : undefined;
      },
      30_000,
    );
    const firstAgents = agentPids();
    expect(firstAgents.length).toBeGreaterThan(0);

    process.kill(await first.pid(), 'SIGKILL');
    await first.kill();
    const second = await startGrove(world, repo, { env, columns: 120, rows: 34 });
    term = second;

    const list = await second.waitFor(/ Review /, 20_000);
    expect(list).not.toMatch(/InProgress/);
    await second.keys('Enter');
    await second.waitFor('[Restart] The Grove process running or queueing work', 10_000);
    // A SIGKILL takes effect at once, but the kernel tears a process down in its own time.
    await waitUntil(
      "the first run's agents to be gone",
      () => (firstAgents.some(alive) ? undefined : true),
      5_000,
    ).catch(() => {});
    expect(firstAgents.filter(alive)).toEqual([]);
    expect(readFileSync(notes, 'utf8')).toBe('written before the kill\n');
    expect(git(join(notes, '..'), 'status', '--porcelain')).toContain('notes.txt');
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
