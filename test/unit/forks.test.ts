// Grove runs one copy of each package it forks (packages/*/README.md): ink,
// string-width and @alcalzone/ansi-tokenize. Each fork is installed under the
// upstream name, and package.json's `overrides` (or the fork of ink's own
// dependencies) give it to every package that asks for it, whatever version
// they ask for, so src/, the tests, dev runs and the bundle load the same
// files. A second copy (a dependency bringing the stock package, an override
// gone) would silently miss the fork's changes: for ink, a second React
// renderer with its own state; for string-width, text measured two ways.
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');

interface Manifest {
  name?: string;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  overrides?: Record<string, unknown>;
}

function manifest(dir: string): Manifest | undefined {
  try {
    return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest;
  } catch {
    return undefined;
  }
}

/** Every installed package under `nodeModules` (nested node_modules too), by real path. */
function installedPackages(
  nodeModules: string,
  found = new Map<string, Manifest>(),
): Map<string, Manifest> {
  let entries: string[];
  try {
    entries = readdirSync(nodeModules);
  } catch {
    return found;
  }
  for (const entry of entries) {
    if (entry.startsWith('.')) continue;
    const dirs = entry.startsWith('@')
      ? readdirSync(join(nodeModules, entry)).map((name) => join(nodeModules, entry, name))
      : [join(nodeModules, entry)];
    for (const dir of dirs) {
      let real: string;
      try {
        real = realpathSync(dir);
      } catch {
        continue;
      }
      const pkg = manifest(real);
      if (pkg === undefined || found.has(real)) continue;
      found.set(real, pkg);
      installedPackages(join(real, 'node_modules'), found);
    }
  }
  return found;
}

/** The folders of the copies of `name` installed under `root` (stock, or a fork named `fork`). */
function copies(root: string, name: string, fork: string): string[] {
  return [...installedPackages(join(root, 'node_modules'))]
    .filter(([, pkg]) => pkg.name === name || pkg.name === fork)
    .map(([dir]) => dir);
}

/**
 * The folder Node takes `name` from when `from` imports it: the first
 * node_modules/`name` up from `from`, by real path (whatever the package's
 * exports allow, so for ES-module-only packages too).
 */
function resolvedFolder(from: string, name: string): string | undefined {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return realpathSync(candidate);
    if (dirname(dir) === dir) return undefined;
  }
}

/** Where `name` resolves from the root and from every installed package that depends on it. */
function resolutions(root: string, name: string): Map<string, string | undefined> {
  const resolved = new Map<string, string | undefined>();
  resolved.set(root, resolvedFolder(root, name));
  for (const [dir, pkg] of installedPackages(join(root, 'node_modules'))) {
    const names = {
      ...pkg.dependencies,
      ...pkg.peerDependencies,
      ...pkg.optionalDependencies,
    };
    if (name in names) resolved.set(dir, resolvedFolder(dir, name));
  }
  return resolved;
}

const FORKS = [
  // users: Grove and the installed packages that depend on it, at least.
  { name: 'ink', fork: '@grove/ink', folder: 'ink', from: '', spec: 'file:packages/ink', users: 1 },
  {
    name: 'string-width',
    fork: '@grove/string-width',
    folder: 'string-width',
    from: '',
    spec: 'file:packages/string-width',
    // ink, wrap-ansi 10 and 7, cli-truncate, slice-ansi, widest-line, cli-table3, cliui, yargs, ansi-tokenize
    users: 11,
  },
  {
    name: '@alcalzone/ansi-tokenize',
    fork: '@grove/ansi-tokenize',
    folder: 'ansi-tokenize',
    from: 'packages/ink',
    spec: 'file:../ansi-tokenize',
    users: 2,
  },
] as const;

describe.each(FORKS)('one $name, the fork', ({ name, fork, folder, from, spec, users }) => {
  const FORK = realpathSync(join(ROOT, 'packages', folder));

  it('is the only copy installed', () => {
    expect(copies(ROOT, name, fork)).toEqual([FORK]);
  });

  it('is what it resolves to, from Grove and from every package that depends on it', () => {
    const resolved = resolutions(ROOT, name);
    expect(resolved.size).toBeGreaterThanOrEqual(users);
    expect([...new Set(resolved.values())]).toEqual([FORK]);
  });

  it('is declared from packages/ and overrides every other copy', () => {
    const root = manifest(ROOT);
    expect(manifest(join(ROOT, from))?.dependencies?.[name]).toBe(spec);
    // ansi-tokenize has one user, the fork of ink, which declares it.
    if (from === '') expect(root?.overrides?.[name]).toBe(`$${name}`);
    else expect(root?.overrides?.[name]).toBeUndefined();
    expect(manifest(FORK)?.name).toBe(fork);
  });
});

describe('the one-copy check', () => {
  it('would see a second copy (a package bringing its own)', () => {
    const write = (dir: string, pkg: Manifest): void => {
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'package.json'), JSON.stringify(pkg));
      writeFileSync(join(dir, 'index.js'), '');
    };
    const tree = (secondCopy: boolean): string => {
      const root = mkdtempSync(join(tmpdir(), 'grove-fork-copies-'));
      write(root, { name: 'app', dependencies: { 'string-width': '*', 'cli-table3': '*' } });
      write(join(root, 'node_modules', 'string-width'), { name: '@grove/string-width' });
      write(join(root, 'node_modules', 'cli-table3'), {
        name: 'cli-table3',
        dependencies: { 'string-width': '^4.2.0' },
      });
      if (secondCopy)
        write(join(root, 'node_modules', 'cli-table3', 'node_modules', 'string-width'), {
          name: 'string-width',
        });
      return root;
    };
    const one = tree(false);
    const two = tree(true);
    try {
      expect(copies(one, 'string-width', '@grove/string-width')).toHaveLength(1);
      expect(new Set(resolutions(one, 'string-width').values()).size).toBe(1);
      expect(copies(two, 'string-width', '@grove/string-width')).toHaveLength(2);
      expect(new Set(resolutions(two, 'string-width').values()).size).toBe(2);
    } finally {
      rmSync(one, { recursive: true, force: true });
      rmSync(two, { recursive: true, force: true });
    }
  });
});
