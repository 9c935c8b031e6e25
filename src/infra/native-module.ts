// Recognises a native addon that does not load (built for another Node,
// another platform or libc, or missing its binary) and says what fixes it,
// so the failure is not mistaken for a database problem.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join, sep } from 'node:path';

export type NativeLoadProblem =
  | 'abi_mismatch'
  | 'missing_binary'
  | 'wrong_platform'
  | 'libc_mismatch'
  | 'node_api_too_old'
  | 'load_failed';

/** Why a native module did not load, in terms a person can act on. */
export interface NativeLoadFailure {
  readonly module: string;
  readonly problem: NativeLoadProblem;
  /** What the binary was built for ("Node 24 (NODE_MODULE_VERSION 137)"), when the loader says. */
  readonly builtFor: string | null;
  /** The running Node: "v22.23.3 (NODE_MODULE_VERSION 127)". */
  readonly running: string;
  /** The loader's own first line. */
  readonly detail: string;
  /** The command (and where to run it) that fixes it. */
  readonly fix: string;
}

/** NODE_MODULE_VERSION → Node major (nodejs.org/dist/index.json, the `modules` field). */
const NODE_FOR_MODULES: Readonly<Record<number, number>> = {
  108: 18,
  115: 20,
  120: 21,
  127: 22,
  131: 23,
  137: 24,
  141: 25,
  147: 26,
};

/** "Node 24 (NODE_MODULE_VERSION 137)", or the bare module version when the Node major is not known. */
export function nodeForModuleVersion(modules: number): string {
  const major = NODE_FOR_MODULES[modules];
  return major === undefined
    ? `NODE_MODULE_VERSION ${modules}`
    : `Node ${major} (NODE_MODULE_VERSION ${modules})`;
}

export interface RunningNode {
  readonly version: string;
  readonly modules: string;
}

const THIS_NODE: RunningNode = { version: process.version, modules: process.versions.modules };

/** Loader messages, most specific first. */
const PATTERNS: readonly (readonly [NativeLoadProblem, RegExp])[] = [
  [
    'abi_mismatch',
    /NODE_MODULE_VERSION\s+(\d+)\.\s+This version of Node\.js requires\s+NODE_MODULE_VERSION\s+(\d+)/,
  ],
  ['node_api_too_old', /requires Node-API version \d+/],
  ['libc_mismatch', /GLIBC(?:XX)?_[\d.]+'? not found|libc\.musl|ld-musl|Error relocating/],
  ['missing_binary', /Could not locate the bindings file|Cannot find module '[^']*\.node'/],
  [
    'wrong_platform',
    /invalid ELF header|wrong ELF class|file too short|not a mach-o file|wrong architecture|incompatible architecture|not a valid Win32 application|cannot open shared object file|exec format error/i,
  ],
];

/** A loader error about a native addon, as opposed to any other failure. */
function isNativeLoadError(code: string, text: string): boolean {
  return (
    code === 'ERR_DLOPEN_FAILED' ||
    (code === 'MODULE_NOT_FOUND' && /\.node'/.test(text)) ||
    /Could not locate the bindings file|NODE_MODULE_VERSION \d+/.test(text)
  );
}

/**
 * The failure behind `error` when it is a native addon that did not load
 * (ERR_DLOPEN_FAILED, a missing `.node` file), else null. `module` names
 * the package when the message does not.
 */
export function classifyNativeLoadError(
  error: unknown,
  module: string,
  running: RunningNode = THIS_NODE,
): NativeLoadFailure | null {
  if (!(error instanceof Error)) return null;
  const code = (error as NodeJS.ErrnoException).code ?? '';
  const text = error.message;
  if (!isNativeLoadError(code, text)) return null;
  const problem = PATTERNS.find(([, pattern]) => pattern.test(text))?.[0] ?? 'load_failed';
  let builtFor: string | null = null;
  if (problem === 'abi_mismatch') {
    const built = /NODE_MODULE_VERSION\s+(\d+)\.\s+This version/.exec(text)?.[1];
    if (built) builtFor = nodeForModuleVersion(Number(built));
  } else if (problem === 'libc_mismatch' && /musl/.test(text)) {
    builtFor = 'musl libc (Alpine)';
  } else if (problem === 'wrong_platform') {
    builtFor = 'another operating system or CPU';
  }
  const name = packageIn(text) ?? module;
  return {
    module: name,
    problem,
    builtFor,
    running: `${running.version} (NODE_MODULE_VERSION ${running.modules})`,
    detail: firstLine(text),
    fix: fixFor(name),
  };
}

/** One line for the person: what did not load, for which Node, and the command that fixes it. */
export function nativeLoadMessage(f: NativeLoadFailure): string {
  const what = `${f.module}'s native module does not load`;
  const why = ((): string => {
    switch (f.problem) {
      case 'abi_mismatch':
        return `it was built for ${f.builtFor ?? 'another Node.js'}, and this is Node ${f.running}`;
      case 'missing_binary':
        return `its binary is missing (${f.detail})`;
      case 'wrong_platform':
        return `its binary is for another operating system or CPU (${f.detail}); this is Node ${f.running} on ${process.platform}-${process.arch}`;
      case 'libc_mismatch':
        return `its binary needs another C library (${f.detail})`;
      case 'node_api_too_old':
        return `it needs a newer Node-API than Node ${f.running} has (${f.detail})`;
      case 'load_failed':
        return `${f.detail}; this is Node ${f.running}`;
    }
  })();
  return `${what}: ${why}. Fix: ${f.fix}.`;
}

/**
 * The command that reinstalls the module for the running Node: `npm
 * rebuild` where the package builds itself on install; else a clean
 * install of the checkout that holds it, or a reinstall of Grove.
 */
function fixFor(module: string): string {
  const pkgDir = packageDir(module);
  const root = pkgDir === null ? null : installRoot(pkgDir);
  if (root === null)
    return `reinstall Grove with the Node you run it with (\`npm rebuild ${module}\` or \`npm ci\` in its folder)`;
  if (pkgDir !== null && hasInstallScript(pkgDir))
    return `run \`npm rebuild ${module}\` in ${root} with the Node you run Grove with (or reinstall with \`npm ci\`)`;
  if (existsSync(join(root, 'package-lock.json')) || existsSync(join(root, 'npm-shrinkwrap.json')))
    return `run \`npm ci\` in ${root} with the Node you run Grove with`;
  // Installed as a package itself (npm install --global): reinstall it.
  const name = basename(dirname(root)) === 'node_modules' ? packageName(root) : null;
  return name === null
    ? `run \`npm install\` in ${root} with the Node you run Grove with`
    : `reinstall Grove with the Node you run it with: \`npm install --global ${name}\``;
}

function packageDir(module: string): string | null {
  try {
    return dirname(createRequire(import.meta.url).resolve(`${module}/package.json`));
  } catch {
    return null;
  }
}

/** The folder whose node_modules holds `pkgDir`. */
function installRoot(pkgDir: string): string | null {
  const marker = `${sep}node_modules${sep}`;
  const at = pkgDir.lastIndexOf(marker);
  return at <= 0 ? null : pkgDir.slice(0, at);
}

/** npm runs an install script (or node-gyp) for the package, so `npm rebuild` rebuilds it. */
function hasInstallScript(pkgDir: string): boolean {
  const pkg = readPackage(pkgDir);
  if (pkg === null) return false;
  return (
    Boolean(pkg.scripts?.['install']) ||
    (pkg.gypfile !== false && existsSync(join(pkgDir, 'binding.gyp')))
  );
}

function packageName(dir: string): string | null {
  return readPackage(dir)?.name ?? null;
}

interface PackageJson {
  readonly name?: string;
  readonly version?: string;
  readonly scripts?: Record<string, string>;
  readonly gypfile?: boolean;
}

function readPackage(dir: string): PackageJson | null {
  try {
    return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as PackageJson;
  } catch {
    return null;
  }
}

/** The package a loader message names by its node_modules path, if any. */
function packageIn(text: string): string | null {
  const match = /node_modules[\\/]((?:@[^\\/]+[\\/])?[^\\/\s']+)/.exec(text);
  return match?.[1]?.replace(/\\/g, '/') ?? null;
}

function firstLine(text: string): string {
  return (text.split('\n')[0] ?? text).trim();
}

/** The version in `module`'s package.json, or null. */
export function moduleVersion(module: string): string | null {
  const dir = packageDir(module);
  return dir === null ? null : (readPackage(dir)?.version ?? null);
}
