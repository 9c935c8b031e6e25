import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { agentEnv } from '../helpers/agent-env.js';
import { agentWorldEnv, makeRepo, newSession, startGrove } from '../helpers/grove-env.js';
import type { TmuxTerminal } from '../helpers/tmux.js';
import { waitUntil } from '../helpers/wait.js';
import { setUpE2eWorld } from '../helpers/e2e-world.js';
import { reply } from '../helpers/fake-model/reply.js';
import { alive } from '../helpers/processes.js';

// The quit dialog says "Running agents are stopped; their sessions wait in
// Review": so they do, as soon as Grove has exited, and when its terminal
// closes too (SIGHUP), not only after the next start recovers them. The
// built binary in tmux, the real Claude Code, the model's answer held; the
// database is read with sqlite3.

const e2e = setUpE2eWorld();
let repo: string;

beforeEach(() => {
  repo = makeRepo(e2e.world);
});

function sql(query: string): string {
  return execFileSync(
    'sqlite3',
    ['-readonly', join(e2e.world.groveHome, 'db', 'grove.db'), query],
    {
      encoding: 'utf8',
    },
  ).trim();
}

/** Grove in tmux with a session whose turn waits for the model. */
async function midTurn(): Promise<TmuxTerminal> {
  e2e.server.script('anthropic', [
    { when: 'Write a title for a coding task', text: reply('Slow scripted task') },
    { when: 'Slow scripted task', delayMs: 300_000, then: { text: reply('Too late.') } },
  ]);
  e2e.term = await startGrove(e2e.world, repo, {
    env: agentWorldEnv(e2e.world, agentEnv(e2e.server, e2e.world.home)),
    columns: 120,
    rows: 34,
  });
  await e2e.term.waitFor('No sessions yet.');
  await newSession(e2e.term, 'Slow scripted task');
  await waitUntil(
    'the turn to wait for the model',
    () =>
      e2e.server.requests.some((r) => {
        const body = JSON.stringify(r.body);
        return body.includes('Slow scripted task') && !body.includes('Write a title');
      }) || undefined,
    30_000,
  );
  expect(sql('SELECT status FROM session')).toBe('InProgress');
  return e2e.term;
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
