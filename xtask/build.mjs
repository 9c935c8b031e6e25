// Bundles Grove into one ESM file (dist/grove.js). Native addons stay external.
import { build } from 'esbuild';
import { chmod, mkdir, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';

const pkg = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8'));

// Build into a private folder, then move the result into dist/ so a running
// Grove (or a test using dist/grove.js) never sees a half-written bundle.
const staging = join('dist', `.build-${process.pid}`);
await rm(staging, { recursive: true, force: true });
await build({
  entryPoints: { grove: 'src/main.ts' },
  outdir: staging,
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
  external: ['better-sqlite3', 'react-devtools-core', 'clipboardy'],
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
await mkdir(join('dist', 'chunks'), { recursive: true });
// Chunks and lazily loaded modules carry a content hash in their names: new
// ones never replace files in use. The entry point moves last.
for (const chunk of await readdir(join(staging, 'chunks')).catch(() => [])) {
  await rename(join(staging, 'chunks', chunk), join('dist', 'chunks', chunk));
}
for (const file of await readdir(staging)) {
  if (file === 'chunks' || file.startsWith('grove.js')) continue;
  await rename(join(staging, file), join('dist', file));
}
await chmod(join(staging, 'grove.js'), 0o755);
await rename(join(staging, 'grove.js.map'), join('dist', 'grove.js.map'));
await rename(join(staging, 'grove.js'), join('dist', 'grove.js'));
await rm(staging, { recursive: true, force: true });
// Drop chunks of earlier builds (kept for an hour for copies still running).
const hour = Date.now() - 3_600_000;
const current = await readFile(join('dist', 'grove.js'), 'utf8');
for (const chunk of await readdir(join('dist', 'chunks'))) {
  const file = join('dist', 'chunks', chunk);
  if (current.includes(chunk.replace(/\.map$/, '')) || (await stat(file)).mtimeMs > hour) continue;
  await rm(file, { force: true });
}
