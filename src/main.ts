// Grove's entry point (dist/grove.js). It checks the Node.js version first,
// then imports only Node's own modules, so the one slow outside step of
// starting the TUI (asking git for the repository root) runs while the app
// bundle loads. Node's compile cache (module.enableCompileCache) keeps V8's
// compiled code for the bundle, so later starts skip compiling it.
// Static imports only of Node's own modules and of code that runs nothing at
// load (node:module as a namespace: a named import of an API an old Node
// lacks would fail before the version check could speak).
import { existsSync, readFileSync } from 'node:fs';
import * as nodeModule from 'node:module';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { repoRoot, type RepoRootPrefetch } from './infra/git/repo-root.js';
import { grovePaths } from './infra/paths.js';
import { versionProblem } from './node-version.js';
import type * as startModule from './start.js';

type StartModule = typeof startModule;

const problem = versionProblem(process.versions.node);
if (problem !== null) {
  process.stderr.write(`grove: ${problem}\n`);
  process.exit(1);
}

/** The TUI's folder when the arguments are plainly `grove` or `grove -C DIR`; otherwise null (start.ts parses them properly). */
function tuiDir(argv: readonly string[]): string | null {
  if (!process.stdout.isTTY) return null;
  if (argv.length === 0) return process.cwd();
  if (argv.length === 2 && argv[0] === '-C' && argv[1]) return resolve(argv[1]);
  return null;
}

const dir = tuiDir(process.argv.slice(2));
const prefetch: RepoRootPrefetch | null = dir === null ? null : { dir, root: repoRoot(dir) };
// The build puts dist/grove.js (this file) next to dist/grove-app.js (start.ts and all it uses).
const bundleUrl = new URL('./grove-app.js', import.meta.url);
const bundle = fileURLToPath(bundleUrl);
if (!existsSync(bundle)) {
  process.stderr.write(`grove: ${bundle} is missing; run npm run build.\n`);
  process.exit(1);
}
// Any problem with the cache (unwritable, full, from another Node) only means
// compiling from source. Only once GROVE_HOME exists: `grove --help` and
// friends must not create it.
const paths = grovePaths(process.env);
if (existsSync(paths.home)) nodeModule.enableCompileCache?.(paths.cache);
// ink's layout engine is WebAssembly, compiled on the main thread if the app
// does it as it loads. Started here, it compiles on another thread while the
// app is read and linked (importing the app: median 81.6 -> 79.0 ms over 15
// runs); the app falls back to its own copy of the bytes if this fails
// (xtask/dependency-patches.mjs, yoga-sync-load).
const wasmGlobal = globalThis as unknown as {
  WebAssembly: { compile(bytes: Uint8Array): Promise<unknown> };
  __groveYogaModule?: Promise<unknown>;
};
try {
  const compiling = wasmGlobal.WebAssembly.compile(
    readFileSync(new URL('./yoga.wasm', import.meta.url)),
  );
  compiling.catch(() => {});
  wasmGlobal.__groveYogaModule = compiling;
} catch {
  // No file (an older build): the app compiles its own copy.
}
const app = (await import(bundleUrl.href)) as StartModule;
// Write what was compiled for the first frame now, rather than at exit: a
// TUI may run for days, and a crash would lose it.
app.start(prefetch, {
  afterFirstFrame: () => {
    nodeModule.flushCompileCache?.();
    settleMemory();
  },
});

/**
 * Memory, once the first frame is out. Node 22 and later let V8 grow the
 * young generation to 64 MB per semi-space while allocation is fast (start-up
 * is, and so is a frame per streamed event), and never give it back; and they
 * let the old generation grow to several times what is live before a full
 * GC. For a terminal app that keeps about 20-30 MB live that is 20 MB held
 * idle and 100-200 MB with twenty sessions streaming. From here on the young
 * generation does not grow and a full GC starts a quarter above what was
 * live (both flags are read at each GC); one memory-reducing GC, two seconds
 * later, gives back what start-up grew. Set before the first frame, the
 * flags cost start-up about 20 ms of extra scavenges.
 */
function settleMemory(): void {
  // Taken here, not imported: loading node:v8 and node:vm cost start-up about 2 ms.
  const { setFlagsFromString } = process.getBuiltinModule('node:v8');
  const { runInNewContext } = process.getBuiltinModule('node:vm');
  setFlagsFromString('--semi-space-growth-factor=1');
  setFlagsFromString('--heap-growing-percent=25');
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as ((options: object) => void) | undefined;
  setTimeout(() => gc?.({ type: 'major', execution: 'sync', flavor: 'last-resort' }), 2000).unref();
}
