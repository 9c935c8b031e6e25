import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// A fresh clone stays clean after `npm install`: the committed lockfile says
// what npm writes after it has unpacked the packages. `--package-lock-only`
// cannot show this (it never unpacks), so the check reads the installed
// packages the way npm's reify does: a package "has an install script" when
// its package.json has preinstall, install or postinstall, or when its folder
// holds binding.gyp (npm checks the file, whatever `gypfile` says; this is
// what better-sqlite3 13 needs). Checked by hand with npm 11 on Node 24 and
// Node 20 and npm 10 on Node 20: install and ci leave `git status` clean.

const root = join(import.meta.dirname, '..', '..');

interface LockEntry {
  version?: string;
  hasInstallScript?: boolean;
  link?: boolean;
}

const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, LockEntry>;
};

const installed = Object.entries(lock.packages).filter(
  ([path, entry]) =>
    path.startsWith('node_modules/') &&
    entry.link !== true &&
    existsSync(join(root, path, 'package.json')),
);

function npmSeesInstallScript(path: string): boolean {
  const pkg = JSON.parse(readFileSync(join(root, path, 'package.json'), 'utf8')) as {
    scripts?: Record<string, string>;
  };
  const scripts = pkg.scripts ?? {};
  return (
    'preinstall' in scripts ||
    'install' in scripts ||
    'postinstall' in scripts ||
    existsSync(join(root, path, 'binding.gyp'))
  );
}

describe('package-lock.json matches what npm install writes', () => {
  it('covers the installed packages', () => {
    expect(installed.length).toBeGreaterThan(100);
    expect(installed.map(([path]) => path)).toContain('node_modules/better-sqlite3');
  });

  it('marks exactly the packages npm sees an install script in', () => {
    const wrong = installed
      .filter(([path, entry]) => (entry.hasInstallScript === true) !== npmSeesInstallScript(path))
      .map(([path, entry]) => `${path}: lockfile says ${entry.hasInstallScript === true}`);
    expect(wrong).toEqual([]);
  });

  it('names the installed versions', () => {
    const wrong = installed
      .filter(([path, entry]) => {
        const pkg = JSON.parse(readFileSync(join(root, path, 'package.json'), 'utf8')) as {
          version: string;
        };
        return pkg.version !== entry.version;
      })
      .map(([path]) => path);
    expect(wrong).toEqual([]);
  });
});
