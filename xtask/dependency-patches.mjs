// Exact, checked edits to dependencies, applied while bundling (xtask/build.mjs).
// Each one fails the build when its snippet is gone, so an upgrade cannot
// silently undo it, and the app build fails when a patch found no file at all.
// test/unit/dependency-patches.test.ts checks that the patched ink output is
// identical to the original.
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
// The escape codes that open a style, and that go from one style to another,
// by style array: the arrays are shared by the cells kept across frames, so
// each is worked out once instead of once per style change per frame.
const GROVE_NO_STYLES = Object.freeze([]);
const groveOpenings = new WeakMap();
const groveTransitions = new WeakMap();
function groveOpening(styles) {
    let text = groveOpenings.get(styles);
    if (text === undefined) {
        text = ansiCodesToString(styles);
        groveOpenings.set(styles, text);
    }
    return text;
}
function groveTransition(from, to) {
    let byTarget = groveTransitions.get(from);
    if (byTarget === undefined) {
        byTarget = new WeakMap();
        groveTransitions.set(from, byTarget);
    }
    let text = byTarget.get(to);
    if (text === undefined) {
        text = ansiCodesToString(diffAnsiCodes(from, to));
        byTarget.set(to, text);
    }
    return text;
}
// styledCharsToString, skipping the diff between neighbours of the same style (always empty).
function fastStyledCharsToString(chars) {
    let ret = '';
    for (let i = 0; i < chars.length; i++) {
        const char = chars[i];
        if (i === 0) ret += groveOpening(char.styles);
        else if (!sameStyles(chars[i - 1].styles, char.styles)) ret += groveTransition(chars[i - 1].styles, char.styles);
        ret += char.value;
        if (i === chars.length - 1 && char.styles.length > 0) ret += groveTransition(char.styles, GROVE_NO_STYLES);
    }
    return ret;
}
// Text with no escape, no C1 control and no default-ignorable character
// comes back from tokenizing and joining its cells unchanged: its lines are
// its split, without a cell object and a style diff per character.
const GROVE_NOT_PLAIN = /[\\u001b\\u0080-\\u009f\\p{Default_Ignorable_Code_Point}]/u;
function groveIsPlain(text) {
    return !GROVE_NOT_PLAIN.test(text);
}
// Each row of the last frame, with its cells and its text. Cells are shared
// across frames (the caches below), so a row whose cells are the very same
// objects as last frame's has last frame's text: most rows, when one line
// of the screen changes.
let groveRows = [];
// A styled text's lines (each with its styles restated), kept across frames
// with the caches below: the same texts are on screen frame after frame.
let groveLines = new Map();
function groveReusedRow(cells, y) {
    const previous = groveRows[y];
    if (previous === undefined || previous.cells.length !== cells.length) return undefined;
    for (let x = 0; x < cells.length; x++) if (previous.cells[x] !== cells[x]) return undefined;
    return previous.text;
}
function groveRememberRow(cells, y, text) {
    groveRows[y] = { cells, text };
    return text;
}
// The tokenized lines and widths are kept across frames (ink makes a new
// Output per frame), bounded.
let sharedOutputCaches;
function outputCaches() {
    if (!sharedOutputCaches || sharedOutputCaches.styledChars.size > 2000 || sharedOutputCaches.widths.size > 20000 || groveLines.size > 2000) {
        sharedOutputCaches = new OutputCaches();
        groveRows = [];
        groveLines = new Map();
    }
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
const GROVE_C1_FORMS = /[\\u009b-\\u009d]/;
function groveNeedsSanitizing(text) {
    return GROVE_NEEDS_SANITIZING.test(text) || (text.includes('\\u001b') && GROVE_SGR_BEFORE_MARK.test(text));
}
// --- end Grove ---
`;

// Added to ink's Text.js: one transform function per combination of style
// props (ink's own, made by the factory the first time), and one style
// object per wrap mode.
const TEXT_PRELUDE = `
// --- Grove: stable Text props (xtask/dependency-patches.mjs) ---
// By flags, then colour, then background colour (Map keys tell 'red' from
// any other value, undefined included).
let groveTransforms = [];
let groveTransformCount = 0;
function groveTextTransform(dimColor, color, backgroundColor, bold, italic, underline, strikethrough, inverse, makeTransform) {
    const flags = (dimColor ? 1 : 0) | (bold ? 2 : 0) | (italic ? 4 : 0) | (underline ? 8 : 0) | (strikethrough ? 16 : 0) | (inverse ? 32 : 0);
    const byColor = (groveTransforms[flags] ??= new Map());
    let byBackground = byColor.get(color);
    if (byBackground === undefined) {
        byBackground = new Map();
        byColor.set(color, byBackground);
    }
    let transform = byBackground.get(backgroundColor);
    if (transform === undefined) {
        transform = makeTransform();
        if (++groveTransformCount > 1000) {
            groveTransforms = [];
            groveTransformCount = 0;
        }
        byBackground.set(backgroundColor, transform);
    }
    return transform;
}
const groveTextStyles = new Map();
function groveTextStyle(wrap) {
    let style = groveTextStyles.get(wrap);
    if (style === undefined) {
        style = { flexGrow: 0, flexShrink: 1, flexDirection: 'row', textWrap: wrap };
        groveTextStyles.set(wrap, style);
    }
    return style;
}
// --- end Grove ---
`;

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
  // When DEV=true, ink awaits at its top level the React DevTools bridge and
  // its own package.json (for the DevTools' renderer name). Grove ships no
  // DevTools (the bridge is an empty module in the bundle), and a CommonJS
  // bundle cannot hold a top-level await: the bridge is not awaited, and the
  // name stays ink's default.
  patch('ink-devtools-without-await', /ink[\\/]build[\\/]reconciler\.js$/, [
    ["await import('./devtools.js');", "void import('./devtools.js');"],
    ['const loaded = await loadPackageJson();', 'const loaded = {};'],
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
      'for (let [index, line] of lines.entries()) {',
      'for (let index = 0; index < lines.length; index++) {\n            let line = lines[index];',
    ],
    [
      `const characterLines = [[]];
        for (const character of this.caches.getStyledChars(text)) {`,
      `let lines;
        if (groveIsPlain(text)) lines = text.split('\\n');
        else if (groveLines.has(text)) lines = groveLines.get(text).slice();
        else {
        const characterLines = [[]];
        for (const character of this.caches.getStyledChars(text)) {`,
    ],
    [
      'let lines = characterLines.map(line => styledCharsToString(line));',
      `lines = characterLines.map(line => styledCharsToString(line));
        groveLines.set(text, lines);
        }`,
    ],
    [
      `.map(line => {
            // See https://github.com/vadimdemedes/ink/pull/564#issuecomment-1637022742
            const lineWithoutEmptyItems = line.filter(item => item !== undefined);
            return styledCharsToString(lineWithoutEmptyItems).trimEnd();`,
      `.map((line, y) => {
            const reused = groveReusedRow(line, y);
            if (reused !== undefined) return reused;
            const lineWithoutEmptyItems = line.filter(item => item !== undefined);
            return groveRememberRow(line, y, fastStyledCharsToString(lineWithoutEmptyItems).trimEnd());`,
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
    // The C1 forms are rewritten only when the text holds one.
    [
      "    text = text.replaceAll('\u009b', ",
      "    if (GROVE_C1_FORMS.test(text)) text = text.replaceAll('\u009b', ",
    ],
    // A one-line child's transform, without splitting and joining it.
    [
      `nodeText = nodeText
                    .split('\\n')`,
      `nodeText = !nodeText.includes('\\n') ? transform(nodeText, 0) : nodeText
                    .split('\\n')`,
    ],
  ]),
  // ink's Text makes a new transform function and a new style object on
  // each render, so each re-rendered Text is a changed node (and a nested one
  // is measured again). The same props give the same function and object.
  patch('ink-stable-text-props', /ink[\\/]build[\\/]components[\\/]Text\.js$/, [
    [
      "import { BackgroundContext } from './BackgroundContext.js';",
      `import { BackgroundContext } from './BackgroundContext.js';${TEXT_PRELUDE}`,
    ],
    [
      'const transform = (text) => {',
      'const transform = groveTextTransform(dimColor, color, effectiveBackgroundColor, bold, italic, underline, strikethrough, inverse, () => (text) => {',
    ],
    [
      '        return text;\n    };\n    return (React.createElement(BackgroundContext',
      '        return text;\n    });\n    return (React.createElement(BackgroundContext',
    ],
    [
      `style: {
                flexGrow: 0,
                flexShrink: 1,
                flexDirection: 'row',
                textWrap: wrap,
            }, internal_transform`,
      'style: groveTextStyle(wrap), internal_transform',
    ],
  ]),
  // React commits a frame after every render, and ink lays out and draws the
  // whole screen after every commit. Most commits while agents stream change
  // no node at all (the list does not show transcripts): those skip ink's
  // layout and drawing, and the screen keeps the frame it has. Every host
  // method that changes a node marks the tree changed; an update does unless
  // all it brings is an equal style object, an equal accessibility object and
  // new children (which change the tree through the methods that add, move
  // and remove nodes). One flag
  // for the module: Grove runs one ink instance.
  patch('ink-skip-unchanged-commits', /ink[\\/]build[\\/]reconciler\.js$/, [
    [
      `        if (typeof rootNode.onComputeLayout === 'function') {
            rootNode.onComputeLayout();
        }`,
      `        if (!groveTreeChanged && !rootNode.isStaticDirty && rootNode.staticNode === rootNode.previousStaticNode) {
            return;
        }
        groveTreeChanged = false;
        if (typeof rootNode.onComputeLayout === 'function') {
            rootNode.onComputeLayout();
        }`,
    ],
    [
      `        if (!props && !style) {
            return;
        }`,
      `        if (!props && !style) {
            return;
        }
        if (style || groveChangesMoreThanStyle(props, oldProps)) {
            groveTreeChanged = true;
        }`,
    ],
    // (and walks the changed props without an array per key)
    [
      'for (const [key, value] of Object.entries(props)) {',
      'for (const key in props) {\n                const value = props[key];',
    ],
    [
      'export default createReconciler(hostConfig);',
      `// --- Grove: skip commits that changed no node (xtask/dependency-patches.mjs) ---
let groveTreeChanged = true;
function groveChangesMoreThanStyle(props, oldProps) {
    for (const key in props) {
        if (key === 'style' || key === 'children') continue;
        // Box makes a new accessibility object each render.
        if (key === 'internal_accessibility') {
            const before = oldProps.internal_accessibility;
            const after = props.internal_accessibility;
            if (before && after && before.role === after.role && before.state === after.state) continue;
        }
        return true;
    }
    return false;
}
for (const name of ['appendChild', 'insertBefore', 'appendChildToContainer', 'insertInContainerBefore', 'removeChild', 'removeChildFromContainer', 'commitTextUpdate', 'hideInstance', 'unhideInstance', 'hideTextInstance', 'unhideTextInstance', 'resetTextContent', 'clearContainer', 'commitMount']) {
    const method = hostConfig[name];
    if (typeof method === 'function') {
        hostConfig[name] = function (...args) {
            groveTreeChanged = true;
            return method.apply(this, args);
        };
    }
}
// --- end Grove ---
export default createReconciler(hostConfig);`,
    ],
  ]),
  // ink wraps each render in an accessibility context whose value is a new
  // object every time, and every Text reads that context: so every Text on
  // screen rendered again on every frame, whatever memo said (400-500 per
  // frame in the list with 500 sessions). The same value gives the same object.
  patch('ink-stable-accessibility-context', /ink[\\/]build[\\/]ink\.js$/, [
    [
      'React.createElement(AccessibilityContext, { value: { isScreenReaderEnabled: this.isScreenReaderEnabled } },',
      'React.createElement(AccessibilityContext, { value: this.isScreenReaderEnabled ? GROVE_SCREEN_READER_ON : GROVE_SCREEN_READER_OFF },',
    ],
    [
      "import { AccessibilityContext } from './components/AccessibilityContext.js';",
      `import { AccessibilityContext } from './components/AccessibilityContext.js';
const GROVE_SCREEN_READER_ON = Object.freeze({ isScreenReaderEnabled: true });
const GROVE_SCREEN_READER_OFF = Object.freeze({ isScreenReaderEnabled: false });`,
    ],
  ]),
  // The reconciler compares each updated node's props and style with
  // Object.keys and Object.entries (an array per key); the same comparison
  // without them.
  patch('ink-diff-without-arrays', /ink[\\/]build[\\/]reconciler\.js$/, [
    [
      `    const changed = {};
    let hasChanges = false;
    for (const key of Object.keys(before)) {
        const isDeleted = after ? !Object.hasOwn(after, key) : true;
        if (!isDeleted) {
            continue;
        }
        changed[key] = undefined;
        hasChanges = true;
    }
    if (after) {
        for (const [key, value] of Object.entries(after)) {
            if (value === before[key]) {
                continue;
            }
            changed[key] = value;
            hasChanges = true;
        }
    }
    return hasChanges ? changed : undefined;`,
      `    let changed;
    for (const key in before) {
        if (!Object.hasOwn(before, key) || (after && Object.hasOwn(after, key))) {
            continue;
        }
        (changed ??= {})[key] = undefined;
    }
    if (after) {
        for (const key in after) {
            if (!Object.hasOwn(after, key)) {
                continue;
            }
            const value = after[key];
            if (value === before[key]) {
                continue;
            }
            (changed ??= {})[key] = value;
        }
    }
    return changed;`,
    ],
  ]),
];

/** Every patch, for bundles of any part of the dependencies (the tests bundle single ink files). */
export const dependencyPatches = [patchPlugin(PATCHES, { everyPatchUsed: false })];

/** Every patch, and the build fails if one of them matched no file: for the app bundle. */
export const dependencyPatchesAllUsed = [patchPlugin(PATCHES, { everyPatchUsed: true })];
