// Grove runs one ink: its fork in packages/ink (packages/ink/README.md).
// package.json installs it as `ink` and overrides every other package's ink
// with it, so src/, the tests and any package that depends on ink load the
// same files. A second copy (a dependency bringing stock ink, an override
// gone) would be a second React renderer with its own state, and the fork's
// changes would silently not apply to it.
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const FORK = realpathSync(join(ROOT, 'packages', 'ink'));

interface Manifest {
  name?: string;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
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

/** The folders of the ink packages installed under `root` (stock ink or a fork named like ours). */
function inkCopies(root: string): string[] {
  return [...installedPackages(join(root, 'node_modules'))]
    .filter(([, pkg]) => pkg.name === 'ink' || pkg.name === '@grove/ink')
    .map(([dir]) => dir);
}

/** Where `ink` resolves from the root and from every installed package that depends on it. */
function inkResolutions(root: string): Map<string, string> {
  const resolved = new Map<string, string>();
  const from = (dir: string): void => {
    const require = createRequire(join(dir, 'package.json'));
    resolved.set(dir, realpathSync(require.resolve('ink')));
  };
  from(root);
  for (const [dir, pkg] of installedPackages(join(root, 'node_modules'))) {
    const names = {
      ...pkg.dependencies,
      ...pkg.peerDependencies,
      ...pkg.optionalDependencies,
    };
    if ('ink' in names) from(dir);
  }
  return resolved;
}

describe('one ink, the fork', () => {
  it('is the only ink installed', () => {
    expect(inkCopies(ROOT)).toEqual([FORK]);
  });

  it('is what `ink` resolves to, from Grove and from every package that depends on ink', () => {
    const targets = new Set(inkResolutions(ROOT).values());
    expect([...targets]).toEqual([join(FORK, 'build', 'index.js')]);
  });

  it('is installed from packages/ink and overrides every other ink', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
      overrides: Record<string, unknown>;
    };
    expect(pkg.dependencies['ink']).toBe('file:packages/ink');
    expect(pkg.overrides['ink']).toBe('$ink');
    expect(manifest(FORK)?.name).toBe('@grove/ink');
  });

  it('would see a second copy (a package bringing its own ink)', () => {
    const write = (dir: string, pkg: Manifest): void => {
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'package.json'), JSON.stringify(pkg));
      writeFileSync(join(dir, 'index.js'), '');
    };
    // Node caches resolutions by folder: each tree in a folder of its own.
    const tree = (secondCopy: boolean): string => {
      const root = mkdtempSync(join(tmpdir(), 'grove-ink-copies-'));
      write(root, { name: 'app', dependencies: { ink: '*', 'ink-widget': '*' } });
      write(join(root, 'node_modules', 'ink'), { name: '@grove/ink' });
      write(join(root, 'node_modules', 'ink-widget'), {
        name: 'ink-widget',
        peerDependencies: { ink: '*' },
      });
      if (secondCopy)
        write(join(root, 'node_modules', 'ink-widget', 'node_modules', 'ink'), { name: 'ink' });
      return root;
    };
    const one = tree(false);
    const two = tree(true);
    try {
      expect(inkCopies(one)).toHaveLength(1);
      expect(new Set(inkResolutions(one).values()).size).toBe(1);
      expect(inkCopies(two)).toHaveLength(2);
      expect(new Set(inkResolutions(two).values()).size).toBe(2);
    } finally {
      rmSync(one, { recursive: true, force: true });
      rmSync(two, { recursive: true, force: true });
    }
  });
});
