// The app bundle's code cache (src/infra/code-cache.ts), on real files: each
// test runs a small CommonJS bundle in a child Node, as dist/grove.js runs
// the app, and looks at what V8 accepted and what was written.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bundleFile } from '../helpers/bundle.js';

const ROOT = join(import.meta.dirname, '..', '..');
let work: string;
let loader: string;
let dir: string;
let bundle: string;
let cacheDir: string;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'grove-code-cache-'));
  // The module under test, built the way the entry point is (an ES module).
  loader = join(work, 'code-cache.mjs');
  await bundleFile(loader, { entryPoints: [join(ROOT, 'src', 'infra', 'code-cache.ts')] });
});

afterAll(() => rmSync(work, { recursive: true, force: true }));

beforeEach(() => {
  dir = mkdtempSync(join(work, 'case-'));
  bundle = join(dir, 'app.cjs');
  cacheDir = join(dir, 'cache');
  writeFileSync(join(dir, 'page.mjs'), 'export const page = "from an ES module";\n');
  writeApp('first');
});

/** The bundle: many functions, run at load, as the app's start runs its code. */
function writeApp(tag: string): void {
  const functions = Array.from(
    { length: 300 },
    (_, i) => `function f${i}(x) { return x + ${i} * 2 + String(x).length; }`,
  ).join('\n');
  writeFileSync(
    bundle,
    `${functions}
let total = 0;
for (let i = 0; i < 300; i++) total += eval('f' + i)(i);
const { join } = require('node:path');
module.exports = {
  tag: ${JSON.stringify(tag)},
  total,
  joined: join('a', 'b'),
  file: __filename,
  url: __groveUrl,
  page: () => __groveImport('./page.mjs').then((m) => m.page),
};
`,
  );
}

interface Run {
  readonly cached: boolean;
  readonly tag: string;
  readonly total: number;
  readonly joined: string;
  readonly file: string;
  readonly url: string;
  readonly page: string;
}

/** One start: compile (from the cache if any), run, then save unless `save` is false. */
function start(options: { kind?: string; mayWrite?: boolean; save?: boolean } = {}): Run {
  const script = `
const { compileBundle } = await import(${JSON.stringify(pathToFileURL(loader).href)});
const app = compileBundle(${JSON.stringify(bundle)}, {
  cacheDir: ${JSON.stringify(cacheDir)},
  kind: ${JSON.stringify(options.kind ?? 'tui')},
  mayWrite: () => ${options.mayWrite ?? true},
  importer: (specifier) => import(new URL(specifier, ${JSON.stringify(pathToFileURL(bundle).href)}).href),
});
const out = app.run();
if (app.run() !== out) throw new Error('ran twice');
${options.save === false ? '' : 'app.save(); app.save();'}
const page = await out.page();
process.stdout.write(JSON.stringify({ ...out, cached: app.cached, page }));
`;
  const stdout = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    encoding: 'utf8',
  });
  return JSON.parse(stdout) as Run;
}

const caches = (): string[] => readdirSync(cacheDir).sort();

describe('the code cache', () => {
  it('runs the bundle with require, __filename, its URL and the import() it is given, and caches it for the next start', () => {
    const first = start();

    expect(first).toMatchObject({
      cached: false,
      tag: 'first',
      joined: join('a', 'b'),
      file: bundle,
      url: pathToFileURL(bundle).href,
      page: 'from an ES module',
    });
    expect(first.total).toBeGreaterThan(0);
    expect(caches()).toHaveLength(1);
    expect(caches()[0]).toMatch(/^app\.cjs-tui-v\d+\.\d+\.\d+-/);
    expect(statSync(join(cacheDir, caches()[0] ?? '')).mode & 0o777).toBe(0o600);

    const second = start();

    expect(second).toMatchObject({ cached: true, tag: 'first', total: first.total });
  });

  it('holds the functions the start ran, not only the top level', () => {
    start();
    const withRun = statSync(join(cacheDir, caches()[0] ?? '')).size;
    rmSync(cacheDir, { recursive: true });
    // The same bundle, saved before it ran: only what compiling compiled.
    const script = `
const { compileBundle } = await import(${JSON.stringify(pathToFileURL(loader).href)});
compileBundle(${JSON.stringify(bundle)}, { cacheDir: ${JSON.stringify(cacheDir)}, kind: 'tui', mayWrite: () => true, importer: () => Promise.reject(new Error('unused')) }).save();
`;
    execFileSync(process.execPath, ['--input-type=module', '-e', script]);
    const beforeRun = statSync(join(cacheDir, caches()[0] ?? '')).size;

    expect(withRun).toBeGreaterThan(beforeRun * 2);
  });

  it('keeps a cache per use: a command does not take the TUI cache', () => {
    start({ kind: 'tui' });

    expect(start({ kind: 'command' }).cached).toBe(false);
    expect(caches().map((name) => name.split('-')[1])).toEqual(['command', 'tui']);
    expect(start({ kind: 'command' }).cached).toBe(true);
  });

  it('starts from source and replaces the cache when the bundle changed', () => {
    start();
    const old = caches();
    writeApp('second');
    // Same size is possible; a new build also has a new time.
    utimesSync(bundle, new Date(Date.now() + 5000), new Date(Date.now() + 5000));

    const run = start();

    expect(run).toMatchObject({ cached: false, tag: 'second' });
    expect(caches()).toHaveLength(1);
    expect(caches()).not.toEqual(old);
    expect(start()).toMatchObject({ cached: true, tag: 'second' });
  });

  it('starts from source when the cache file is corrupt, and writes a good one', () => {
    start();
    const file = join(cacheDir, caches()[0] ?? '');
    writeFileSync(file, Buffer.from('not a V8 code cache at all'));

    expect(start()).toMatchObject({ cached: false, tag: 'first' });
    expect(statSync(file).size).toBeGreaterThan(1000);
    expect(start().cached).toBe(true);
  });

  it('writes nothing when it may not, and runs all the same', () => {
    expect(start({ mayWrite: false })).toMatchObject({ cached: false, tag: 'first' });
    expect(() => readdirSync(cacheDir)).toThrow(/ENOENT/);
  });

  it('runs when the cache folder cannot be written, and leaves no file behind', () => {
    // A file where the folder should be: nobody, root included, can write into it.
    writeFileSync(cacheDir, 'not a folder');

    expect(start()).toMatchObject({ cached: false, tag: 'first' });
    expect(start().cached).toBe(false);
    expect(readdirSync(dir).sort()).toEqual(['app.cjs', 'cache', 'page.mjs']);
  });

  it('saves nothing when the cache was taken', () => {
    start();
    const file = join(cacheDir, caches()[0] ?? '');
    const aMinuteAgo = new Date(Date.now() - 60_000);
    utimesSync(file, aMinuteAgo, aMinuteAgo);
    const before = statSync(file).mtimeMs;

    start();

    expect(statSync(file).mtimeMs).toBe(before);
  });
});
