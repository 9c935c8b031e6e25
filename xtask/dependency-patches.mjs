// Exact, checked edits to dependencies, applied while bundling the app
// (xtask/build.mjs). ink's own edits are not here: Grove ships its fork of
// ink (packages/ink, whose README lists each change). These are the only
// other packages Grove edits, each pinned exactly in package.json (directly,
// in packages/ink/package.json, or in `overrides`), and why:
//
//   yoga-sync-instantiate, yoga-sync-load (yoga-layout 3.2.1, ink's layout
//     engine): instantiate its WebAssembly synchronously, from the module
//     src/main.ts compiles on another thread, instead of through fetch()
//     and a top-level await: a CommonJS bundle cannot hold the await, and
//     fetch loads Node's HTTP stack at start-up (about 20 ms, 6 MB).
//   string-width-simple-text (string-width 8.3.0) and
//   ansi-tokenize-simple-text (@alcalzone/ansi-tokenize 0.3.2): text whose
//     every code point is a grapheme cluster of its own is measured and cut
//     code point by code point (xtask/bundle/simple-text.mjs) instead of
//     through ICU's grapheme segmenter and a \p{RGI_Emoji} expression (their
//     first use costs about 27 ms and 5 MB). They stay build patches: besides
//     ink, wrap-ansi, cli-truncate, slice-ansi, widest-line and Grove's
//     src/ui/text.ts all call string-width, and ansi-tokenize segments inside
//     itself, so a measuring function in the fork would cover only part of
//     the calls.
//   signal-exit-without-assert (signal-exit 3.0.7, under ink and
//     restore-cursor): its one callback check without loading node:assert
//     (about 5 ms of start-up).
//
// Each one fails the build when its snippet is gone, so an upgrade cannot
// silently undo it, and the app build fails when a patch found no file at
// all. test/unit/simple-text.test.ts checks the simple-text measuring against
// string-width and ansi-tokenize; test/unit/dependency-patches.test.ts checks
// the frames of the fork with these patches against ink 8.0.0's.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

/** xtask/bundle/simple-text.mjs, as an import specifier for patched files. */
const SIMPLE_TEXT = JSON.stringify(
  fileURLToPath(new URL('./bundle/simple-text.mjs', import.meta.url)),
);

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
  // string-width measures every string that is not plain ASCII through ICU's
  // grapheme segmenter and, cluster by cluster, a \p{RGI_Emoji} expression
  // (the first use of the two costs about 27 ms and 5 MB). Grove's frames
  // hold box lines, dots and arrows: text whose every code point is a cluster
  // of its own (xtask/bundle/simple-text.mjs) is measured code point by code
  // point, each width once, the way string-width measures a one-code-point
  // cluster.
  patch('string-width-simple-text', /string-width[\\/]index\.js$/, [
    [
      "import {eastAsianWidth} from 'get-east-asian-width';",
      `import {eastAsianWidth} from 'get-east-asian-width';
import { isSimpleText as groveIsSimpleText, simpleTextWidth as groveSimpleTextWidth } from ${SIMPLE_TEXT};`,
    ],
    [
      String.raw`	if (/^[\u0020-\u007E]*$/.test(string)) {
		return string.length;
	}`,
      String.raw`	if (/^[\u0020-\u007E]*$/.test(string)) {
		return string.length;
	}

	// Grove: text with no multi-code-point cluster (xtask/bundle/simple-text.mjs).
	if (groveIsSimpleText(string)) {
		return groveSimpleTextWidth(string, !ambiguousIsNarrow, visibleCharacterRegex, eastAsianWidth);
	}`,
    ],
  ]),
  // ansi-tokenize splits styled text into grapheme clusters with ICU's
  // segmenter; for text whose every code point is a cluster of its own the
  // code units are the same segments.
  patch('ansi-tokenize-simple-text', /ansi-tokenize[\\/]build[\\/]tokenize\.js$/, [
    [
      'import isFullwidthCodePoint from "is-fullwidth-code-point";',
      `import isFullwidthCodePoint from "is-fullwidth-code-point";
import { isSimpleText as groveIsSimpleText, simpleSegments as groveSimpleSegments } from ${SIMPLE_TEXT};`,
    ],
    [
      'for (const { segment, index } of segmenter.segment(str)) {',
      'for (const { segment, index } of (groveIsSimpleText(str) ? groveSimpleSegments(str) : segmenter.segment(str))) {',
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
