import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { BUDGET_KEYS } from '../../src/domain/settings.js';
import { makeReviewWorld, waitFor, type ReviewWorld } from '../helpers/review-world.js';

// The TUI's inbox spans every project, so reading it costs in proportion to
// everything stored. On the two-second refresh timer it is read again only
// when some process wrote to the store (a real SQLite file) since the last
// read, not every time.

let w: ReviewWorld;
let reads = 0;

beforeEach(async () => {
  w = await makeReviewWorld();
  // Count the inbox's reads at the store the controller uses (the real one, called through).
  const operations = w.infra.store.operations;
  const newestFinished = operations.newestFinished.bind(operations);
  reads = 0;
  operations.newestFinished = (kinds, sessionIds) => {
    reads += 1;
    return newestFinished(kinds, sessionIds);
  };
  w.controller.start();
});

afterEach(async () => {
  await w.close();
});

describe('the inbox on the refresh timer', () => {
  it('is not read again while nothing is written, and is once this process writes', async () => {
    await waitFor('the first read of the inbox', () => reads > 0);
    await sleep(500); // the start-up's own writes settle and are read once
    const settled = reads;

    await sleep(4500); // two ticks of the timer, nothing written

    expect(reads).toBe(settled);
    await w.infra.store.settings.setProject(w.projectId, BUDGET_KEYS.sessionTokens, '1000');
    await waitFor('a read after the write', () => reads > settled, 5000);
  });
});
