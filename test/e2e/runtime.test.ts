// Grove on the Node.js versions people run: it starts and quits cleanly, again
// and again, and an older Node is turned away with one clear line.
import { execFileSync, spawnSync } from 'node:child_process';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  GROVE_BIN,
  ROOT,
  makeRepo,
  makeWorld,
  startGrove,
  type GroveWorld,
} from '../helpers/grove-env.js';
import { seedSessions } from '../helpers/seed.js';
import { TmuxTerminal } from '../helpers/tmux.js';

let world: GroveWorld;

beforeEach(() => {
  world = makeWorld();
});

afterEach(() => {
  world.cleanup();
});

describe('starting and quitting', () => {
  it('runs fifty starts and quits in a row without an abort', async () => {
    const repo = makeRepo(world);
    // Sessions in the list, so every start prepares and finalizes statements.
    await seedSessions(
      world.groveHome,
      repo,
      Array.from({ length: 30 }, (_, i) => ({
        title: `Session ${i}`,
        status: i % 2 === 0 ? ('Review' as const) : ('Done' as const),
      })),
    );
    const exits: number[] = [];
    for (let i = 0; i < 50; i++) {
      const term = await startGrove(world, repo);
      try {
        await term.waitFor('Session 28');
        await term.keys('q');
        // Sessions in Review make Grove ask first.
        await term.waitFor('Quit Grove?');
        await term.keys('y');
        exits.push(await term.waitForExit());
        expect(await term.screen()).not.toMatch(/Assertion failed|Aborted|core dumped/);
      } finally {
        await term.kill();
      }
    }
    expect(exits).toEqual(Array.from({ length: 50 }, () => 0));
  }, 300_000);
});

describe('the Node.js version', () => {
  it('turns an older Node away with one line naming the versions needed, and exit 1', () => {
    const oldBin = execFileSync(process.execPath, [`${ROOT}/xtask/node.mjs`, 'bin', 'too-old'], {
      encoding: 'utf8',
    }).trim();
    const result = spawnSync(`${oldBin}/node`, [GROVE_BIN, 'ls'], {
      cwd: makeRepo(world),
      env: world.env(),
      encoding: 'utf8',
    });
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^grove: Node\.js 20\.\d+\.\d+ is too old: Grove needs Node\.js 22\.19\.0 or newer/,
    );
  });

  it('says on the first screen that npm start runs Grove on the pinned Node instead of an older one', async () => {
    const oldBin = execFileSync(process.execPath, [`${ROOT}/xtask/node.mjs`, 'bin', 'too-old'], {
      encoding: 'utf8',
    }).trim();
    // What `npm start` runs, as npm runs it; the pinned Node from the cache this run already has.
    const cache =
      process.env['GROVE_NODE_CACHE'] ??
      join(process.env['XDG_CACHE_HOME'] || join(homedir(), '.cache'), 'grove-node');
    const term = await TmuxTerminal.start({
      command: [`${oldBin}/node`, `${ROOT}/xtask/with-node.mjs`, 'node', GROVE_BIN],
      cwd: makeRepo(world),
      env: world.env({ npm_lifecycle_event: 'start', GROVE_NODE_CACHE: cache }),
      columns: 80,
      rows: 24,
    });
    try {
      const screen = await term.waitFor(/too old for Grove/, 20_000);
      expect(screen).toMatch(
        /Node\.js 20\.\d+\.\d+ is too old for Grove \(needs 22\.19\+\): running on Node 24\.\d+\.\d+/,
      );
      expect(screen).toContain('Sessions');
    } finally {
      await term.kill();
    }
  }, 60_000);
});
