import { afterEach, describe, expect, it } from 'vitest';
import { App } from '../../src/app/app.js';
import { ResourceSampler } from '../../src/app/services/resources.js';
import type { ProcessEntry, ProcessTable } from '../../src/domain/resources.js';
import { bareState } from '../helpers/state.js';

// The sampler reads the process table only while an agent runs, once per
// interval for every session together, and clears the figures when the last
// agent has ended. The table is a fake here; the real one is read in
// test/integration/resources.test.ts.

function entry(pid: number, ppid: number, pgrp: number): ProcessEntry {
  return { pid, ppid, pgrp, state: 'S', cpuTicks: 0, rssPages: 10, startTicks: 1 };
}

const table = (): ProcessTable => ({
  at: Date.now(),
  uptimeSeconds: 10,
  processes: new Map(
    [entry(10, 1, 10), entry(20, 10, 20), entry(30, 10, 30)].map((e) => [e.pid, e]),
  ),
  ticksPerSecond: 100,
  pageBytes: 4096,
  memoryAvailableBytes: 1 << 30,
  memoryTotalBytes: 2 << 30,
  load: [0.5, 0.5, 0.5],
});

let sampler: ResourceSampler | null = null;

afterEach(() => {
  sampler?.stop();
  sampler = null;
});

function setUp(): {
  app: App;
  roots: Map<string, number[]>;
  reads: () => number;
} {
  const app = new App(bareState(), { log: () => {} });
  const roots = new Map<string, number[]>();
  let reads = 0;
  sampler = new ResourceSampler({
    app,
    roots: () => roots,
    read: () => {
      reads += 1;
      return Promise.resolve(table());
    },
    self: 10,
    intervalMs: 20,
  });
  return { app, roots, reads: () => reads };
}

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !check(); i++) await new Promise((done) => setTimeout(done, 5));
  if (!check()) throw new Error('condition not met');
}

describe('the resource sampler', () => {
  it('reads nothing while no agent runs, whatever happens in the app', () => {
    const { app, reads } = setUp();
    for (let i = 0; i < 50; i++) app.emit({ type: 'tick', now: i });

    expect(sampler?.sampling).toBe(false);
    expect(reads()).toBe(0);
    app.drain();
    expect(app.state.resources).toBeNull();
  });

  it('starts on the first event after an agent starts, with one reading for all sessions', async () => {
    const { app, roots, reads } = setUp();
    roots.set('a', [20]);
    roots.set('b', [30]);
    app.emit({ type: 'tick', now: 1 });
    await until(() => reads() >= 1);
    app.drain();

    expect(reads()).toBe(1);
    expect(Object.keys(app.state.resources?.sessions ?? {}).sort()).toEqual(['a', 'b']);
    expect(app.state.resources?.machine.memoryAvailableBytes).toBe(1 << 30);
  });

  it('stops reading and clears the figures once the last agent has ended', async () => {
    const { app, roots, reads } = setUp();
    roots.set('a', [20]);
    app.emit({ type: 'tick', now: 1 });
    await until(() => reads() >= 2);
    roots.clear();
    await until(() => {
      app.drain();
      return app.state.resources === null;
    });
    app.emit({ type: 'tick', now: 2 });

    expect(sampler?.sampling).toBe(false);
  });

  it('reads nothing while paused (the screen is not watched), and again once resumed', async () => {
    const { app, roots, reads } = setUp();
    roots.set('a', [20]);
    sampler?.pause();
    app.emit({ type: 'tick', now: 1 });
    expect(sampler?.sampling).toBe(false);
    expect(reads()).toBe(0);

    sampler?.resume();
    await until(() => reads() >= 1);
  });
});
