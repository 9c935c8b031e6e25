// Bundles Grove into one ESM file (dist/grove.js). Native addons stay external.
import { build } from 'esbuild';
import { chmod, readFile, rm } from 'node:fs/promises';

const pkg = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8'));

await rm('dist', { recursive: true, force: true });
await build({
  entryPoints: { grove: 'src/main.ts' },
  outdir: 'dist',
  // Rarely needed parts (markdown highlighting, the GitHub client) load on demand.
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  jsx: 'automatic',
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: 'none',
  sourcemap: 'linked',
  external: ['better-sqlite3', 'react-devtools-core'],
  define: {
    __GROVE_VERSION__: JSON.stringify(pkg.version),
    'process.env.NODE_ENV': '"production"',
  },
  banner: {
    // A few bundled CommonJS modules call require(); give them one.
    js: "#!/usr/bin/env node\nimport { createRequire as __groveRequire } from 'node:module'; const require = __groveRequire(import.meta.url);",
  },
  logLevel: 'warning',
});
await chmod('dist/grove.js', 0o755);
