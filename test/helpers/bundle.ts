// Bundles for tests with esbuild, as ES modules for Node: a dependency file
// with or without the build's patches, a part of Grove. `options` name what
// to bundle (entryPoints or stdin) and add to or replace the defaults.
import { pathToFileURL } from 'node:url';
import { build, type BuildOptions } from 'esbuild';

export async function bundleFile(outfile: string, options: BuildOptions): Promise<void> {
  await build({
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    logLevel: 'error',
    ...options,
  });
}

/** Bundled into `outfile`, then imported: its module. */
export async function bundleAndImport<T>(outfile: string, options: BuildOptions): Promise<T> {
  await bundleFile(outfile, options);
  return (await import(pathToFileURL(outfile).href)) as T;
}
