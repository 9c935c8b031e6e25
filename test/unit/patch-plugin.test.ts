// How the build applies its edits to dependencies (xtask/dependency-patches.mjs):
// several edits of one file all apply, a vanished snippet or a patch that
// finds no file fails the build, and ink's files (Grove's fork, edited in
// packages/ink) get no edit at build time.
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build, type Plugin } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dependencyPatches, patch, patchPlugin } from '../../xtask/dependency-patches.mjs';

const ROOT = join(import.meta.dirname, '..', '..');
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'grove-patch-plugin-'));
  mkdirSync(join(dir, 'node_modules', 'lib'), { recursive: true });
  writeFileSync(
    join(dir, 'node_modules', 'lib', 'index.js'),
    "export const a = 'first';\nexport const b = 'second';\n",
  );
  writeFileSync(join(dir, 'entry.js'), "export { a, b } from './node_modules/lib/index.js';\n");
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Bundles entry.js with `plugins`; the output text. */
async function bundled(plugins: Plugin[], entry = join(dir, 'entry.js')): Promise<string> {
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'node',
    logLevel: 'silent',
    plugins,
  });
  return result.outputFiles[0]?.text ?? '';
}

const lib = /[\\/]node_modules[\\/]lib[\\/]index\.js$/;

describe('dependency patches', () => {
  it('apply every patch of one file, in order', async () => {
    const out = await bundled([
      patchPlugin(
        [
          patch('one', lib, [["'first'", "'FIRST'"]]),
          patch('two', lib, [["'second'", "'SECOND'"]]),
          patch('three', lib, [["'FIRST'", "'FIRST, then third'"]]),
        ],
        { everyPatchUsed: true },
      ),
    ]);

    expect(out).toContain('"FIRST, then third"');
    expect(out).toContain('"SECOND"');
    expect(out).not.toContain('"second"');
  });

  it('fail the build, naming the patch, when a snippet is gone', async () => {
    const run = bundled([
      patchPlugin([patch('gone', lib, [["'third'", "'x'"]])], { everyPatchUsed: false }),
    ]);

    await expect(run).rejects.toThrow(/gone: .*index\.js no longer contains "'third'"/);
  });

  it('fail the build when a patch matched no file, if every patch must be used', async () => {
    const patches = [
      patch('used', lib, [["'first'", "'FIRST'"]]),
      patch('moved', /[\\/]node_modules[\\/]elsewhere\.js$/, [['x', 'y']]),
    ];

    await expect(bundled([patchPlugin(patches, { everyPatchUsed: true })])).rejects.toThrow(
      /matched no file: moved/,
    );
    // The lenient form (bundles of a single dependency file) builds.
    expect(await bundled([patchPlugin(patches, { everyPatchUsed: false })])).toContain('"FIRST"');
  });

  it("leave ink's files to the fork: its reconciler holds its changes, and no patch edits it", async () => {
    const reconciler = join(ROOT, 'node_modules', 'ink', 'build', 'reconciler.js');
    // The file alone: whatever it imports stays out.
    const alone: Plugin = {
      name: 'alone',
      setup(b) {
        b.onResolve({ filter: /.*/ }, (args) =>
          args.kind === 'entry-point' ? undefined : { path: args.path, external: true },
        );
      },
    };
    const out = await bundled([alone, ...dependencyPatches], reconciler);

    // packages/ink/README.md, change 5 (commits that changed no node)
    expect(out).toContain('groveTreeChanged');
    // change 7 (the props diff without arrays)
    expect(out).toContain('changed ??= {}');
    expect(out).not.toContain('hasChanges');
    expect(out).toBe(await bundled([alone], reconciler));
  });
});
