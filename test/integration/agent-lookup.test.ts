import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { App } from '../../src/app/app.js';
import { AgentLookup } from '../../src/app/services/agent-lookup.js';
import { initialState, type Tab } from '../../src/app/state.js';
import { createAgents } from '../../src/infra/agent/agents.js';
import { silentLogger } from '../../src/infra/log.js';
import { waitUntil } from '../helpers/wait.js';

// The TUI looks for the agent CLIs at start-up without starting them: their
// versions, which only the Projects tab prints, are asked when that tab is
// first shown (Gemini CLI's `--version` costs seconds of CPU at every start).
// The CLIs here are scripts named claude, codex and gemini that write each
// call to a file, found on PATH by the real lookup.

let dir: string;
let calls: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'grove-agent-lookup-'));
  calls = join(dir, 'calls.log');
  for (const name of ['claude', 'codex', 'gemini']) {
    const file = join(dir, name);
    writeFileSync(file, `#!/bin/sh\necho "${name} $*" >> '${calls}'\necho "${name} 1.2.3"\n`);
    chmodSync(file, 0o755);
  }
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const asked = (): string[] =>
  existsSync(calls) ? readFileSync(calls, 'utf8').trim().split('\n') : [];

function lookupOn(tab: Tab): { app: App; lookup: AgentLookup } {
  const app = new App(
    initialState({
      version: 'test',
      columns: 100,
      rows: 30,
      now: 0,
      tab,
      projects: [],
      activeProjectId: null,
      sessions: [],
      settings: {},
    }),
    silentLogger,
  );
  app.onWake(() => setImmediate(() => app.drain()));
  const agents = createAgents({ PATH: `${dir}:/usr/bin:/bin` }, silentLogger);
  return { app, lookup: new AgentLookup(app, agents) };
}

const found = (app: App) => app.state.agents?.filter((a) => a.path !== null).map((a) => a.id);

describe('the agent CLIs at start-up', () => {
  it('are found on PATH without being started, and asked their versions when the Projects tab shows', async () => {
    const { app, lookup } = lookupOn('sessions');
    lookup.start();
    await waitUntil('the CLIs found', () => found(app)?.length === 3);
    expect(app.state.agents?.every((a) => a.version === null && a.unasked)).toBe(true);
    lookup.tabShown('settings');
    lookup.tabShown('sessions');
    expect(asked()).toEqual([]);

    lookup.tabShown('projects');
    await waitUntil('the versions', () => app.state.agents?.every((a) => a.version === '1.2.3'));
    expect(asked().sort()).toEqual(['claude --version', 'codex --version', 'gemini --version']);
    // Once: the tab shown again asks nothing more.
    lookup.tabShown('sessions');
    lookup.tabShown('projects');
    await new Promise((done) => setImmediate(done));
    expect(asked()).toHaveLength(3);
  });

  it('are asked their versions at once by a Grove that starts on the Projects tab', async () => {
    const { app, lookup } = lookupOn('projects');
    lookup.start();
    await waitUntil('the versions', () => app.state.agents?.every((a) => a.version === '1.2.3'));
    expect(asked()).toHaveLength(3);
  });
});
