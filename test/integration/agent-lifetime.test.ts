import { readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { harness, reply, until, type Harness } from './headless-harness.js';
import { liveGroupMembers, processesWith } from '../helpers/processes.js';

// No agent outlives the Grove process that started it, however that process
// ends. The real Claude Code runs a shell command that waits for a file the
// test creates only after Grove is gone, then writes late.txt: were the
// agent still alive, it would write.

let h: Harness;

beforeEach(async () => {
  h = await harness();
});

afterEach(async () => {
  await h.close();
});

/** Every file named `name` under `dir`. */
function findFiles(dir: string, name: string): string[] {
  let out: string[] = [];
  let entries: string[] = [];
  try {
    entries = readdirSync(dir);
  } catch {
    return out;
  }
  for (const entry of entries) {
    const path = join(dir, entry);
    if (entry === name) out.push(path);
    try {
      if (statSync(path).isDirectory() && entry !== '.git') out = out.concat(findFiles(path, name));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

describe.each(['SIGKILL', 'SIGTERM', 'SIGHUP'] as const)('grove run ended by %s', (signal) => {
  it('leaves no agent process behind, and nothing is written after it is gone', async () => {
    const go = join(h.world.dir, `go-${signal}`);
    h.server.script('anthropic', [
      { when: 'Write a title for a coding task', text: reply('A slow task') },
      {
        toolCall: {
          kind: 'shell',
          command: `while [ ! -e '${go}' ]; do sleep 0.1; done; echo late > late.txt`,
        },
      },
      { text: reply('done') },
    ]);
    const running = h.start(['run', 'Do the slow task']);
    await until('the agent to run the slow command', () => processesWith(go).length > 0, 60_000);
    const groups = new Set(processesWith(go).map((p) => p.pgid));

    running.child.kill(signal);
    await running.done;

    await until(
      'every agent process to be gone',
      () =>
        processesWith(go).length === 0 &&
        [...groups].every((g) => liveGroupMembers(g).length === 0),
      10_000,
    );
    writeFileSync(go, '');
    expect(processesWith(go)).toEqual([]);
    expect(findFiles(h.world.groveHome, 'late.txt')).toEqual([]);
  });
});

describe('the next Grove start after a Grove process was killed', () => {
  it('sweeps the records the killed process left, before it runs anything', async () => {
    const go = join(h.world.dir, 'go-restart');
    h.server.script('anthropic', [
      { when: 'Write a title for a coding task', text: reply('A slow task') },
      {
        toolCall: {
          kind: 'shell',
          command: `while [ ! -e '${go}' ]; do sleep 0.1; done; echo late > late.txt`,
        },
      },
    ]);
    const running = h.start(['run', 'Do the slow task']);
    await until('the agent to run the slow command', () => processesWith(go).length > 0, 60_000);
    running.child.kill('SIGKILL');
    await running.done;
    const left = readdirSync(join(h.world.groveHome, 'run', 'agents'));
    h.server.script('anthropic', [
      { when: 'Write a title for a coding task', text: reply('Next') },
      { text: reply('next done') },
    ]);

    const next = await h.grove(['run', 'Next task']);

    expect(next.code).toBe(0);
    expect(left.length).toBeGreaterThan(0);
    expect(processesWith(go)).toEqual([]);
    expect(readdirSync(join(h.world.groveHome, 'run', 'agents'))).toEqual([]);
  });
});
