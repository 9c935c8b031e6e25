import { beforeEach, describe, expect, it } from 'vitest';
import { agentEnv } from '../helpers/agent-env.js';
import { agentWorldEnv, makeRepo, newSession, runGrove, startGrove } from '../helpers/grove-env.js';
import { waitUntil } from '../helpers/wait.js';
import { setUpE2eWorld } from '../helpers/e2e-world.js';
import { reply } from '../helpers/fake-model/reply.js';

// Issue 27, "See it": while a session's agent runs, the list shows its
// process tree's CPU and memory in columns a narrow screen leaves out, the
// header the machine's free memory and Grove's total, and `grove ls --json`
// the same figures. The built binary in tmux, the real Claude Code, the
// model's answer held so the agent keeps running.

const e2e = setUpE2eWorld();
let repo: string;

beforeEach(() => {
  repo = makeRepo(e2e.world);
});

describe('the resource figures of a running agent', () => {
  it('show in the list at 120 columns, go at 60, and come in grove ls --json', async () => {
    e2e.server.script('anthropic', [
      { when: 'Write a title for a coding task', text: reply('Busy scripted task') },
      { when: 'Busy scripted task', delayMs: 300_000, then: { text: reply('Too late.') } },
    ]);
    const env = agentWorldEnv(e2e.world, agentEnv(e2e.server, e2e.world.home));
    const t = await startGrove(e2e.world, repo, { env, columns: 120, rows: 30 });
    e2e.term = t;
    await t.waitFor('No sessions yet.');
    await newSession(t, 'Busy scripted task');
    await waitUntil(
      'the turn to wait for the model',
      () =>
        e2e.server.requests.some((r) => {
          const body = JSON.stringify(r.body);
          return body.includes('Busy scripted task') && !body.includes('Write a title');
        }) || undefined,
      30_000,
    );
    await t.keys('q');
    await t.waitForGone('Enter reply');

    // The columns' titles, a figure in MB in the session's row, and the header's machine figures.
    const wide = await t.waitFor(/InProgress\s+\S+\s+[\d.]+%\s+[\d.]+M/, 15_000);
    expect(wide).toMatch(/CPU\s+Mem/);
    expect(wide).toMatch(/[\d.]+ [kMGT]?B free {2}load [\d.]+ {2}Grove [\d.]+ MB/);

    await t.resize(60, 30);
    const narrow = await t.waitForGone(/CPU\s+Mem/);
    expect(narrow).not.toMatch(/InProgress.*%/);
    expect(narrow).not.toMatch(/\d+M\s*$/m);

    const listed = await runGrove(env, repo, ['ls', '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    const [item] = JSON.parse(listed.stdout) as {
      resources: {
        cpuPercent: number;
        rssBytes: number;
        processes: number;
        sampledAt: string;
      } | null;
    }[];
    expect(item?.resources?.processes).toBeGreaterThan(1);
    expect(item?.resources?.rssBytes).toBeGreaterThan(10 * 1024 * 1024);
    expect(item?.resources?.cpuPercent).toBeGreaterThanOrEqual(0);
    expect(Date.parse(item?.resources?.sampledAt ?? '')).toBeGreaterThan(0);
  });

  it('are null in grove ls --json while no agent runs', async () => {
    const env = agentWorldEnv(e2e.world, agentEnv(e2e.server, e2e.world.home));
    e2e.server.script('anthropic', [
      { when: 'Write a title for a coding task', text: reply('Quick scripted task') },
      { when: 'Quick scripted task', text: reply('Done.') },
    ]);
    const run = await runGrove(env, repo, ['run', 'Quick scripted task']);
    expect(run.code, run.stderr).toBe(0);

    const listed = await runGrove(env, repo, ['ls', '--json']);
    const [item] = JSON.parse(listed.stdout) as { resources: unknown }[];
    expect(item).toHaveProperty('resources', null);
  });
});
