import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectExit, harness, type Harness } from './headless-harness.js';

// The first Grove processes on a new GROVE_HOME, started at the same moment
// (a `grove run` and a `grove inbox` from two shells): SQLite creates an
// empty file and writes its header only at its first write, and a second
// process that looked in that moment refused the 0-byte file as an empty
// database (DatabaseError.empty). The built binary, six at a time, on a new
// GROVE_HOME each round.

let h: Harness;

beforeEach(async () => {
  h = await harness();
});

afterEach(async () => {
  await h.close();
});

describe('a new database opened by several Grove processes at once', () => {
  it('is opened by all of them, none refusing it as empty, and leaves no file of its making behind', async () => {
    const refusals: string[] = [];
    for (let round = 0; round < 10; round++) {
      const home = join(h.world.dir, `grove-home-${round}`);
      const runs = await Promise.all(
        Array.from({ length: 6 }, () =>
          h.grove(['inbox', '--json'], { cwd: h.world.dir, env: { GROVE_HOME: home } }),
        ),
      );
      for (const run of runs) if (run.code !== 0) refusals.push(run.stderr.trim());
      expect(readdirSync(join(home, 'db')).filter((name) => name.includes('.new-'))).toEqual([]);
    }

    expect(refusals).toEqual([]);
    const last = await h.grove(['inbox', '--json'], {
      cwd: h.world.dir,
      env: { GROVE_HOME: join(h.world.dir, 'grove-home-0') },
    });
    expectExit(last, 0);
    expect(JSON.parse(last.stdout)).toEqual([]);
  });
});
