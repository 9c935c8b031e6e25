import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { agentEnv } from '../helpers/agent-env.js';
import { agentWorldEnv, makeRepo, newSession, startGrove } from '../helpers/grove-env.js';
import { processesWithEnv } from '../helpers/processes.js';
import type { TmuxTerminal } from '../helpers/tmux.js';
import { waitUntil } from '../helpers/wait.js';
import { setUpE2eWorld } from '../helpers/e2e-world.js';
import { reply } from '../helpers/fake-model/reply.js';

// No agent outlives the TUI: not the title-generation agent when the person
// quits with `q`, not a session's agent when the TUI is killed.

const e2e = setUpE2eWorld();
let repo: string;

beforeEach(() => {
  repo = makeRepo(e2e.world);
});

/** The agent processes this test's Grove started (they carry this test's model server address; GROVE_HOME is never passed to an agent). */
function agents(): number[] {
  return processesWithEnv(`ANTHROPIC_BASE_URL=${e2e.server.url}`)
    .filter((p) => !p.cmdline.includes('grove.js'))
    .map((p) => p.pid);
}

async function start(): Promise<TmuxTerminal> {
  e2e.term = await startGrove(e2e.world, repo, {
    env: agentWorldEnv(e2e.world, agentEnv(e2e.server, e2e.world.home)),
    columns: 120,
    rows: 34,
  });
  await e2e.term.waitFor('No sessions yet.');
  return e2e.term;
}

describe('quitting the TUI', () => {
  it('with q while the title agent is still working ends that agent too', async () => {
    e2e.server.script('anthropic', [
      {
        when: 'Write a title for a coding task',
        delayMs: 120_000,
        then: { text: reply('Too late') },
      },
      { when: 'Say hello', text: reply('Hello there.') },
      { when: 'Write the git commit message for the changes', text: reply('Nothing') },
    ]);
    const t = await start();
    await newSession(t, 'Say hello');
    await t.waitFor('Hello there.', 20_000);
    await waitUntil(
      'the title agent to be running',
      () =>
        e2e.server.requests.some((r) =>
          JSON.stringify(r.body).includes('Write a title for a coding task'),
        ),
      20_000,
    );
    expect(agents().length).toBeGreaterThan(0);

    await t.keys('q');
    await t.waitForGone('Enter reply');
    await t.keys('q');
    await t.waitFor('Quit Grove?');
    await t.keys('y');
    await t.waitForExit(15_000);

    await waitUntil('no agent process to be left', () => agents().length === 0, 10_000);
  });
});

describe('agent detection', () => {
  it("ends an agent CLI's --version that is still running when the person quits", async () => {
    // A `gemini` first on PATH that answers --version slowly and shrugs off SIGTERM and SIGHUP,
    // as a large CLI busy starting up can.
    const slow = join(e2e.world.dir, 'slow-bin');
    mkdirSync(slow);
    writeFileSync(join(slow, 'gemini'), "#!/bin/sh\ntrap '' TERM HUP\nexec sleep 60\n");
    chmodSync(join(slow, 'gemini'), 0o755);
    const env = agentWorldEnv(e2e.world, agentEnv(e2e.server, e2e.world.home));
    e2e.term = await startGrove(e2e.world, repo, {
      env: { ...env, PATH: `${slow}:${env['PATH'] ?? ''}` },
      columns: 120,
      rows: 34,
    });
    await e2e.term.waitFor('No sessions yet.');
    const versions = (): number[] =>
      processesWithEnv(`ANTHROPIC_BASE_URL=${e2e.server.url}`)
        .filter((p) => p.cmdline.startsWith('sleep 60'))
        .map((p) => p.pid);
    // The versions are asked when the Projects tab is first shown, not at start-up.
    await e2e.term.keys('Tab', 'Tab');
    await e2e.term.waitFor('Agent CLIs');
    await waitUntil('the slow --version to be running', () => versions().length > 0, 20_000);

    await e2e.term.keys('q');
    await e2e.term.waitFor('Quit Grove?');
    await e2e.term.keys('y');
    await e2e.term.waitForExit(15_000);

    await waitUntil('the --version process to be gone', () => versions().length === 0, 5_000);
  });
});

describe.each(['SIGKILL', 'SIGTERM', 'SIGHUP'] as const)('the TUI ended by %s', (signal) => {
  it("while a turn runs leaves none of the session's agent processes behind", async () => {
    e2e.server.script('anthropic', [
      { when: 'Write a title for a coding task', text: reply('Slow one') },
      { when: 'Take your time', delayMs: 120_000, then: { text: reply('Too late') } },
    ]);
    const t = await start();
    await newSession(t, 'Take your time');
    await waitUntil('the session agent to be running', () => agents().length > 0, 20_000);
    const pid = await t.pid();

    process.kill(pid, signal);

    // On SIGTERM and SIGHUP Grove first lets running turns settle (up to its 10 s stop grace),
    // so the wait is longer than that: what is checked is that none is left, not how fast.
    await waitUntil('no agent process to be left', () => agents().length === 0, 30_000);
  });
});
