// Grove's entry point. It imports only Node's own modules, so the one slow
// outside step of starting the TUI (asking git for the repository root) runs
// while the app bundle loads; the app is loaded through V8's code cache.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadWithCodeCache } from './infra/code-cache.js';
import { repoRoot, type RepoRootPrefetch } from './infra/git/repo-root.js';
import { grovePaths } from './infra/paths.js';
import type * as startModule from './start.js';

type StartModule = typeof startModule;

/** The TUI's folder when the arguments are plainly `grove` or `grove -C DIR`; otherwise null (start.ts parses them properly). */
function tuiDir(argv: readonly string[]): string | null {
  if (!process.stdout.isTTY) return null;
  if (argv.length === 0) return process.cwd();
  if (argv.length === 2 && argv[0] === '-C' && argv[1]) return resolve(argv[1]);
  return null;
}

const dir = tuiDir(process.argv.slice(2));
const prefetch: RepoRootPrefetch | null = dir === null ? null : { dir, root: repoRoot(dir) };
// The build puts dist/grove.js (this file) next to dist/grove-app.cjs (start.ts and all it uses).
const bundle = fileURLToPath(new URL('./grove-app.cjs', import.meta.url));
if (!existsSync(bundle)) {
  process.stderr.write(`grove: ${bundle} is missing; run npm run build.\n`);
  process.exit(1);
}
// Packages that are ES modules only (clipboardy) are imported from here, next to the bundle.
const app = loadWithCodeCache<StartModule>(bundle, grovePaths(process.env).cache, (specifier) => import(specifier));
// Keep the code compiled for the first frame (the markdown renderer loads
// later and stays out: a smaller cache loads faster). Headless commands keep
// what they compiled in their first two seconds.
setTimeout(() => app.save(), 2000).unref();
app.exports.start(prefetch, { afterFirstFrame: () => app.save() });
