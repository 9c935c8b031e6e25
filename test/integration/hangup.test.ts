import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectExit, harness, reply, until, type Harness } from './headless-harness.js';
import { ResultSchema } from './headless-schema.js';

// A headless command whose terminal closes (SIGHUP) mid-turn stops the turn
// and leaves its session in Review before it ends, as Ctrl+C does: nothing
// is left InProgress for the next start to recover. The built binary, the
// real Claude Code, the fake model server holding the answer; the database
// is read with sqlite3 right after the process ends.

let h: Harness;

beforeEach(async () => {
  h = await harness();
});

afterEach(async () => {
  await h.close();
});

/** What the database file says, read by the sqlite3 program (no Grove code). */
function sql(query: string): string {
  return execFileSync('sqlite3', ['-readonly', join(h.world.groveHome, 'db', 'grove.db'), query], {
    encoding: 'utf8',
  }).trim();
}

/** Waits until the agent's turn about `task` (not the title prompt) is waiting for the model. */
async function heldTurn(task: string): Promise<void> {
  await until(
    'the turn to wait for the model',
    () =>
      h.server.requests.some((r) => {
        const body = JSON.stringify(r.body);
        return body.includes(task) && !body.includes('Write a title');
      }),
    60_000,
  );
}

describe('a headless command killed by SIGHUP mid-turn', () => {
  it('grove run: the session is in Review when the process has ended', async () => {
    h.utilities();
    h.server.script('anthropic', [
      { when: 'Slow task', delayMs: 300_000, then: { text: reply('Too late.') } },
    ]);
    const run = h.start(['run', 'Slow task']);
    await heldTurn('Slow task');
    expect(sql('SELECT status FROM session')).toBe('InProgress');

    run.child.kill('SIGHUP');
    await run.done;

    expect(sql('SELECT status FROM session')).toBe('Review');
    expect(
      sql("SELECT count(*) FROM session_operation WHERE status IN ('queued', 'running')"),
    ).toBe('0');
  }, 120_000);

  it('grove reply: the session is in Review when the process has ended', async () => {
    h.utilities();
    h.server.script('anthropic', [
      { when: 'First task', text: reply('Done.') },
      { when: 'Slow follow-up', delayMs: 300_000, then: { text: reply('Too late.') } },
    ]);
    const first = await h.grove(['run', '--output', 'json', 'First task']);
    expectExit(first, 0);
    const { sessionId } = ResultSchema.parse(JSON.parse(first.stdout));
    h.utilities();
    const replying = h.start(['reply', sessionId, 'Slow follow-up']);
    await heldTurn('Slow follow-up');
    expect(sql('SELECT status FROM session')).toBe('InProgress');

    replying.child.kill('SIGHUP');
    await replying.done;

    expect(sql('SELECT status FROM session')).toBe('Review');
  }, 120_000);
});
