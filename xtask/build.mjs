// Bundles Grove with esbuild into two files. Native addons stay external.
//   dist/grove.js       the `grove` bin (ESM, a few KB): starts the repository
//                       lookup, then loads the app through V8's code cache
//   dist/grove-app.cjs  src/start.ts and everything it uses, as one CommonJS
//                       file: vm.Script (and so the code cache) runs scripts,
//                       not ES modules, on Node 20
//   dist/grove-markdown.cjs  the markdown renderer, loaded after the first frame
import { build } from 'esbuild';
import { dependencyPatches } from './dependency-patches.mjs';
import { chmod, mkdir, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';

const pkg = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8'));

// The markdown renderer (marked-terminal and its highlighter: half the code)
// loads after the first frame from its own file, keeping the app file (and
// its code cache) small.
const markdownApart = {
  name: 'markdown-apart',
  setup(b) {
    b.onResolve({ filter: /[\\/]ui[\\/]markdown\.js$/ }, () => ({ path: './grove-markdown.cjs', external: true }));
  },
};

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
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
await build({
  ...common,
  entryPoints: { 'grove-app': 'src/start.ts' },
  outdir: staging,
  outExtension: { '.js': '.cjs' },
  format: 'cjs',
  external: ['better-sqlite3', 'clipboardy'],
  // vm.Script cannot import(): lazy parts become require() calls (the
  // markdown file is CommonJS too), ES-module-only packages go through
  // src/infra/external-import.ts.
  supported: { 'dynamic-import': false },
  define: {
    __GROVE_VERSION__: JSON.stringify(pkg.version),
    'process.env.NODE_ENV': '"production"',
    // Supplied by src/infra/code-cache.ts, which runs this file.
    'import.meta.url': '__groveUrl',
  },
  plugins: [...dependencyPatches, markdownApart],
});
await build({
  ...common,
  entryPoints: { 'grove-markdown': 'src/ui/markdown.ts' },
  outdir: staging,
  outExtension: { '.js': '.cjs' },
  format: 'cjs',
  // The languages answers mostly use, not all 190 (see the file).
  plugins: [
    {
      name: 'highlight-languages',
      setup(b) {
        b.onResolve({ filter: /^highlight\.js$/ }, () => ({ path: join(process.cwd(), 'src', 'ui', 'highlight-languages.cjs') }));
      },
    },
  ],
});
await build({
  ...common,
  entryPoints: { grove: 'src/main.ts' },
  outdir: staging,
  format: 'esm',
  banner: { js: '#!/usr/bin/env node' },
});
await mkdir('dist', { recursive: true });
// The app first, the entry point last: a start in between still finds a whole pair.
for (const file of ['grove-markdown.cjs.map', 'grove-markdown.cjs', 'grove-app.cjs.map', 'grove-app.cjs', 'grove.js.map']) {
  await rename(join(staging, file), join('dist', file));
}
await chmod(join(staging, 'grove.js'), 0o755);
await rename(join(staging, 'grove.js'), join('dist', 'grove.js'));
await rm(staging, { recursive: true, force: true });
// Earlier builds split the app into chunks; those are no longer used.
await rm(join('dist', 'chunks'), { recursive: true, force: true });
