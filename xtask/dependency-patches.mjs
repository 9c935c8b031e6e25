// Exact, checked edits to dependencies, applied while bundling (xtask/build.mjs).
// Each one fails the build when its snippet is gone, so an upgrade cannot
// silently undo it. test/unit/dependency-patches.test.ts checks that the
// patched ink output is identical to the original.
import { readFile } from 'node:fs/promises';

/**
 * Replaces exact snippets in one dependency file. The build fails when a
 * snippet is gone (the dependency changed), so an upgrade cannot silently
 * undo a patch.
 */
export function patch(name, filter, replacements) {
  return {
    name,
    setup(b) {
      b.onLoad({ filter }, async (args) => {
        let source = await readFile(args.path, 'utf8');
        for (const [from, to] of replacements) {
          if (!source.includes(from))
            throw new Error(
              `${name}: ${args.path} no longer contains ${JSON.stringify(from)}; update xtask/dependency-patches.mjs`,
            );
          source = source.replace(from, to);
        }
        return { contents: source, loader: 'js' };
      });
    },
  };
}

// Added to the top of ink's output.js (after its imports).
const PRELUDE = `
// --- Grove: faster frames (xtask/dependency-patches.mjs) ---
// One blank cell object for every empty cell (cells are replaced, never changed).
const BLANK_CELL = Object.freeze({ type: 'char', value: ' ', fullWidth: false, styles: Object.freeze([]) });
// Characters in a run of the same style share one styles array, so comparing
// neighbours is usually one reference check.
function sharedStyledChars(tokens) {
    let codes = [];
    let shared = codes;
    const chars = [];
    for (const token of tokens) {
        if (token.type === 'ansi') {
            codes = reduceAnsiCodesIncremental(codes, [token]);
            shared = null;
        }
        else if (token.type === 'char') {
            shared ??= [...codes];
            chars.push({ ...token, styles: shared });
        }
    }
    return chars;
}
function sameStyles(a, b) {
    if (a === b) return true;
    if (a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) {
        if (a[i].code !== b[i].code || a[i].endCode !== b[i].endCode) return false;
    }
    return true;
}
// styledCharsToString, skipping the diff between neighbours of the same style (always empty).
function fastStyledCharsToString(chars) {
    let ret = '';
    for (let i = 0; i < chars.length; i++) {
        const char = chars[i];
        if (i === 0) ret += ansiCodesToString(char.styles);
        else if (!sameStyles(chars[i - 1].styles, char.styles)) ret += ansiCodesToString(diffAnsiCodes(chars[i - 1].styles, char.styles));
        ret += char.value;
        if (i === chars.length - 1 && char.styles.length > 0) ret += ansiCodesToString(diffAnsiCodes(char.styles, []));
    }
    return ret;
}
// The tokenized lines and widths are kept across frames (ink makes a new
// Output per frame), bounded.
let sharedOutputCaches;
function outputCaches() {
    if (!sharedOutputCaches || sharedOutputCaches.styledChars.size > 2000 || sharedOutputCaches.widths.size > 20000) sharedOutputCaches = new OutputCaches();
    return sharedOutputCaches;
}
// --- end Grove ---
`;

// Added to ink's squash-text-nodes.js: the cheap test that lets plain text
// (and text whose only escapes are SGR colours, as Grove's own styling
// makes) skip ink's sanitizer, which returns such text unchanged but costs
// a Unicode regex pass, or a full tokenization, per text node per frame.
const SQUASH_PRELUDE = `
// --- Grove: sanitize only text that needs it (xtask/dependency-patches.mjs) ---
const GROVE_NEEDS_SANITIZING = /[\\u0000-\\u0008\\u000b-\\u001a\\u001c-\\u001f\\u007f-\\u009f]|\\u001b(?!\\[[\\d;]*m)/;
const GROVE_SGR_BEFORE_MARK = /\\u001b\\[[\\d;]*m\\p{M}/u;
function groveNeedsSanitizing(text) {
    return GROVE_NEEDS_SANITIZING.test(text) || (text.includes('\\u001b') && GROVE_SGR_BEFORE_MARK.test(text));
}
// --- end Grove ---
`;

export const dependencyPatches = [
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
        'if(h.instantiateSync)return a(new WebAssembly.Instance(new WebAssembly.Module(wa()),d)),{};if(h.instantiateWasm)try{',
      ],
    ],
  ),
  patch('yoga-sync-load', /yoga-layout[\\/]dist[\\/]src[\\/]index\.js$/, [
    [
      'const Yoga = wrapAssembly(await loadYoga());',
      'const yogaModule = { instantiateSync: true };\nloadYoga(yogaModule);\nconst Yoga = wrapAssembly(yogaModule);',
    ],
  ]),
  // ink builds each frame cell by cell (one object per cell, a style diff per
  // cell): about half of a full frame's time. Same output, less work: shared
  // blank cells, shared style arrays within a run, no diff between cells of
  // one style, tokenized lines kept across frames.
  patch('ink-faster-output', /ink[\\/]build[\\/]output\.js$/, [
    [
      "import { styledCharsFromTokens, styledCharsToString, tokenize, } from '@alcalzone/ansi-tokenize';",
      `import { ansiCodesToString, diffAnsiCodes, reduceAnsiCodesIncremental, styledCharsToString, tokenize, } from '@alcalzone/ansi-tokenize';${PRELUDE}`,
    ],
    [
      'cached = styledCharsFromTokens(tokenize(line)).filter(',
      'cached = sharedStyledChars(tokenize(line)).filter(',
    ],
    ['caches = new OutputCaches();', 'caches = outputCaches();'],
    [
      `row.push({
                    type: 'char',
                    value: ' ',
                    fullWidth: false,
                    styles: [],
                });`,
      'row.push(BLANK_CELL);',
    ],
    [
      'return styledCharsToString(lineWithoutEmptyItems).trimEnd();',
      'return fastStyledCharsToString(lineWithoutEmptyItems).trimEnd();',
    ],
  ]),
  // ink sanitizes every text node's text on every frame (for measuring and
  // for drawing): about a tenth of Grove's CPU with twenty sessions streaming.
  // Text with no control character but tab and newline, and no escape but
  // SGR colours not followed by a combining mark, comes out of the sanitizer
  // unchanged, so it skips it. Everything else still goes through it.
  patch('ink-sanitize-only-when-needed', /ink[\\/]build[\\/]squash-text-nodes\.js$/, [
    [
      "import sanitizeAnsi from './sanitize-ansi.js';",
      `import sanitizeAnsi from './sanitize-ansi.js';${SQUASH_PRELUDE}`,
    ],
    [
      "text = sanitizeAnsi(text.replaceAll('\\r\\n', '\\n'));",
      "text = groveNeedsSanitizing(text) ? sanitizeAnsi(text.replaceAll('\\r\\n', '\\n')) : text;",
    ],
  ]),
];
