// Runs Grove's app bundle (one CommonJS file) through a V8 code cache.
//
// V8 compiles a function when it first runs. Node's own compile cache
// (module.enableCompileCache) is made as soon as a module is compiled, so it
// holds the top-level code and little else: every start compiled again the
// thousands of functions that start-up and the first frame run (a noticeable
// share of the first frame: docs/performance.md). A cache made with Script#createCachedData
// once the first frame is out holds them too, and later starts only
// deserialize it. Any problem with the cache (missing, stale, corrupt,
// unwritable, from another Node) only means compiling from source.
//
// Imported by the entry point before it checks the Node.js version: Node's
// modules as namespaces, and nothing newer than Node 18 at load.
import * as fs from 'node:fs';
import * as nodeModule from 'node:module';
import * as path from 'node:path';
import * as url from 'node:url';
import * as vm from 'node:vm';

export interface CodeCacheOptions {
  /** The folder of the cache files. */
  readonly cacheDir: string;
  /**
   * Which use the cache is for: a cache made after the TUI's first frame
   * suits TUI starts; one made by a headless command, that command.
   */
  readonly kind: string;
  /** Whether a cache may be written now (false, for example, before GROVE_HOME exists). */
  readonly mayWrite: () => boolean;
  /** import() for the bundle (`__groveImport`): a vm.Script has none of its own. */
  readonly importer: (specifier: string) => Promise<unknown>;
}

export interface CompiledBundle<T> {
  /** True when V8 took the cache: nothing had to be compiled from source. */
  readonly cached: boolean;
  /** Runs the bundle's top level (once); its exports. */
  run(): T;
  /**
   * Writes what V8 has compiled so far as the cache, when there was none or
   * V8 rejected it; at most once, and never throws.
   */
  save(): void;
}

/**
 * Parameters of the function the bundle runs in: CommonJS's, then
 * `__groveUrl` for import.meta.url and `__groveImport` for import()
 * (infra/external-import.ts).
 */
const WRAPPER =
  '(function (exports, require, module, __filename, __dirname, __groveUrl, __groveImport) {\n';

function tryRead(file: string): Buffer | undefined {
  try {
    return fs.readFileSync(file);
  } catch {
    return undefined;
  }
}

function removeQuietly(file: string): void {
  try {
    fs.rmSync(file, { force: true });
  } catch {
    // Left for the next save's clean-up, or for nobody: it is never read.
  }
}

/** The cache file's name: a new build, Node or use gets a new file. */
function cacheName(file: string, kind: string): string {
  const stat = fs.statSync(file);
  return `${cachePrefix(file, kind)}${process.version}-${process.arch}-${stat.size}-${Math.floor(stat.mtimeMs)}.v8`;
}

function cachePrefix(file: string, kind: string): string {
  return `${path.basename(file)}-${kind}-`;
}

/**
 * Compiles the CommonJS file `file` (from the cache when there is one) to be
 * run in this context.
 */
export function compileBundle<T>(file: string, options: CodeCacheOptions): CompiledBundle<T> {
  const name = cacheName(file, options.kind);
  const cacheFile = path.join(options.cacheDir, name);
  const cachedData = tryRead(cacheFile);
  const source = fs.readFileSync(file, 'utf8');
  const script = new vm.Script(`${WRAPPER}${source}\n})`, {
    filename: file,
    // The wrapper's line comes before the file's first line.
    lineOffset: -1,
    ...(cachedData === undefined ? {} : { cachedData }),
  });
  const cached = cachedData !== undefined && script.cachedDataRejected !== true;
  let ran = false;
  let exportsOf: T | undefined;
  let saved = cached;
  return {
    cached,
    run() {
      if (ran) return exportsOf as T;
      ran = true;
      const module = { exports: {} as T };
      const body = script.runInThisContext() as (...args: unknown[]) => void;
      body.call(
        module.exports,
        module.exports,
        nodeModule.createRequire(file),
        module,
        file,
        path.dirname(file),
        url.pathToFileURL(file).href,
        options.importer,
      );
      exportsOf = module.exports;
      return exportsOf;
    },
    save() {
      if (saved) return;
      saved = true;
      const temp = `${cacheFile}.${process.pid}.tmp`;
      try {
        if (!options.mayWrite()) return;
        fs.mkdirSync(options.cacheDir, { recursive: true, mode: 0o700 });
        fs.writeFileSync(temp, script.createCachedData(), { mode: 0o600 });
        fs.renameSync(temp, cacheFile);
        // Caches of other builds or Node versions for the same use are of no further use.
        const prefix = cachePrefix(file, options.kind);
        for (const other of fs.readdirSync(options.cacheDir)) {
          if (other !== name && other.startsWith(prefix) && other.endsWith('.v8'))
            fs.rmSync(path.join(options.cacheDir, other), { force: true });
        }
      } catch {
        // A read-only or full disk: the next start compiles from source again.
        removeQuietly(temp);
      }
    },
  };
}
