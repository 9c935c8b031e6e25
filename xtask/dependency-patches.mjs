// Exact, checked edits to dependencies, applied while bundling the app
// (xtask/build.mjs). Grove's forks are not here: ink, string-width and
// @alcalzone/ansi-tokenize are packages of this repository (packages/ink,
// packages/string-width, packages/ansi-tokenize, each README listing its
// changes), installed in their place for every package that uses them.
// What remains are two edits of how the bundle starts, each patched package
// pinned exactly (package.json's `overrides`, or packages/ink/package.json):
//
//   yoga-sync-instantiate, yoga-sync-load (yoga-layout 3.2.1, ink's layout
//     engine): instantiate its WebAssembly synchronously, from the module
//     src/main.ts compiles on another thread, instead of through fetch()
//     and a top-level await: a CommonJS bundle cannot hold the await, and
//     fetch loads Node's HTTP stack at start-up (about 20 ms, 6 MB). The
//     module comes from Grove's entry point (dist/yoga.wasm), which only the
//     bundle has.
//   signal-exit-without-assert (signal-exit 3.0.7, under ink and
//     restore-cursor): its one callback check without loading node:assert
//     (about 5 ms of start-up). Outside the bundle node:assert costs nothing
//     that matters (tests and dev runs load it anyway).
//
// Each one fails the build when its snippet is gone, so an upgrade cannot
// silently undo it, and the app build fails when a patch found no file at
// all. test/unit/dependency-patches.test.ts checks the frames of the fork of
// ink with these patches against ink 8.0.0's; test/unit/patch-plugin.test.ts
// checks the plugin's failures.
import { readFile } from 'node:fs/promises';

/**
 * Exact snippet replacements in the dependency files whose path matches
 * `filter`. The build fails when a snippet is gone (the dependency
 * changed), so an upgrade cannot silently undo a patch.
 */
export function patch(name, filter, replacements) {
  return { name, filter, replacements };
}

/**
 * One esbuild plugin for all of `patches`: esbuild takes a file's contents
 * from the first plugin that returns any, so every patch of one file must be
 * applied by the same callback, in order. With `everyPatchUsed`, a build in
 * which some patch matched no file fails (a dependency moved or was renamed).
 */
export function patchPlugin(patches, { everyPatchUsed }) {
  const filter = new RegExp(patches.map((p) => `(?:${p.filter.source})`).join('|'));
  return {
    name: 'grove-dependency-patches',
    setup(b) {
      const used = new Set();
      b.onStart(() => used.clear());
      b.onLoad({ filter }, async (args) => {
        const mine = patches.filter((p) => p.filter.test(args.path));
        if (mine.length === 0) return undefined;
        let source = await readFile(args.path, 'utf8');
        for (const { name, replacements } of mine) {
          for (const [from, to] of replacements) {
            if (!source.includes(from))
              throw new Error(
                `${name}: ${args.path} no longer contains ${JSON.stringify(from)}; update xtask/dependency-patches.mjs`,
              );
            source = source.replace(from, to);
          }
          used.add(name);
        }
        return { contents: source, loader: 'js' };
      });
      if (everyPatchUsed)
        b.onEnd((result) => {
          if (result.errors.length > 0) return;
          const unused = patches.filter((p) => !used.has(p.name)).map((p) => p.name);
          if (unused.length > 0)
            throw new Error(
              `dependency patches that matched no file: ${unused.join(', ')}; update xtask/dependency-patches.mjs`,
            );
        });
    },
  };
}

const PATCHES = [
  // yoga-layout (ink's layout engine) embeds its WebAssembly as base64 and
  // instantiates it asynchronously through fetch(), which needs a top-level
  // await (impossible in CommonJS) and loads Node's whole HTTP stack at
  // start-up (about 20 ms). Instantiate the same bytes synchronously instead.
  patch(
    'yoga-sync-instantiate',
    /yoga-layout[\\/]dist[\\/]binaries[\\/]yoga-wasm-base64-esm\.js$/,
    [
      [
        'if(h.instantiateWasm)try{',
        'if(h.instantiateSync)return a(new WebAssembly.Instance(h.wasmModule??new WebAssembly.Module(wa()),d)),{};if(h.instantiateWasm)try{',
      ],
    ],
  ),
  // Grove's entry (src/main.ts) compiles dist/yoga.wasm on another thread
  // while it reads and compiles the app, and leaves the module in
  // globalThis.__groveYogaModule; the instance is made from it when it is
  // there, and from the embedded bytes when not (a bundle without the entry,
  // a missing or unreadable file).
  patch('yoga-sync-load', /yoga-layout[\\/]dist[\\/]src[\\/]index\.js$/, [
    [
      'const Yoga = wrapAssembly(await loadYoga());',
      [
        'const groveCompiled = globalThis.__groveYogaModule instanceof WebAssembly.Module ? globalThis.__groveYogaModule : undefined;',
        'const yogaModule = { instantiateSync: true, wasmModule: groveCompiled };',
        'loadYoga(yogaModule);',
        'const Yoga = wrapAssembly(yogaModule);',
      ].join('\n'),
    ],
  ]),
  // signal-exit 3 (under ink and restore-cursor) loads node:assert, and with
  // it Node's whole assertion and diff machinery (about 5 ms of start-up),
  // for one check that its callback is a function. The same check, alone.
  patch('signal-exit-without-assert', /signal-exit[\\/]index\.js$/, [
    [
      "var assert = require('assert')",
      'var assert = { equal: function (actual, expected, message) { if (actual != expected) throw new TypeError(message) } }',
    ],
  ]),
];

/** Every patch, for bundles of any part of the dependencies (the tests bundle single ink files). */
export const dependencyPatches = [patchPlugin(PATCHES, { everyPatchUsed: false })];

/** Every patch, and the build fails if one of them matched no file: for the app bundle. */
export const dependencyPatchesAllUsed = [patchPlugin(PATCHES, { everyPatchUsed: true })];
