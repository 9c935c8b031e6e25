import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openInfra, type Infra } from '../../src/compose.js';
import {
  MAX_TURNS_KEY,
  MEMORY_FLOOR_KEY,
  type MachineFigures,
} from '../../src/domain/admission.js';
import { gate, type Gate } from '../helpers/fake-model/server.js';
import { startGroveApp, type GroveApp } from '../helpers/grove-app.js';
import { killIfAlive, processesWith } from '../helpers/processes.js';
import { waitUntil } from '../helpers/wait.js';
import { harness, reply, type Harness } from './headless-harness.js';

// The admission gate (issue 27) with real turns: the built-in app core on a
// real SQLite file and git repository, the pinned Claude Code against the fake
// model server. Only the machine's figures are the test's own (a free-memory
// reading it lowers and raises); what they decide is enforced for real: the
// turn is not started, and the agent CLI is not run, until there is room.

const GB = 1024 ** 3;

let h: Harness;
let infra: Infra;
let grove: GroveApp;
let figures: { -readonly [K in keyof MachineFigures]: MachineFigures[K] };

beforeEach(async () => {
  h = await harness();
  figures = { cores: 2, totalBytes: 24 * GB, availableBytes: 20 * GB };
  const real = openInfra(h.env);
  infra = { ...real, runtime: { ...real.runtime, machine: () => Promise.resolve({ ...figures }) } };
});

afterEach(async () => {
  await grove.controller.shutdown();
  await infra.db.close();
  await h.close();
});

async function start(settings: Record<string, string>): Promise<void> {
  for (const [key, value] of Object.entries(settings))
    await infra.store.settings.setGlobal(key, value);
  grove = await startGroveApp(infra, h.repo);
}

async function newSession(): Promise<string> {
  const session = await grove.controller.sessions.create(
    grove.project.id,
    { agent: 'claude', model: 'sonnet', reasoning: 'medium' },
    {},
  );
  await grove.controller.sessions.whenReady(session.id);
  return session.id;
}

/** A turn for `prompt` whose model answer waits for `held` (when given). */
function scriptTurn(prompt: string, held?: Gate): void {
  h.utilities(`Task ${prompt}`);
  const step = { text: reply(`Done: ${prompt}.`) };
  h.server.script('anthropic', [
    held ? { when: prompt, until: held.opened, then: step } : { when: prompt, ...step },
  ]);
}

function asked(prompt: string): boolean {
  return h.server.requests.some((r) => JSON.stringify(r.body).includes(prompt));
}

async function status(id: string): Promise<string | undefined> {
  return (await infra.store.sessions.get(id))?.status;
}

const finished = (id: string) => async () => (await status(id)) === 'Review';

describe('admission by free memory', () => {
  it('keeps a turn queued, visibly, while free memory is under the floor, and starts it when memory rises', async () => {
    figures.availableBytes = 1.2 * GB;
    await start({ [MEMORY_FLOOR_KEY]: '2G' });
    const id = await newSession();
    scriptTurn('Write the memory note');

    expect(await grove.controller.submitPrompt(id, 'Write the memory note')).toBeNull();

    await waitUntil('the turn waits for memory', () => grove.app.state.admission[id]);
    expect(grove.app.state.admission[id]).toEqual({
      kind: 'memory',
      freeBytes: 1.2 * GB,
      floorBytes: 2 * GB,
    });
    await waitUntil('the session says why', async () =>
      (await infra.store.transcript.list(id)).some(
        (e) =>
          e.content ===
          '[Admission] The turn is queued, waiting for memory: 1.2 GB free, needs 2.0 GB.',
      ),
    );
    // Nothing started: the operation is queued and the agent never asked the model.
    const ops = await infra.store.operations.listUnfinished(id);
    expect(ops.map((o) => o.status)).toEqual(['queued']);
    expect(asked('Write the memory note')).toBe(false);

    figures.availableBytes = 3 * GB;

    await waitUntil('the turn ran', finished(id), 60_000);
    expect(asked('Write the memory note')).toBe(true);
    expect(grove.app.state.admission[id]).toBeUndefined();
  });
});

describe('admission by turn slots', () => {
  it('with one slot, runs the turns of three sessions one after another in the order they were sent', async () => {
    await start({ [MAX_TURNS_KEY]: '1' });
    const [a, b, c] = [await newSession(), await newSession(), await newSession()];
    const held = gate();
    scriptTurn('First task', held);
    scriptTurn('Second task');
    scriptTurn('Third task');

    await grove.controller.submitPrompt(a, 'First task');
    await waitUntil('the first turn asks the model', () => asked('First task'), 60_000);
    await grove.controller.submitPrompt(b, 'Second task');
    await grove.controller.submitPrompt(c, 'Third task');

    await waitUntil(
      'both others wait',
      () => grove.app.state.admission[b] && grove.app.state.admission[c],
    );
    expect(grove.app.state.admission[b]).toEqual({ kind: 'slots', running: 1, max: 1 });
    expect(asked('Second task') || asked('Third task')).toBe(false);

    held.open();

    await waitUntil('all three ran', async () => (await status(c)) === 'Review', 120_000);
    const order = ['First task', 'Second task', 'Third task'].map((p) =>
      h.server.requests.findIndex((r) => JSON.stringify(r.body).includes(p)),
    );
    expect(order).toEqual([...order].sort((x, y) => x - y));
    expect(await status(b)).toBe('Review');
  });

  it('gives the slot of a turn whose agent crashed to the next one', async () => {
    await start({ [MAX_TURNS_KEY]: '1' });
    const [a, b] = [await newSession(), await newSession()];
    const never = gate();
    scriptTurn('Crashing task', never);
    scriptTurn('Next task');
    const worktree = (await infra.store.sessions.get(a))?.worktreePath ?? '';

    await grove.controller.submitPrompt(a, 'Crashing task');
    await waitUntil('the first turn asks the model', () => asked('Crashing task'), 60_000);
    await grove.controller.submitPrompt(b, 'Next task');
    await waitUntil('the second waits', () => grove.app.state.admission[b]);

    // The agent's process tree dies mid-turn (its sandbox's leader, killed).
    for (const p of processesWith(worktree)) killIfAlive(p.pid);

    await waitUntil('the next turn ran', finished(b), 120_000);
    expect(asked('Next task')).toBe(true);
    const ops = await infra.store.operations.listUnfinished(a);
    expect(ops).toEqual([]);
    never.open();
  });
});

describe('admission of best-of-N variants', () => {
  it('with one slot, runs the variants of one group one after another, the second waiting visibly', async () => {
    await start({ [MAX_TURNS_KEY]: '1' });
    const held = gate();
    h.utilities('Task Fan out the notes');
    h.server.script('anthropic', [
      { when: 'Fan out the notes', until: held.opened, then: { text: reply('First variant.') } },
      { when: 'Fan out the notes', text: reply('Second variant.') },
    ]);
    const claude = { agent: 'claude' as const, model: 'sonnet', reasoning: 'medium' };

    const { sessions } = await grove.controller.bestOf.start(
      grove.project.id,
      'Fan out the notes',
      [claude, claude],
    );
    const [first, second] = sessions.map((s) => s.id);
    if (!first || !second) throw new Error('two variants expected');

    await waitUntil('one variant asks the model', () => asked('Fan out the notes'), 60_000);
    const waiting = () =>
      [first, second].filter((id) => grove.app.state.admission[id] !== undefined);
    await waitUntil('the other variant waits for the slot', () => waiting().length === 1);
    expect(grove.app.state.admission[waiting()[0] ?? '']).toEqual({
      kind: 'slots',
      running: 1,
      max: 1,
    });
    const modelTurns = () =>
      h.server.requests.filter((r) => {
        const body = JSON.stringify(r.body);
        return body.includes('Fan out the notes') && !body.includes('Write a title');
      }).length;
    const whileHeld = modelTurns();

    held.open();

    await waitUntil(
      'both variants ran',
      async () => (await status(first)) === 'Review' && (await status(second)) === 'Review',
      120_000,
    );
    expect(modelTurns()).toBeGreaterThan(whileHeld);
    expect(waiting()).toEqual([]);
  });
});
