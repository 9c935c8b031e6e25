import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeAgentTmp } from '../../src/infra/agent/confine/leftovers.js';
import { expectExit, harness, reply, until, type Harness } from './headless-harness.js';

// A confined agent gets a private temporary folder, grove-agent-*, in the
// system's temporary folder; its Grove removes it when the agent ends. A Grove
// killed with -9 cannot: the next Grove to start removes the folders of Grove
// processes that are gone, and never one of a Grove still running. The built
// binary, the real Claude Code, the fake model server holding an answer.

let h: Harness;
let tmp: string;

beforeEach(async () => {
  h = await harness();
  tmp = join(h.world.dir, 'tmp');
  mkdirSync(tmp);
});

afterEach(async () => {
  await h.close();
});

const agentFolders = (): string[] => readdirSync(tmp).filter((n) => n.startsWith('grove-agent-'));

describe('the agents’ temporary folders of a killed Grove', () => {
  it('are removed by the next Grove to start; a live Grove’s folder stays', async () => {
    const env = { TMPDIR: tmp };
    // A folder of a live Grove (this test process), one of a process that is gone, and one named the old way (owner unknown).
    const live = makeAgentTmp(tmp);
    const gonePid = spawnSync('true').pid;
    mkdirSync(join(tmp, `grove-agent-${gonePid}-x-Ab12Cd`));
    mkdirSync(join(tmp, 'grove-agent-Xy34Zw'));
    const before = new Set(agentFolders());
    h.utilities();
    h.server.script('anthropic', [
      { when: 'Slow task', delayMs: 300_000, then: { text: reply('Too late.') } },
      { when: 'Quick task', text: reply('Done.') },
    ]);
    const killed = h.start(['run', 'Slow task'], { env });
    const made = (): string[] => agentFolders().filter((n) => !before.has(n));
    await until('the agent to start, confined', () => made().length === 1, 60_000);
    const folder = join(tmp, made()[0] ?? '');
    killed.child.kill('SIGKILL');
    await killed.done;
    expect(existsSync(folder)).toBe(true);

    h.utilities();
    const next = await h.grove(['run', 'Quick task'], { env });

    expectExit(next, 0);
    expect(agentFolders().sort()).toEqual([live.split('/').pop(), 'grove-agent-Xy34Zw'].sort());
  }, 180_000);
});
