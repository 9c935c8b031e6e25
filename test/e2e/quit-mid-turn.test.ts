import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { agentEnv } from '../helpers/agent-env.js';
import { startFakeModelServer, type FakeModelServer } from '../helpers/fake-model/server.js';
import {
  agentWorldEnv,
  makeRepo,
  makeWorld,
  newSession,
  startGrove,
  type GroveWorld,
} from '../helpers/grove-env.js';
import type { TmuxTerminal } from '../helpers/tmux.js';
import { waitUntil } from '../helpers/wait.js';

// The quit dialog says "Running agents are stopped; their sessions wait in
// Review": so they do, as soon as Grove has exited, and when its terminal
// closes too (SIGHUP), not only after the next start recovers them. The
// built binary in tmux, the real Claude Code, the model's answer held; the
// database is read with sqlite3.

const reply = (answer: string) =>
  JSON.stringify({
    answer,
    questions: [],
    summary: { turn: `turn: ${answer}`, session: `session: ${answer}` },
  });

let world: GroveWorld;
let server: FakeModelServer;
let term: TmuxTerminal | null = null;
let repo: string;

beforeEach(async () => {
  world = makeWorld();
  server = await startFakeModelServer();
  repo = makeRepo(world);
});

afterEach(async () => {
  await term?.kill();
  term = null;
  await server.close();
  world.cleanup();
});

function sql(query: string): string {
  return execFileSync('sqlite3', ['-readonly', join(world.groveHome, 'db', 'grove.db'), query], {
    encoding: 'utf8',
  }).trim();
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Grove in tmux with a session whose turn waits for the model. */
async function midTurn(): Promise<TmuxTerminal> {
  server.script('anthropic', [
    { when: 'Write a title for a coding task', text: reply('Slow scripted task') },
    { when: 'Slow scripted task', delayMs: 300_000, then: { text: reply('Too late.') } },
  ]);
  term = await startGrove(world, repo, {
    env: agentWorldEnv(world, agentEnv(server, world.home)),
    columns: 120,
    rows: 34,
  });
  await term.waitFor('No sessions yet.');
  await newSession(term, 'Slow scripted task');
  await waitUntil(
    'the turn to wait for the model',
    () =>
      server.requests.some((r) => {
        const body = JSON.stringify(r.body);
        return body.includes('Slow scripted task') && !body.includes('Write a title');
      }) || undefined,
    30_000,
  );
  expect(sql('SELECT status FROM session')).toBe('InProgress');
  return term;
}

describe('leaving the TUI during a turn', () => {
  it('quitting (q, y) leaves the session in Review when Grove has exited', async () => {
    const t = await midTurn();

    await t.keys('q');
    await t.waitForGone('Enter reply');
    await t.keys('q');
    await t.waitFor('Quit Grove?');
    await t.keys('y');
    await t.waitForExit(20_000);

    expect(sql('SELECT status FROM session')).toBe('Review');
    expect(
      sql("SELECT count(*) FROM session_operation WHERE status IN ('queued', 'running')"),
    ).toBe('0');
  });

  it('a closed terminal (SIGHUP) leaves the session in Review when Grove has exited', async () => {
    const t = await midTurn();
    const pid = await t.pid();

    process.kill(pid, 'SIGHUP');
    await waitUntil('Grove to exit', () => (alive(pid) ? undefined : true), 20_000);

    expect(sql('SELECT status FROM session')).toBe('Review');
  });
});
