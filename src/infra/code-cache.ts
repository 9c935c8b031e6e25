// Loads Grove's bundled app (one CommonJS file) through V8's code cache.
// Compiling the 3 MB bundle from source costs about 40 ms on every start;
// with the cache V8 only deserializes the functions an earlier run compiled.
// Node 22 offers this as module.enableCompileCache(); Node 20 does not, so it
// is done here with vm.Script. Any problem with the cache (missing, stale,
// unwritable, from another Node) only means compiling from source.
import { createRequire } from 'node:module';
import { mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import vm from 'node:vm';

export interface CachedModule<T> {
  readonly exports: T;
  /** Writes the code compiled so far to the cache when it was missing or rejected; never throws. */
  save(): void;
}

function tryRead(file: string): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch {
    return undefined;
  }
}

/**
 * Runs the CommonJS file `file` in this context. Inside it `__groveUrl` is the
 * file's URL (the bundle's stand-in for import.meta.url) and `__groveImport`
 * is `importer`: a script run by vm.Script cannot call import() itself.
 */
export function loadWithCodeCache<T>(file: string, cacheDir: string, importer: (specifier: string) => Promise<unknown>): CachedModule<T> {
  const stat = statSync(file);
  const key = `${basename(file)}-${process.version}-${process.arch}-${stat.size}-${Math.floor(stat.mtimeMs)}.v8`;
  const cacheFile = join(cacheDir, key);
  const cachedData = tryRead(cacheFile);
  const source = readFileSync(file, 'utf8');
  const wrapped = `(function (exports, require, module, __filename, __dirname, __groveUrl, __groveImport) {${source}\n})`;
  const script = new vm.Script(wrapped, { filename: file, ...(cachedData ? { cachedData } : {}) });
  const fresh = cachedData === undefined || script.cachedDataRejected === true;
  const module = { exports: {} as T };
  const run = script.runInThisContext() as (...args: unknown[]) => void;
  run(module.exports, createRequire(file), module, file, dirname(file), pathToFileURL(file).href, importer);
  let saved = !fresh;
  return {
    exports: module.exports,
    save() {
      if (saved) return;
      saved = true;
      try {
        mkdirSync(cacheDir, { recursive: true });
        const temp = `${cacheFile}.${process.pid}.tmp`;
        writeFileSync(temp, script.createCachedData());
        renameSync(temp, cacheFile);
        // Caches of other builds or Node versions are of no further use.
        for (const name of readdirSync(cacheDir)) {
          if (name !== key && name.startsWith(`${basename(file)}-`) && name.endsWith('.v8')) rmSync(join(cacheDir, name), { force: true });
        }
      } catch {
        // A read-only or full disk: the next start compiles from source again.
      }
    },
  };
}
