import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeRepo } from '../helpers/grove-env.js';
import {
  expectExit,
  harness,
  reply,
  until,
  type Harness,
  type Running,
} from './headless-harness.js';
import { ResultSchema } from './headless-schema.js';

// `grove watch --json`: the built binary follows a real SQLite store while
// other `grove` processes (the real Claude Code, the fake model server) run
// turns, and prints each change as one JSON object per line.

let h: Harness;

beforeEach(async () => {
  h = await harness();
});

afterEach(async () => {
  await h.close();
});

type Event = Record<string, unknown> & { event: string };

function events(watch: Running): Event[] {
  return watch
    .stdout()
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Event);
}

async function startWatch(): Promise<Running> {
  const watch = h.start(['watch', '--json'], { cwd: h.world.dir, input: null });
  await until('the ready line', () => events(watch).some((e) => e.event === 'watch.ready'));
  return watch;
}

function seen(watch: Running, event: string, sessionId: string): Event[] {
  return events(watch).filter(
    (e) =>
      e.event === event &&
      (e['sessionId'] === sessionId ||
        (e['item'] as { sessionId?: string } | undefined)?.sessionId === sessionId),
  );
}

describe('grove watch --json', () => {
  it('reports a new session, its statuses, its finished turn and its inbox item coming and going, made by other processes', async () => {
    h.utilities();
    h.server.script('anthropic', [
      {
        when: 'Greet the user',
        text: reply('', {
          questions: [{ text: 'Which greeting should I use?', options: ['hello', 'hi'] }],
        }),
      },
    ]);
    const watch = await startWatch();
    expect(events(watch)).toEqual([
      expect.objectContaining({ event: 'watch.ready', sessions: 0, inbox: 0 }),
    ]);

    const asked = await h.grove(['run', '--output', 'json', 'Greet the user']);
    expectExit(asked, 3);
    const { sessionId } = ResultSchema.parse(JSON.parse(asked.stdout));
    await until(
      'the question in the inbox',
      () => seen(watch, 'inbox.added', sessionId).length > 0,
    );
    // The turn's end is written just after the session's status (the question): its event may come a reading later.
    await until(
      'the first turn finished',
      () => seen(watch, 'turn.finished', sessionId).length > 0,
    );
    expect(seen(watch, 'session.created', sessionId)).toHaveLength(1);
    expect(seen(watch, 'turn.finished', sessionId)).toEqual([
      expect.objectContaining({ kind: 'start_prompt', status: 'done', error: null }),
    ]);
    const added = seen(watch, 'inbox.added', sessionId);
    expect(added.map((e) => [e['initial'], (e['item'] as { kind: string }).kind])).toEqual([
      [false, 'question'],
    ]);
    const statuses = seen(watch, 'session.status', sessionId).map((e) => e['status']);
    expect(statuses.at(-1)).toBe('Question');

    h.utilities('Greet the user');
    h.server.script('anthropic', [{ when: 'Use hi please', text: reply('Used hi.') }]);
    const answered = await h.grove(['reply', sessionId.slice(0, 8), 'Use hi please']);
    expectExit(answered, 0);
    await until(
      'the question leaving the inbox',
      () => seen(watch, 'inbox.removed', sessionId).length > 0,
    );
    await until('the second turn', () => seen(watch, 'turn.finished', sessionId).length === 2);
    expect(seen(watch, 'session.status', sessionId).at(-1)?.['status']).toBe('Review');

    // Canceled, it leaves the live sessions: its last event says so.
    expectExit(await h.grove(['cancel', sessionId.slice(0, 8), '--yes']), 0);
    await until('the cancel', () =>
      seen(watch, 'session.status', sessionId).some((e) => e['status'] === 'Canceled'),
    );
    expect(seen(watch, 'session.removed', sessionId)).toEqual([]);

    // Every line is one event; nothing was reported twice.
    const lines = watch.stdout().trim().split('\n');
    expect(new Set(lines).size).toBe(lines.length);

    watch.child.kill('SIGINT');
    const done = await watch.done;
    expect(done.code).toBe(0);
    expect(done.stderr).toBe('');
  });

  it('starts with the items already waiting, marked initial, in every project', async () => {
    const other = makeRepo(h.world, 'other');
    h.utilities('Fail please');
    h.server.script('anthropic', [
      {
        when: 'Fail please',
        error: {
          status: 500,
          body: { type: 'error', error: { type: 'api_error', message: 'the model broke' } },
        },
      },
    ]);
    const failed = await h.grove(['run', '-C', other, '--output', 'json', 'Fail please']);
    expectExit(failed, 1);
    const { sessionId } = ResultSchema.parse(JSON.parse(failed.stdout));

    const watch = await startWatch();
    const [first, ready, ...rest] = events(watch);
    expect(first).toMatchObject({
      event: 'inbox.added',
      initial: true,
      item: { kind: 'failedTurn', sessionId, project: 'other' },
    });
    expect(ready).toMatchObject({ event: 'watch.ready', sessions: 1, inbox: 1 });
    expect(rest).toEqual([]);
    watch.child.kill('SIGTERM');
    expect((await watch.done).code).toBe(0);
  });

  it('ends without a word when its reader goes away', async () => {
    const watch = h.start(['watch', '--json'], { cwd: h.world.dir, input: null });
    watch.child.stdout?.destroy();
    const done = await watch.done;
    expect(done.code).toBe(141);
    expect(watch.stderr()).toBe('');
  });

  it('refuses an unknown flag with the usage and exit 2', async () => {
    const run = await h.grove(['watch', '--follow']);
    expectExit(run, 2);
    expect(run.stderr).toContain('grove watch');
  });
});
