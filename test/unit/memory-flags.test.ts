// Each V8 flag Grove sets after the first frame is guarded (src/memory-flags.ts):
// on a V8 the pinned Node.js versions do not cover, only the flags its own
// `--v8-options` lists are set, so an unknown one never reaches V8, which would
// print "Error: unrecognized flag" over the frame.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  MEMORY_FLAGS,
  flagName,
  nodeV8Flags,
  parseV8Options,
  setMemoryFlags,
} from '../../src/memory-flags.js';

const MODULE = join(import.meta.dirname, '..', '..', 'src', 'memory-flags.ts');

function fakeV8(v8Version: string, known: readonly string[] | null) {
  const set: string[] = [];
  let asked = 0;
  return {
    set,
    asked: () => asked,
    deps: {
      v8Version,
      set: (flag: string) => {
        set.push(flag);
      },
      knownFlags: () => {
        asked += 1;
        return Promise.resolve(known === null ? null : new Set(known));
      },
    },
  };
}

describe('setting the memory flags', () => {
  it('sets every flag on a checked V8 without asking for its list', async () => {
    const v8 = fakeV8('13.6.233.17-node.53', null);
    expect(await setMemoryFlags(v8.deps)).toEqual(MEMORY_FLAGS);
    expect(v8.set).toEqual(MEMORY_FLAGS);
    expect(v8.asked()).toBe(0);
  });

  it('on another V8 sets only the flags its list names', async () => {
    const v8 = fakeV8('15.1.0', ['heap-growing-percent', 'expose-gc']);
    expect(await setMemoryFlags(v8.deps)).toEqual(['--heap-growing-percent=25', '--expose-gc']);
    expect(v8.set).toEqual(['--heap-growing-percent=25', '--expose-gc']);
    expect(v8.asked()).toBe(1);
  });

  it('sets nothing on another V8 whose list cannot be had', async () => {
    const v8 = fakeV8('11.3.0', null);
    expect(await setMemoryFlags(v8.deps)).toEqual([]);
    expect(v8.set).toEqual([]);
  });

  it('leaves out a flag V8 refuses and sets the others', async () => {
    const set: string[] = [];
    const flags = await setMemoryFlags({
      v8Version: '12.4.254',
      set: (flag) => {
        if (flag.startsWith('--heap-growing')) throw new Error('refused');
        set.push(flag);
      },
      knownFlags: () => Promise.resolve(null),
    });
    expect(flags).toEqual(['--semi-space-growth-factor=1', '--expose-gc']);
    expect(set).toEqual(flags);
  });

  it('names flags as --v8-options lists them', () => {
    expect(flagName('--semi-space-growth-factor=1')).toBe('semi-space-growth-factor');
    expect(flagName('--no-expose_gc')).toBe('expose-gc');
    expect([
      ...parseV8Options('Options:\n  --expose-gc (expose gc extension)\n  --max_lazy (x)\n'),
    ]).toEqual(['expose-gc', 'max-lazy']);
  });

  it("reads this Node's own list, which has every flag", async () => {
    const known = await nodeV8Flags();
    for (const flag of MEMORY_FLAGS) expect(known, flag).toContain(flagName(flag));
    expect(known).not.toContain('grove-no-such-flag');
  });

  it('prints nothing for a flag this V8 does not know, where V8 itself would', () => {
    // A real V8 in its own process, taken for one the guard has not checked.
    const script = `
      import { setFlagsFromString } from 'node:v8';
      import { nodeV8Flags, setMemoryFlags } from ${JSON.stringify(MODULE)};
      const deps = { v8Version: '99.0.0', set: setFlagsFromString, knownFlags: nodeV8Flags };
      const set = await setMemoryFlags(deps, ['--grove-no-such-flag=1', '--heap-growing-percent=25']);
      process.stdout.write(JSON.stringify(set));
      if (process.argv[1] === 'unguarded') setFlagsFromString('--grove-no-such-flag=1');
    `;
    const run = (mode: string) =>
      spawnSync(process.execPath, ['--input-type=module', '-e', script, mode], {
        encoding: 'utf8',
      });
    const guarded = run('guarded');
    expect(guarded.status).toBe(0);
    expect(guarded.stdout).toBe('["--heap-growing-percent=25"]');
    expect(guarded.stderr).toBe('');
    // The same V8 given the flag: what the guard keeps off the screen.
    expect(run('unguarded').stderr).toContain('unrecognized flag --grove-no-such-flag');
  });
});
