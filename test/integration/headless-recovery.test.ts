import { spawn, type ChildProcess } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DRIVER_GONE_NOTICE } from '../../src/app/services/recovery.js';
import { DRIVER_GONE_ERROR } from '../../src/cli/headless.js';
import { ownerOf } from '../../src/infra/owner.js';
import { processesWithEnv } from '../helpers/processes.js';
import { withStore } from '../helpers/seed.js';
import { expectExit, harness, reply, show, until, type Harness } from './headless-harness.js';
import { ResultSchema } from './headless-schema.js';

// A headless command waiting behind another Grove process notices when that
// process dies, recovers the session as the TUI's lease watch does, and goes
// on. Real processes: the built binary twice, the real Claude Code, the fake
// model server holding the first turn's answer, kill -9 of the first.

let h: Harness;
const others: ChildProcess[] = [];

beforeEach(async () => {
  h = await harness();
});

afterEach(async () => {
  for (const child of others.splice(0)) child.kill('SIGKILL');
  await h.close();
});

/** A session whose first turn is done (in Review); its id. */
async function reviewSession(): Promise<string> {
  h.utilities();
  h.server.script('anthropic', [{ when: 'Start the work', text: reply('Started.') }]);
  const first = await h.grove(['run', '--output', 'json', 'Start the work']);
  expectExit(first, 0);
  return ResultSchema.parse(JSON.parse(first.stdout)).sessionId;
}

/** Agent processes of this test's Grove processes (they carry its GROVE_HOME). */
function agents(): number[] {
  return processesWithEnv(`GROVE_HOME=${h.world.groveHome}`)
    .filter((p) => !p.cmdline.includes('grove.js'))
    .map((p) => p.pid);
}

describe('grove reply queued behind a turn whose Grove process is killed', () => {
  it('recovers the session, runs its own prompt and exits 0, leaving the session sane', async () => {
    const sessionId = await reviewSession();
    h.server.script('anthropic', [
      { when: 'Slow follow-up', delayMs: 300_000, then: { text: reply('Too late.') } },
      { when: 'Second follow-up', text: reply('Second done.') },
    ]);
    h.utilities();
    const driver = h.start(['reply', sessionId, 'Slow follow-up']);
    await until(
      'the first turn to be waiting for the model',
      () => h.server.requests.some((r) => JSON.stringify(r.body).includes('Slow follow-up')),
      60_000,
    );
    const waiting = h.start(['reply', sessionId, '--progress', 'Second follow-up']);
    await until(
      'the second reply to wait behind the first',
      () => waiting.stderr().includes('Waiting for another Grove process'),
      60_000,
    );

    driver.child.kill('SIGKILL');
    await driver.done;
    const run = await waiting.done;

    expectExit(run, 0);
    expect(run.stdout, show(run)).toBe('Second done.\n');
    expect(run.stderr).toContain('the session was recovered');
    const state = await withStore(h.world.groveHome, async (store) => ({
      session: await store.sessions.get(sessionId),
      operations: (await store.operations.listUnfinished(sessionId)).length,
      transcript: await store.transcript.list(sessionId),
    }));
    expect(state.session?.status).toBe('Review');
    expect(state.operations).toBe(0);
    const after = state.transcript.map((e) => [e.kind, e.content]);
    expect(after).toContainEqual(['notice', DRIVER_GONE_NOTICE]);
    expect(after.filter(([kind]) => kind === 'assistant_answer').map(([, c]) => c)).toEqual([
      'Started.',
      'Second done.',
    ]);
    expect(agents()).toEqual([]);
  }, 180_000);
});

describe('grove reply whose own prompt another Grove process took, and that process is killed', () => {
  it('fails with exit 1, saying the Grove process running its work stopped, and leaves the session in Review', async () => {
    const sessionId = await reviewSession();
    // Another live Grove process, as the database knows it: it runs an operation of the session.
    const other = spawn('sleep', ['600'], { stdio: 'ignore' });
    others.push(other);
    const otherExited = new Promise((resolve) => other.once('exit', resolve));
    const owner = ownerOf(other.pid ?? 0);
    await withStore(h.world.groveHome, async (store) => {
      await store.operations.enqueue(sessionId, 'utility', {}, Date.now(), owner);
      expect((await store.operations.claimNext(sessionId, owner, Date.now()))?.kind).toBe(
        'utility',
      );
    });
    const waiting = h.start(['reply', sessionId, '--progress', 'Never answered']);
    await until(
      'the reply to wait behind the other process',
      () => waiting.stderr().includes('Waiting for another Grove process'),
      60_000,
    );
    // The other process takes the waiting prompt (it holds the session), then is killed.
    const taken = await withStore(h.world.groveHome, (store) =>
      store.operations.claimNext(sessionId, owner, Date.now()),
    );
    expect(taken?.payload['prompt']).toBe('Never answered');

    other.kill('SIGKILL');
    await otherExited;
    const run = await waiting.done;

    expectExit(run, 1);
    expect(run.stderr).toContain(`grove: ${DRIVER_GONE_ERROR}`);
    const state = await withStore(h.world.groveHome, async (store) => ({
      session: await store.sessions.get(sessionId),
      operations: (await store.operations.listUnfinished(sessionId)).length,
      notices: (await store.transcript.list(sessionId))
        .filter((e) => e.kind === 'notice')
        .map((e) => e.content),
    }));
    expect(state.session?.status).toBe('Review');
    expect(state.operations).toBe(0);
    expect(state.notices).toContain(DRIVER_GONE_NOTICE);
  }, 120_000);
});
