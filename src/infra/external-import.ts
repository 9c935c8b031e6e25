// import() of a package that is not bundled and exists only as an ES module
// (clipboardy). The bundled app runs as a vm.Script (infra/code-cache.ts),
// where import() is not available: there the entry point passes in
// `__groveImport`, its own import(). From source (tests), plain import().
declare const __groveImport: ((specifier: string) => Promise<unknown>) | undefined;

export function importExternal<T>(specifier: string): Promise<T> {
  if (typeof __groveImport === 'function') return __groveImport(specifier) as Promise<T>;
  return import(specifier) as Promise<T>;
}
