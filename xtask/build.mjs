// Bundles Grove with esbuild. Native addons stay external.
//   dist/grove.js           the `grove` bin (a few KB, an ES module): checks
//                           the Node.js version, starts the repository lookup,
//                           then runs the app through its code cache
//                           (src/infra/code-cache.ts)
//   dist/grove-app.cjs      src/start.ts and everything it uses, one CommonJS
//                           file (parts loaded on demand, such as simple-git
//                           and the Codex wire checks, are in it but run only
//                           when first imported)
//   dist/grove-markdown.cjs the markdown renderer, loaded when the first
//                           answer is shown
//   dist/vendor/*.cjs       execa, the ACP library, Octokit and the MCP
//                           server library, each loaded when first imported
//   dist/yoga.wasm          ink's layout engine, compiled by the entry point
import { build } from 'esbuild';
import { dependencyPatchesAllUsed } from './dependency-patches.mjs';
import { chmod, mkdir, readFile, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { existsSync, rmSync } from 'node:fs';

const pkg = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8'));

// The markdown renderer (marked-terminal and its highlighter: half the code)
// loads from its own file just before the first answer is laid out, keeping
// the app file (and its code cache) small.
const markdownApart = {
  name: 'markdown-apart',
  setup(b) {
    b.onResolve({ filter: /[\\/]ui[\\/]markdown\.js$/ }, () => ({
      path: './grove-markdown.cjs',
      external: true,
    }));
  },
};

// Packages only some uses need (execa: agents' side commands; the ACP
// library: Gemini; Octokit: GitHub) are files of their own in dist/vendor/,
// required when first imported: a Grove that never needs them keeps their
// source (about half a megabyte, held by V8 for as long as it runs) out of
// memory. Only imports from Grove's own code go there, so each package is
// loaded once.
// Two import paths may share one file (the MCP server and its stdio transport,
// for `grove mcp` only).
const VENDORS = {
  execa: 'execa',
  '@agentclientprotocol/sdk': 'acp-sdk',
  '@octokit/rest': 'octokit-rest',
  '@modelcontextprotocol/sdk/server/mcp.js': 'mcp-sdk',
  '@modelcontextprotocol/sdk/server/stdio.js': 'mcp-sdk',
};
const VENDOR_FILES = [...new Set(Object.values(VENDORS))];
const vendorFilter = new RegExp(
  `^(${Object.keys(VENDORS)
    .map((name) => name.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'))
    .join('|')})$`,
);
const vendorApart = {
  name: 'vendor-apart',
  setup(b) {
    b.onResolve({ filter: vendorFilter }, (args) =>
      /[\\/]src[\\/]/.test(args.importer)
        ? { path: `./vendor/${VENDORS[args.path]}.cjs`, external: true }
        : undefined,
    );
  },
};

// ink imports its React DevTools bridge (and react-devtools-core, which Grove
// does not ship) only when DEV=true; the bridge resolves to an empty module
// so the bundle does not reference it (and Grove's fork of ink does not
// await it at its top level: packages/ink/README.md, change 1).
const withoutDevtools = {
  name: 'ink-without-devtools',
  setup(b) {
    b.onResolve({ filter: /^\.\/devtools\.js$/ }, (args) =>
      /[\\/]ink[\\/]build$/.test(args.resolveDir)
        ? { path: 'ink-devtools', namespace: 'grove-empty' }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'grove-empty' }, () => ({ contents: '', loader: 'js' }));
  },
};

// simple-git (and its folder check) log through the `debug` package, which
// writes to stderr whenever DEBUG names them (DEBUG=* is common): over a
// full-screen Grove. In the bundle `debug` is a logger that is never enabled.
const silentDebug = {
  name: 'silent-debug',
  setup(b) {
    b.onResolve({ filter: /^debug$/ }, () => ({ path: 'debug', namespace: 'grove-silent-debug' }));
    b.onLoad({ filter: /.*/, namespace: 'grove-silent-debug' }, () => ({
      contents: `function debug(namespace) {
  const log = () => {};
  return Object.assign(log, { namespace, enabled: false, log, extend: (name, sep = ':') => debug(namespace + sep + name) });
}
module.exports = Object.assign(debug, { default: debug, formatters: {}, enable() {}, disable: () => '', enabled: () => false });`,
      loader: 'js',
    }));
  },
};

const common = {
  bundle: true,
  platform: 'node',
  target: 'node22.19',
  format: 'cjs',
  jsx: 'automatic',
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: 'none',
  sourcemap: 'linked',
  logLevel: 'warning',
};

// Build into a private folder, then move the result into dist/ so a running
// Grove (or a test using dist/grove.js) never sees a half-written bundle.
const staging = join('dist', `.build-${process.pid}`);
await rm(staging, { recursive: true, force: true });
// A failed build leaves nothing half-made in dist/.
process.on('exit', (code) => {
  if (code !== 0) rmSync(staging, { recursive: true, force: true });
});
// The app is one CommonJS file: the entry point runs it with vm.Script and
// a code cache made after the first frame, which holds the functions the
// start ran; Node's compile cache for ES modules holds only what was
// compiled before the module ran (about 30 ms more per start, measured).
await build({
  ...common,
  // The entry point gives the bundle require, __filename and __dirname.
  // A vm.Script has no import(): the parts loaded on first use become
  // require() calls (the markdown file is CommonJS too), and ES-module-only
  // packages go through src/infra/external-import.ts.
  supported: { 'dynamic-import': false },
  entryPoints: { 'grove-app': 'src/start.ts' },
  outExtension: { '.js': '.cjs' },
  // Segmenters made when first used, not when their module loads.
  inject: [join('xtask', 'bundle', 'lazy-segmenter.mjs')],
  outdir: staging,
  // better-sqlite3 is native; clipboardy finds its helper binaries next to its own files.
  external: ['better-sqlite3', 'clipboardy'],
  define: {
    __GROVE_VERSION__: JSON.stringify(pkg.version),
    'process.env.NODE_ENV': '"production"',
    // The entry point passes the bundle's URL.
    'import.meta.url': '__groveUrl',
  },
  plugins: [...dependencyPatchesAllUsed, withoutDevtools, silentDebug, markdownApart, vendorApart],
});
for (const file of VENDOR_FILES) {
  const names = Object.keys(VENDORS).filter((name) => VENDORS[name] === file);
  await build({
    ...common,
    // The package's own import.meta.url, in CommonJS.
    banner: { js: "var __groveUrl = require('node:url').pathToFileURL(__filename).href;" },
    define: { 'import.meta.url': '__groveUrl' },
    stdin: {
      contents: names.map((name) => `export * from '${name}';`).join('\n'),
      resolveDir: process.cwd(),
      loader: 'js',
    },
    outfile: join(staging, 'vendor', `${file}.cjs`),
  });
}
await build({
  ...common,
  outExtension: { '.js': '.cjs' },
  entryPoints: { 'grove-markdown': 'src/ui/markdown.ts' },
  outdir: staging,
  // The languages answers mostly use, not all 190 (see the file).
  plugins: [
    {
      name: 'highlight-languages',
      setup(b) {
        b.onResolve({ filter: /^highlight\.js$/ }, () => ({
          path: join(process.cwd(), 'src', 'ui', 'highlight-languages.cjs'),
        }));
      },
    },
  ],
});
await build({
  ...common,
  // The entry point (an ES module: it awaits the app's yoga module) must run
  // its version check on any Node, so it holds nothing newer than what Node
  // 18 parses.
  format: 'esm',
  banner: { js: '#!/usr/bin/env node' },
  target: 'node18',
  entryPoints: { grove: 'src/main.ts' },
  outdir: staging,
});
// V8 keeps a module's source for as long as it runs, one byte per character
// when all of it is Latin-1, two otherwise: one stray '…' in a regular
// expression doubles the app bundle's 2.5 MB. esbuild escapes strings, not
// regular expression literals, so write those characters as \u escapes.
const vendors = VENDOR_FILES.map((file) => join('vendor', `${file}.cjs`));
for (const file of ['grove-app.cjs', 'grove-markdown.cjs', 'grove.js', ...vendors]) {
  const bytes = await readFile(join(staging, file));
  const at = bytes.findIndex((byte) => byte > 0x7f);
  if (at >= 0) {
    const text = bytes.toString('utf8', Math.max(0, at - 40), at + 10);
    await rm(staging, { recursive: true, force: true });
    throw new Error(
      `${file} holds a non-ASCII character (${JSON.stringify(text)}); escape it in the source (\\u....) so V8 keeps the bundle one byte per character`,
    );
  }
}
// yoga's WebAssembly as a file of its own, for the entry point to compile on
// another thread while the app loads (the same bytes the bundle embeds).
const yogaSource = await readFile(
  join('node_modules', 'yoga-layout', 'dist', 'binaries', 'yoga-wasm-base64-esm.js'),
  'utf8',
);
const yogaBase64 = /data:application\/octet-stream;base64,([A-Za-z0-9+/=]+)/.exec(yogaSource)?.[1];
if (!yogaBase64)
  throw new Error('yoga-layout no longer embeds its WebAssembly as base64; update xtask/build.mjs');
await writeFile(join(staging, 'yoga.wasm'), Buffer.from(yogaBase64, 'base64'));
await mkdir(join('dist', 'vendor'), { recursive: true });
// The app first, the entry point last: a start in between still finds a whole set.
for (const file of [
  ...vendors.flatMap((file) => [`${file}.map`, file]),
  'grove-markdown.cjs.map',
  'grove-markdown.cjs',
  'yoga.wasm',
  'grove-app.cjs.map',
  'grove-app.cjs',
  'grove.js.map',
]) {
  await rename(join(staging, file), join('dist', file));
}
await chmod(join(staging, 'grove.js'), 0o755);
await rename(join(staging, 'grove.js'), join('dist', 'grove.js'));
await rm(staging, { recursive: true, force: true });
// Files of earlier builds (the app as ES modules, with chunks loaded on
// first use) are no longer used. A Grove of such a build that still runs may
// yet import one of its chunks, so they stay for a day.
for (const name of [
  'grove-app.js',
  'grove-app.js.map',
  'grove-markdown.js',
  'grove-markdown.js.map',
])
  await rm(join('dist', name), { force: true });
const oldChunks = join('dist', 'chunks');
if (existsSync(oldChunks)) {
  for (const name of await readdir(oldChunks)) {
    const file = join(oldChunks, name);
    if (Date.now() - (await stat(file)).mtimeMs > 86_400_000) await rm(file, { force: true });
  }
  if ((await readdir(oldChunks)).length === 0)
    await rm(oldChunks, { recursive: true, force: true });
}
