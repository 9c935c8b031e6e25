// Grove's entry point (dist/grove.js). It checks the Node.js version first,
// then imports only Node's own modules, so the one slow outside step of
// starting the TUI (asking git for the repository root) runs while the app
// bundle loads. The app (dist/grove-app.cjs, one CommonJS file) runs through
// a V8 code cache made after the first frame (infra/code-cache.ts), so later
// starts compile almost nothing.
// Static imports only of Node's own modules and of code that runs nothing at
// load (node:module as a namespace: a named import of an API an old Node
// lacks would fail before the version check could speak).
import { existsSync, readFileSync } from 'node:fs';
import * as nodeModule from 'node:module';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compileBundle } from './infra/code-cache.js';
import { repoRoot, type RepoRootPrefetch } from './infra/git/repo-root.js';
import { grovePaths } from './infra/paths.js';
import { nodeV8Flags, reportYoungGeneration, setMemoryFlags } from './memory-flags.js';
import { IdleCollector } from './idle-memory.js';
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
// The build puts dist/grove.js (this file) next to dist/grove-app.cjs (start.ts and all it uses).
const bundle = fileURLToPath(new URL('./grove-app.cjs', import.meta.url));
if (!existsSync(bundle)) {
  process.stderr.write(`grove: ${bundle} is missing; run npm run build.\n`);
  process.exit(1);
}
// Caches are written only once GROVE_HOME exists: `grove --help` and friends
// must not create it. Node's compile cache serves the modules loaded later
// (the markdown renderer, clipboardy).
const paths = grovePaths(process.env);
const homeExists = (): boolean => existsSync(paths.home);
if (homeExists()) nodeModule.enableCompileCache?.(paths.cache);
// ink's layout engine is WebAssembly. Compiled here, it compiles on another
// thread while the app bundle is read and compiled, and the app instantiates
// it synchronously (xtask/dependency-patches.mjs, yoga-sync-load); without
// it (no file, a failed compile) the app compiles its own copy of the bytes.
const { WebAssembly: wasm } = globalThis as unknown as {
  WebAssembly: { compile(bytes: Uint8Array): Promise<unknown> };
};
let yoga: Promise<unknown> | undefined;
try {
  const compiling = wasm.compile(readFileSync(new URL('./yoga.wasm', import.meta.url)));
  compiling.catch(() => {});
  yoga = compiling;
} catch {
  yoga = undefined;
}
// A cache made after the TUI's first frame suits TUI starts; a headless
// command keeps one of its own.
const app = compileBundle<StartModule>(bundle, {
  cacheDir: paths.cache,
  kind: prefetch === null ? 'command' : 'tui',
  mayWrite: homeExists,
  // This file sits next to the bundle: specifiers resolve as they would from it.
  importer: (specifier) => import(specifier),
});
(globalThis as { __groveYogaModule?: unknown }).__groveYogaModule = await yoga?.catch(
  () => undefined,
);
/** Set once the memory flags are (settleMemory). */
let idle: IdleCollector | undefined;
const { start } = app.run();
if (prefetch === null) process.once('exit', () => app.save());
start(prefetch, {
  onFrame: () => idle?.frame(),
  afterFirstFrame: () => {
    // Written now rather than at exit: a TUI may run for days, and a crash would lose it.
    app.save();
    nodeModule.flushCompileCache?.();
    settleMemory();
  },
});

/**
 * Memory, once the first frame is out. Node 22 and later let V8 grow the
 * young generation while allocation is fast (start-up is, and so is a frame
 * per streamed event), and never give it back; and they let the old
 * generation grow to several times what is live before a full GC. For a
 * terminal app that keeps little live, that is memory held idle and far more
 * with twenty sessions streaming. From here on the young generation does not
 * grow and a full GC starts a quarter above what was live (both flags are
 * read at each GC); one memory-reducing GC, two seconds later, gives back
 * what start-up grew. Set before the first frame, the flags would slow
 * start-up with extra scavenges. Figures: docs/performance.md.
 */
function settleMemory(): void {
  // Taken here, not imported: loading node:v8 and node:vm would cost start-up
  // time (docs/performance.md). Each flag is set only where this V8 has it
  // (memory-flags.ts): an unknown one would print over the frame.
  const { setFlagsFromString } = process.getBuiltinModule('node:v8');
  const { runInNewContext } = process.getBuiltinModule('node:vm');
  void setMemoryFlags({
    v8Version: process.versions.v8,
    set: setFlagsFromString,
    knownFlags: nodeV8Flags,
  })
    .then((flags) => {
      const report = process.env['GROVE_MEMORY_FLAGS_TEST'];
      if (report) reportYoungGeneration(report, flags);
      if (!flags.includes('--expose-gc')) return;
      const gc = runInNewContext('gc') as ((options: object) => void) | undefined;
      if (!gc) return;
      const collect = (): void => gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
      setTimeout(collect, 2000).unref();
      // And again each time the TUI goes quiet after a stretch of work (idle-memory.ts).
      idle = new IdleCollector(collect);
    })
    .catch(() => {});
}
