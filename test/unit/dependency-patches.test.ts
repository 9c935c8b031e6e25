// Grove ships its fork of ink (packages/ink, its README lists each change)
// and a few build patches of ink's dependencies (xtask/dependency-patches.mjs).
// Differential test: ink 8.0.0 as published (a pristine copy of its build,
// test/fixtures/ink-8.0.0, resolving its imports as the fork does) and the
// fork with the build's patches, each bundled by esbuild, must produce the
// same frames for the same writes.
import { EventEmitter } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import type { Plugin } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dependencyPatches } from '../../xtask/dependency-patches.mjs';
import { bundleAndImport } from '../helpers/bundle.js';

interface OutputLike {
  write(
    x: number,
    y: number,
    text: string,
    options: { transformers: ((line: string, index: number) => string)[] },
  ): void;
  clip(clip: { x1?: number; x2?: number; y1?: number; y2?: number }): void;
  unclip(): void;
  get(): { output: string; height: number };
}
type OutputClass = new (options: { width: number; height: number }) => OutputLike;

const ROOT = join(import.meta.dirname, '..', '..');
const STOCK = join(ROOT, 'test', 'fixtures', 'ink-8.0.0', 'build');
const FORK = join(ROOT, 'packages', 'ink', 'build');
let dir: string;
let Original: OutputClass;
let Patched: OutputClass;

/**
 * The pristine ink's imports of packages resolve from the fork's folder:
 * the same dependencies (ink's own nested chalk and signal-exit included),
 * without the build's patches.
 */
const stockInk: Plugin = {
  name: 'stock-ink',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) =>
      args.importer.startsWith(STOCK)
        ? b.resolve(args.path, { kind: args.kind, resolveDir: FORK })
        : undefined,
    );
  },
};

/** One of ink's build files bundled alone: ink 8.0.0 as published, or the fork with the build's patches; its default export. */
async function bundleInk<T>(file: string, name: string, patched: boolean): Promise<T> {
  const bundled = await bundleAndImport<{ default: T }>(join(dir, `${name}.mjs`), {
    entryPoints: [join(patched ? FORK : STOCK, file)],
    plugins: patched ? dependencyPatches : [stockInk],
  });
  return bundled.default;
}

const bundle = (name: string, patched: boolean): Promise<OutputClass> =>
  bundleInk<OutputClass>('output.js', name, patched);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'grove-patch-'));
  Original = await bundle('original', false);
  Patched = await bundle('patched', true);
}, 60_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const red = (s: string): string => `\u001b[31m${s}\u001b[39m`;
const bold = (s: string): string => `\u001b[1m${s}\u001b[22m`;
const inverse = (s: string): string => `\u001b[7m${s}\u001b[27m`;
const rgb = (s: string): string => `\u001b[38;2;10;20;30m${s}\u001b[39m`;

type Step = (o: OutputLike) => void;

function frame(Output: OutputClass, width: number, height: number, steps: readonly Step[]): string {
  const output = new Output({ width, height });
  for (const step of steps) step(output);
  return output.get().output;
}

const none = { transformers: [] };
const scenes: Record<string, readonly Step[]> = {
  'plain text and gaps': [
    (o) => o.write(0, 0, 'hello', none),
    (o) => o.write(10, 2, 'world\nsecond line', none),
  ],
  'nested and adjacent styles': [
    (o) =>
      o.write(
        0,
        0,
        `${red('red')}${bold('bold')}${red(bold('both'))} plain ${inverse('inv')}`,
        none,
      ),
    (o) => o.write(2, 1, `${rgb('truecolor')}${rgb(bold('x'))}`, none),
  ],
  'overlapping writes (a popup over a list)': [
    (o) =>
      o.write(
        0,
        0,
        `${red('aaaaaaaaaaaaaaaaaaaa')}\n${bold('bbbbbbbbbbbbbbbbbbbb')}\ncccccccccccccccccccc`,
        none,
      ),
    (o) => o.write(5, 1, inverse(' popup '), none),
  ],
  'wide characters and emoji': [
    (o) => o.write(0, 0, `日本語 ${red('▶')} 🙂 ok`, none),
    (o) => o.write(1, 1, 'ｗｉｄｅ', none),
  ],
  'clipping in both directions': [
    (o) => o.clip({ x1: 2, x2: 8, y1: 1, y2: 3 }),
    (o) =>
      o.write(0, 0, `${red('0123456789')}\n0123456789\n${bold('0123456789')}\n0123456789`, none),
    (o) => o.unclip(),
    (o) => o.write(0, 4, 'after', none),
  ],
  transformers: [
    (o) => o.write(0, 0, 'one\ntwo', { transformers: [(line, index) => `${index}:${red(line)}`] }),
  ],
  'text longer than the frame': [
    (o) => o.write(0, 0, 'x'.repeat(50), none),
    (o) => o.write(0, 9, 'below\nthe end', none),
  ],
};

describe("the fork's frame builder", () => {
  it('is the fork (with its faster frames), and the fixture is stock ink', () => {
    expect(readFileSync(join(dir, 'patched.mjs'), 'utf8')).toContain('fastStyledCharsToString');
    expect(readFileSync(join(dir, 'original.mjs'), 'utf8')).not.toContain(
      'fastStyledCharsToString',
    );
  });

  for (const [name, steps] of Object.entries(scenes)) {
    it(`match ink's own output: ${name}`, () => {
      const expected = frame(Original, 30, 10, steps);
      expect(frame(Patched, 30, 10, steps)).toBe(expected);
      // A second frame reuses the tokenized lines kept across frames.
      expect(frame(Patched, 30, 10, steps)).toBe(expected);
    });
  }

  it('match frame after frame when rows change only in style, in one cell, or in size', () => {
    const frames: [number, number, Step[]][] = [
      [30, 4, [(o) => o.write(0, 0, 'hello\nworld', none)]],
      [30, 4, [(o) => o.write(0, 0, `${red('hello')}\nworld`, none)]],
      [30, 4, [(o) => o.write(0, 0, `${bold('hello')}\nworld`, none)]],
      [30, 4, [(o) => o.write(0, 0, 'hellp\nworld', none)]],
      [30, 4, [(o) => o.write(0, 0, red('multi\nline'), none)]],
      [30, 4, [(o) => o.write(0, 0, '日本\nworld', none)]],
      [30, 4, [(o) => o.write(0, 0, '日本\nworld', none)]],
      [20, 4, [(o) => o.write(0, 0, 'hellp\nworld', none)]],
      [30, 2, [(o) => o.write(0, 0, 'hellp\nworld', none)]],
    ];
    for (const [width, height, steps] of frames)
      expect(frame(Patched, width, height, steps)).toBe(frame(Original, width, height, steps));
  });

  it('match over many random styled frames', () => {
    let seed = 7;
    const next = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const plain = (s: string): string => s;
    const styles = [red, bold, inverse, rgb, plain, plain];
    // Plain text takes the split fast path unless it holds one of these.
    const pieces = [' é日', 'e\u0301', 'a\u200bb', '\t|', '🙂x', '\nnext', 'x\u0085y'];
    for (let i = 0; i < 200; i++) {
      const steps: Step[] = [];
      for (let w = 0; w < 1 + next(6); w++) {
        const text = Array.from({ length: 1 + next(4) }, () =>
          styles[next(styles.length)]!(
            'word'.slice(0, 1 + next(4)) + (next(2) === 0 ? pieces[next(pieces.length)]! : ''),
          ),
        ).join('');
        const x = next(25);
        const y = next(9);
        if (next(4) === 0)
          steps.push((o) =>
            o.clip({ x1: next(5), x2: 10 + next(20), y1: next(3), y2: 5 + next(5) }),
          );
        steps.push((o) => o.write(x, y, text, none));
      }
      // Replay the same random choices for both classes.
      const state = seed;
      const expected = frame(Original, 30, 10, steps);
      seed = state;
      expect(frame(Patched, 30, 10, steps)).toBe(expected);
      // The same frame again: its rows come from the last frame's.
      seed = state;
      expect(frame(Patched, 30, 10, steps)).toBe(expected);
    }
  });
});

// ink's squashTextNodes, as ink ships it and as the fork has it (the sanitize fast path).
interface TextNodeLike {
  nodeName: string;
  nodeValue?: string;
  childNodes: TextNodeLike[];
}
type Squash = (node: TextNodeLike) => string;

const bundleSquash = (name: string, patched: boolean): Promise<Squash> =>
  bundleInk<Squash>('squash-text-nodes.js', name, patched);

describe('the text-node sanitizer fast path', () => {
  let original: Squash;
  let patched: Squash;
  beforeAll(async () => {
    original = await bundleSquash('squash-original', false);
    patched = await bundleSquash('squash-patched', true);
  }, 60_000);

  const textNode = (...parts: string[]): TextNodeLike => ({
    nodeName: 'ink-text',
    childNodes: parts.map((value) => ({ nodeName: '#text', nodeValue: value, childNodes: [] })),
  });

  const table: [string, string][] = [
    ['plain ASCII', 'hello world'],
    ['tabs and newlines', 'a\tb\nc\td'],
    ['wide and combining characters', 'é日本 e\u0301 👍🏽'],
    ['SGR colours', red('red') + ' and ' + bold('bold') + rgb('rgb')],
    ['an empty SGR reset', '\u001b[mplain'],
    ['a trailing SGR', 'text\u001b[0m'],
    ['an SGR before a combining mark', '\u001b[31m\u0301x\u001b[39m'],
    ['colon sub-parameters', '\u001b[38:2::10:20:30mx\u001b[39m'],
    ['a cursor move', 'a\u001b[2Jb\u001b[5;5Hc'],
    ['an OSC 52 clipboard write', 'x\u001b]52;c;cm0gLXJmIH4=\u0007y'],
    ['a carriage return', 'over\rwrite'],
    ['CRLF', 'one\r\ntwo'],
    ['C0 and DEL', 'a\u0000b\u0007c\u007fd\u0008e'],
    ['C1 controls', 'a\u009b2Jb\u0085c\u009d0;t\u009c'],
    ['a lone ESC', 'a\u001b'],
  ];

  it.each(table)('gives what ink gives for %s', (_label, text) => {
    expect(patched(textNode(text))).toBe(original(textNode(text)));
    expect(patched(textNode(text, ' ', text))).toBe(original(textNode(text, ' ', text)));
  });

  it('still removes what would move the cursor or write the clipboard', () => {
    expect(patched(textNode('a\u001b[2Jb\u001b]52;c;eA==\u0007c'))).not.toContain('\u001b[2J');
    expect(patched(textNode('a\u001b]0;title\u0007b\u0008'))).not.toContain('\u0008');
  });
});

// The whole of ink, as it ships and as the fork with the build patches (the Text props
// cache, the reconciler's diff, the squash and output fast paths), drawing
// the same trees frame after frame as Grove's renderer does (debug mode).
interface InkLike {
  render: (
    tree: unknown,
    options: Record<string, unknown>,
  ) => { rerender(tree: unknown): void; unmount(): void };
  Box: unknown;
  Text: unknown;
  createElement: (
    type: unknown,
    props: Record<string, unknown> | null,
    ...children: unknown[]
  ) => unknown;
}

const noDevtools: Plugin = {
  name: 'no-devtools',
  setup(b) {
    b.onResolve({ filter: /^react-devtools-core$/ }, () => ({ path: 'none', namespace: 'empty' }));
    b.onLoad({ filter: /.*/, namespace: 'empty' }, () => ({ contents: '', loader: 'js' }));
  },
};

async function bundleWholeInk(name: string, patched: boolean): Promise<InkLike> {
  return bundleAndImport<InkLike>(join(dir, `${name}.mjs`), {
    stdin: {
      contents: `export { render, Box, Text } from ${JSON.stringify(join(patched ? FORK : STOCK, 'index.js'))};\nexport { createElement } from 'react';\n`,
      resolveDir: ROOT,
      loader: 'js',
    },
    // ink loads its DevTools bridge only when DEV=true; Grove does not ship it.
    plugins: [noDevtools, ...(patched ? dependencyPatches : [stockInk])],
  });
}

describe('the whole fork with the build patches, frame after frame', () => {
  let original: InkLike;
  let patched: InkLike;
  beforeAll(async () => {
    // Colours on, as in a terminal (chalk reads this when it loads).
    process.env.FORCE_COLOR = '3';
    original = await bundleWholeInk('ink-original', false);
    patched = await bundleWholeInk('ink-patched', true);
  }, 60_000);

  /** Frame `step` of a pseudo-random screen: styled, nested, wrapped and truncated texts. */
  function tree(ink: InkLike, step: number): unknown {
    let seed = 1 + step * 7919;
    const next = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return Math.floor(seed / 65536) % n;
    };
    const h = ink.createElement;
    const colors = [undefined, 'red', 'green', '#ff8800', 'blueBright'];
    const wraps = ['wrap', 'truncate-end', 'truncate', 'truncate-middle'];
    const words = [
      'alpha',
      'beta gamma',
      'a much longer line of words that must wrap',
      'x\ny',
      '日本語',
      '',
    ];
    const props = (): Record<string, unknown> => ({
      color: colors[next(colors.length)],
      backgroundColor: next(4) === 0 ? colors[next(colors.length)] : undefined,
      bold: next(3) === 0,
      dimColor: next(5) === 0,
      italic: next(5) === 0,
      underline: next(5) === 0,
      strikethrough: next(6) === 0,
      inverse: next(5) === 0,
      wrap: wraps[next(wraps.length)],
    });
    const rows = Array.from({ length: 6 }, (_, row) =>
      h(
        ink.Text,
        { key: row, ...props() },
        words[next(words.length)],
        next(2) === 0 ? h(ink.Text, props(), ` ${words[next(words.length)]}`) : null,
        next(3) === 0
          ? h(ink.Text, props(), h(ink.Text, props(), words[next(words.length)]))
          : null,
      ),
    );
    return h(ink.Box, { flexDirection: 'column', width: 30, height: 14 }, ...rows);
  }

  /** The frames ink draws (debug mode, into a sink) for `screens`, rendered one after the other. */
  function draw(
    ink: InkLike,
    screens: readonly ((ink: InkLike) => unknown)[],
    columns: number,
    rows: number,
  ): string[] {
    const out: string[] = [];
    const sink = Object.assign(new EventEmitter(), {
      columns,
      rows,
      isTTY: false,
      write: (frame: string) => out.push(frame) > 0,
    });
    const stdin = Object.assign(new PassThrough(), { isTTY: false });
    const instance = ink.render(screens[0]!(ink), {
      stdout: sink,
      stderr: sink,
      stdin,
      debug: true,
      exitOnCtrlC: false,
      patchConsole: false,
    });
    for (const screen of screens.slice(1)) instance.rerender(screen(ink));
    instance.unmount();
    return out;
  }

  const frames = (ink: InkLike, steps: readonly number[]): string[] =>
    draw(
      ink,
      steps.map((step) => (i: InkLike) => tree(i, step)),
      30,
      14,
    );

  it('draws a frame for a change of only text, colour, wrap mode or box size, and none for no change', () => {
    // One structure throughout: what changes is a text, a colour, a wrap mode, a width.
    const screen =
      (count: number, color: string, wrap: string, width: number) =>
      (ink: InkLike): unknown =>
        ink.createElement(
          ink.Box,
          { flexDirection: 'column', width, height: 4 },
          ink.createElement(ink.Text, { color }, 'status'),
          ink.createElement(ink.Text, { wrap }, 'a line long enough to be wrapped or cut'),
          ink.createElement(ink.Text, null, `count ${count}`),
        );
    const screens = [
      screen(1, 'red', 'truncate', 30),
      screen(1, 'red', 'truncate', 30),
      screen(2, 'red', 'truncate', 30),
      screen(2, 'green', 'truncate', 30),
      screen(2, 'green', 'wrap', 30),
      screen(2, 'green', 'wrap', 20),
      screen(2, 'green', 'wrap', 20),
    ];
    const run = (ink: InkLike): string[] => draw(ink, screens, 30, 4);
    const expected = run(original);
    const drawn = run(patched);
    const distinct = (list: string[]): string[] => list.filter((f, i) => f !== list[i - 1]);
    // Five different screens, in order; ink draws the repeats again.
    expect(new Set(expected.slice(0, screens.length)).size).toBe(5);
    expect(distinct(drawn)).toEqual(distinct(expected));
    // The repeat of the first screen drew nothing.
    expect(drawn[1]).not.toBe(drawn[0]);
    expect(drawn.length).toBeLessThan(expected.length);
  });

  it('draws what ink draws, including frames that change only a colour or a wrap mode', () => {
    // Each step is a screen; repeats and returns exercise the caches kept across frames.
    const steps = [0, 1, 1, 2, 3, 2, 4, ...Array.from({ length: 60 }, (_, i) => 5 + (i % 23))];
    const expected = frames(original, steps);
    expect(expected.length).toBeGreaterThanOrEqual(steps.length);
    expect(expected.join('')).toContain('\u001b[31m');
    // ink draws after every commit; patched, a commit that changed no node
    // draws nothing (the screen keeps the same frame): the same frames,
    // without the repeats.
    const drawn = frames(patched, steps);
    const distinct = (list: string[]): string[] => list.filter((f, i) => f !== list[i - 1]);
    expect(distinct(drawn)).toEqual(distinct(expected));
  });
});

// Grove's renderer on the fork: a draw that changes nothing writes
// nothing, and after the screen is cleared (a resize, then its reverse,
// before one draw) the same tree is painted again in full.
interface RendererLike {
  draw(state: unknown): void;
  invalidate(): void;
  unmount(): void;
}
interface RendererBundle {
  createRenderer(
    write: (data: string) => void,
    theme: unknown,
    home: string | undefined,
  ): RendererLike;
  createTheme(env: Record<string, string>): unknown;
  bareState(overrides: Record<string, unknown>): Record<string, unknown>;
}

describe("Grove's renderer with the fork", () => {
  let grove: RendererBundle;
  beforeAll(async () => {
    grove = await bundleAndImport<RendererBundle>(join(dir, 'renderer.mjs'), {
      stdin: {
        contents: [
          "export { createRenderer } from './src/runtime/renderer.tsx';",
          "export { createTheme } from './src/ui/theme.ts';",
          "export { bareState } from './test/helpers/state.ts';",
        ].join('\n'),
        resolveDir: ROOT,
        loader: 'ts',
      },
      jsx: 'automatic',
      external: ['better-sqlite3'],
      plugins: [noDevtools, ...dependencyPatches],
    });
  }, 60_000);

  it('writes nothing for a draw that changes nothing, and paints again after a clear', () => {
    const writes: string[] = [];
    const renderer = grove.createRenderer(
      (data) => writes.push(data),
      grove.createTheme({}),
      undefined,
    );
    const state = grove.bareState({ columns: 60, rows: 12 });
    renderer.draw(state);
    expect(writes.join('')).toContain('Sessions');

    writes.length = 0;
    renderer.draw({ ...state });
    expect(writes).toEqual([]);

    renderer.invalidate();
    renderer.draw({ ...state });
    const after = writes.join('');
    expect(after).toContain('\u001b[2J');
    expect(after.slice(after.indexOf('\u001b[2J'))).toContain('Sessions');
    renderer.unmount();
  });
});
