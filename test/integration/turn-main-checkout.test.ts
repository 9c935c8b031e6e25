import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import {
  WAIT,
  newSession,
  release,
  repo,
  sessionCalls,
  setUpWorkerWorld,
  startGrove,
  status,
  transcript,
} from '../helpers/worker-harness.js';

// The main checkout during a turn (issue 26, item 1): its status is compared
// before and after only when the agent could write it, i.e. runs unconfined
// (the opt-out). A confined agent cannot (the sandbox binds it read-only;
// agents-confined.test.ts), so a confined turn walks no file of it. The
// worker on real SQLite and git, with the fake `claude` (test/fixtures/fake-claude);
// the write into the main checkout is made while the agent waits, as an
// unconfined agent's command would.

setUpWorkerWorld();

const WARNING = '[Main Checkout Warning]';

async function turnThatWritesMain(unconfined: boolean) {
  const grove = await startGrove();
  const { infra, controller } = grove;
  if (unconfined) {
    // What agents.allowUnconfined gives on a machine without a sandbox engine.
    const agents = infra.agents as { confinement: typeof infra.agents.confinement };
    agents.confinement = () => Promise.resolve({ kind: 'unconfined', reason: 'no engine (test)' });
  }
  const session = await newSession(grove);
  await controller.submitPrompt(session.id, 'work [[file:done.txt]] [[wait:main]]');
  await vi.waitFor(() => expect(sessionCalls()).toHaveLength(1), WAIT);
  writeFileSync(join(repo, 'stray.txt'), 'written during the turn\n');
  release('main');
  await vi.waitFor(async () => expect(await status(infra, session.id)).toBe('Review'), WAIT);
  return {
    notices: (await transcript(infra, session.id)).filter((e) => e.content.startsWith(WARNING)),
    flagged: (await infra.store.sessions.get(session.id))?.mainCheckoutWarning,
  };
}

describe('the main checkout during a turn', () => {
  it('is checked when the agent runs unconfined: a file written there during the turn flags the session', async () => {
    const { notices, flagged } = await turnThatWritesMain(true);
    expect(notices).toHaveLength(1);
    expect(notices[0]?.content).toContain('changed during this turn');
    expect(flagged).toBe(true);
  });

  it('is not read when the agent is confined: it could not write there, so what changed is not its doing', async () => {
    const { notices, flagged } = await turnThatWritesMain(false);
    expect(notices).toEqual([]);
    expect(flagged).toBe(false);
  });
});
