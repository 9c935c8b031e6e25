// The simple-text fast path of Grove's forks of string-width and ansi-tokenize
// (packages/string-width/simple-text.js, packages/*/README.md): text whose
// every code point is a grapheme cluster of its own is measured and tokenized
// code unit by code unit. Each fork is bundled as it is installed and again
// with the fast path turned off (its code as upstream wrote it), and the two
// must agree. Also: segmenters made on first use (xtask/bundle/lazy-segmenter.mjs).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Plugin } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isSimpleText } from 'string-width/simple-text';
import { bundleAndImport, bundleFile } from '../helpers/bundle.js';

type Width = (text: string, options?: { ambiguousIsNarrow?: boolean }) => number;
type Tokenize = (text: string) => unknown[];

const ROOT = join(import.meta.dirname, '..', '..');
let dir: string;

/** The forks without their fast path: no text is simple. */
const withoutFastPath: Plugin = {
  name: 'without-simple-text',
  setup(b) {
    b.onLoad({ filter: /[\\/]string-width[\\/]simple-text\.js$/ }, () => ({
      contents: 'export const isSimpleText = () => false; export function* simpleSegments() {}',
      loader: 'js',
    }));
  },
};

/** `file` bundled alone, with or without the fast path; its module. */
const bundled = <T>(file: string, name: string, fastPath: boolean): Promise<T> =>
  bundleAndImport<T>(join(dir, `${name}.mjs`), {
    entryPoints: [file],
    plugins: fastPath ? [] : [withoutFastPath],
  });

let widthUpstream: Width;
let widthFast: Width;
let tokenizeUpstream: Tokenize;
let tokenizeFast: Tokenize;
/** Every code point of the Basic Multilingual Plane that isSimpleText accepts alone. */
const simple: string[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'grove-simple-text-'));
  const stringWidth = join(ROOT, 'packages', 'string-width', 'index.js');
  const tokenize = join(ROOT, 'packages', 'ansi-tokenize', 'build', 'tokenize.js');
  widthUpstream = (await bundled<{ default: Width }>(stringWidth, 'width-upstream', false)).default;
  widthFast = (await bundled<{ default: Width }>(stringWidth, 'width-fast', true)).default;
  tokenizeUpstream = (await bundled<{ tokenize: Tokenize }>(tokenize, 'tok-upstream', false))
    .tokenize;
  tokenizeFast = (await bundled<{ tokenize: Tokenize }>(tokenize, 'tok-fast', true)).tokenize;
  for (let code = 0; code < 0x10000; code++) {
    if (code >= 0xd800 && code <= 0xdfff) continue;
    const character = String.fromCharCode(code);
    if (isSimpleText(character)) simple.push(character);
  }
}, 60_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A deterministic pseudo-random sequence (the failures must be repeatable). */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

function shuffled<T>(items: readonly T[], next: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

// Clusters that are not simple: marks, joiners, emoji, flags, Hangul jamo, CR LF.
const COMPLEX = [
  'e\u0301',
  '\u{1F468}\u200D\u{1F469}\u200D\u{1F467}',
  '\u{1F1E9}\u{1F1EA}',
  '\u2764\uFE0F',
  '1\uFE0F\u20E3',
  '\u1100\u1161\u11A8',
  '\r\n',
  '\u0915\u094D\u0937',
  '\u{1F44D}\u{1F3FD}',
  '\u0E01\u0E33',
];

describe('simple text', () => {
  it('takes the fast path in the forks as installed, and only there', () => {
    const bundle = (name: string): string => readFileSync(join(dir, `${name}.mjs`), 'utf8');
    for (const name of ['width-fast', 'tok-fast'])
      expect(bundle(name)).toContain('function isSimpleText(text)');
    for (const name of ['width-upstream', 'tok-upstream'])
      expect(bundle(name)).not.toContain('function isSimpleText(text)');
    expect(widthFast('\u2500\u2502 \u00b7 \u2192')).toBe(6);
  });

  it('is the text the grapheme segmenter cuts into single code points', () => {
    expect(simple.length).toBeGreaterThan(60_000);
    const segmenter = new Intl.Segmenter();
    const next = random(7);
    for (let round = 0; round < 5; round++) {
      const text = shuffled(simple, next).join('');
      const joined: string[] = [];
      let segments = 0;
      for (const { segment } of segmenter.segment(text)) {
        if (segment.length !== 1) joined.push(segment);
        segments++;
      }
      expect(joined).toEqual([]);
      expect(segments).toBe(text.length);
    }
    for (const cluster of COMPLEX) expect(isSimpleText(cluster)).toBe(false);
  });

  it('measures every simple code point as string-width does, either way for ambiguous widths', () => {
    const differ: string[] = [];
    for (const ambiguousIsNarrow of [true, false])
      for (const character of simple) {
        const upstream = widthUpstream(character, { ambiguousIsNarrow });
        if (widthFast(character, { ambiguousIsNarrow }) !== upstream)
          differ.push(`U+${character.charCodeAt(0).toString(16)} ${ambiguousIsNarrow}`);
      }
    expect(differ).toEqual([]);
  });

  it('measures and tokenizes mixed text as string-width and ansi-tokenize do', () => {
    const next = random(42);
    const pick = (): string => {
      const roll = next();
      if (roll < 0.5) return String.fromCharCode(0x20 + Math.floor(next() * 95));
      if (roll < 0.85) return simple[Math.floor(next() * simple.length)] ?? 'x';
      if (roll < 0.93) return COMPLEX[Math.floor(next() * COMPLEX.length)] ?? 'x';
      return ['\u001b[31m', '\u001b[39m', '\u001b[1m', '\u001b[22m'][Math.floor(next() * 4)] ?? '';
    };
    for (let i = 0; i < 3000; i++) {
      const text = Array.from({ length: 1 + Math.floor(next() * 30) }, pick).join('');
      expect(widthFast(text), JSON.stringify(text)).toBe(widthUpstream(text));
      expect(tokenizeFast(text), JSON.stringify(text)).toEqual(tokenizeUpstream(text));
    }
  });
});

describe('segmenters made on first use', () => {
  it('make no ICU segmenter until one segments, then the one they were asked for', async () => {
    const entry = join(dir, 'uses-segmenter.mjs');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(
      entry,
      `export const words = new Intl.Segmenter('en', { granularity: 'word' });
export const graphemes = new Intl.Segmenter();`,
    );
    const outfile = join(dir, 'uses-segmenter-bundle.mjs');
    await bundleFile(outfile, {
      entryPoints: [entry],
      inject: [join(ROOT, 'xtask', 'bundle', 'lazy-segmenter.mjs')],
    });
    const Real = Intl.Segmenter;
    const intl = Intl as { Segmenter: typeof Intl.Segmenter };
    let made = 0;
    intl.Segmenter = class extends Real {
      constructor(...args: ConstructorParameters<typeof Intl.Segmenter>) {
        super(...args);
        made++;
      }
    };
    try {
      const { words, graphemes } = (await import(pathToFileURL(outfile).href)) as {
        words: Intl.Segmenter;
        graphemes: Intl.Segmenter;
      };
      expect(made).toBe(0);

      expect([...words.segment('two words')].map((s) => s.segment)).toEqual(['two', ' ', 'words']);
      expect(words.resolvedOptions().granularity).toBe('word');
      expect(made).toBe(1);
      expect([...graphemes.segment('e\u0301!')].map((s) => s.segment)).toEqual(['e\u0301', '!']);
      expect(made).toBe(2);
    } finally {
      intl.Segmenter = Real;
    }
  });
});
