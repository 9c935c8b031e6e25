import { execFileSync, spawn } from 'node:child_process';
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { nodeForModuleVersion } from '../../src/infra/native-module.js';
import { ROOT } from '../helpers/grove-env.js';
import { REAL_CLI_BIN } from '../helpers/real-clis.js';

// A Grove install whose better-sqlite3 binary does not load, for real: a
// copy of the built Grove (dist/, migrations/, package.json) next to a
// node_modules where better-sqlite3 is a copy with its binary removed or
// swapped for another platform's, and every other package linked.

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

let dir: string;
let install: string;
let addon: string;

beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'grove-native-')));
  install = join(dir, 'grove');
  mkdirSync(join(install, 'node_modules'), { recursive: true });
  cpSync(join(ROOT, 'dist'), join(install, 'dist'), {
    recursive: true,
    filter: (src) => !src.includes('.build-'),
  });
  cpSync(join(ROOT, 'migrations'), join(install, 'migrations'), { recursive: true });
  for (const file of ['package.json', 'package-lock.json'])
    copyFileSync(join(ROOT, file), join(install, file));
  for (const name of readdirSync(join(ROOT, 'node_modules'))) {
    if (name === 'better-sqlite3' || name.startsWith('.')) continue;
    symlinkSync(join(ROOT, 'node_modules', name), join(install, 'node_modules', name));
  }
  const pkg = join(install, 'node_modules', 'better-sqlite3');
  cpSync(join(ROOT, 'node_modules', 'better-sqlite3'), pkg, {
    recursive: true,
    filter: (src) => !/[\\/](build|src|deps)$/.test(src),
  });
  addon = join(pkg, 'prebuilds', `${process.platform}-${process.arch}.node`);
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function grove(
  args: readonly string[],
  env: Record<string, string> = {},
  node = process.execPath,
): Promise<Run> {
  const child = spawn(node, [join(install, 'dist', 'grove.js'), ...args], {
    cwd: dir,
    env: {
      PATH: process.env['PATH'] ?? '/usr/bin:/bin',
      HOME: join(dir, 'home'),
      GROVE_HOME: join(dir, 'grove-home'),
      LANG: 'C.UTF-8',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

/** The bin folder of the pinned Node.js `major` (installed into the cache when missing). */
function pinnedNode(major: string): string {
  return execFileSync(process.execPath, [join(ROOT, 'xtask', 'node.mjs'), 'bin', major], {
    encoding: 'utf8',
  }).trim();
}

function hasCompiler(): boolean {
  try {
    execFileSync('c++', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

describe('a native module that does not load', () => {
  it('with its binary missing, Grove names the module and the fix, not the database, and exits 1', async () => {
    rmSync(join(install, 'node_modules', 'better-sqlite3', 'prebuilds'), { recursive: true });

    const run = await grove(['ls']);

    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /^grove: better-sqlite3's native module does not load: its binary is missing \(Cannot find module '.*better_sqlite3\.node'\)\./,
    );
    expect(run.stderr).toContain(
      `Fix: run \`npm ci\` in ${install} with the Node you run Grove with.`,
    );
    expect(run.stderr).not.toContain('permissions');
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
  });

  it.runIf(process.platform !== 'win32' && hasCompiler())(
    'with a binary compiled for another Node, Grove names both Nodes and exits 1',
    async () => {
      // A (non Node-API) addon compiled against Node 24's headers, where
      // better-sqlite3 looks first for a binary built from source; run on Node 22.
      const [node22, node24] = [pinnedNode('22'), pinnedNode('24')];
      const release = join(install, 'node_modules', 'better-sqlite3', 'build', 'Release');
      mkdirSync(release, { recursive: true });
      writeFileSync(
        join(dir, 'addon.cc'),
        '#include <node.h>\nvoid Init(v8::Local<v8::Object> exports) {}\nNODE_MODULE(better_sqlite3, Init)\n',
      );
      execFileSync('c++', [
        '-shared',
        '-fPIC',
        '-std=c++20',
        '-I',
        join(node24, '..', 'include', 'node'),
        join(dir, 'addon.cc'),
        '-o',
        join(release, 'better_sqlite3.node'),
      ]);

      const run = await grove(['ls'], {}, join(node22, 'node'));

      expect(run.code).toBe(1);
      expect(run.stderr).toBe(
        `grove: better-sqlite3's native module does not load: it was built for Node 24 (NODE_MODULE_VERSION 137), and this is Node ${execFileSync(join(node22, 'node'), ['--version'], { encoding: 'utf8' }).trim()} (NODE_MODULE_VERSION 127). Fix: run \`npm ci\` in ${install} with the Node you run Grove with.\n`,
      );
    },
  );

  it.runIf(process.platform === 'linux' && process.arch === 'x64')(
    'with a binary for another CPU, Grove says so and exits 1',
    async () => {
      copyFileSync(
        join(ROOT, 'node_modules', 'better-sqlite3', 'prebuilds', 'linux-arm64.node'),
        addon,
      );

      const run = await grove(['ls']);

      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(
        /^grove: better-sqlite3's native module does not load: its binary is for another operating system or CPU \(.*\); this is Node v\d+\.\d+\.\d+ \(NODE_MODULE_VERSION \d+\) on linux-x64\. Fix: /,
      );
    },
  );

  it('grove doctor reports it as a failed sqlite check with the fix, and exits 1', async () => {
    rmSync(join(install, 'node_modules', 'better-sqlite3', 'prebuilds'), { recursive: true });

    // The agent CLIs on PATH, so the native module is the only failure.
    const run = await grove(['doctor'], {
      PATH: `${REAL_CLI_BIN}:${process.env['PATH'] ?? '/usr/bin:/bin'}`,
    });

    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(
      /^fail\s+sqlite\s+better-sqlite3's native module does not load: its binary is missing .*\. Fix: run `npm ci` in /m,
    );
    expect(run.stdout).toMatch(/^1 check failed/m);
  });
});

describe('NODE_MODULE_VERSION of the pinned Node.js versions', () => {
  const xtask = join(ROOT, 'xtask', 'node.mjs');
  const versions = execFileSync(process.execPath, [xtask, 'list'], { encoding: 'utf8' })
    .split(/\s+/)
    .filter((v) => /^\d+\.\d+\.\d+$/.test(v));

  it.each(versions)('Node %s is named by its module version', (version) => {
    const bin = execFileSync(process.execPath, [xtask, 'bin', version], {
      encoding: 'utf8',
    }).trim();
    const node = join(bin, process.platform === 'win32' ? 'node.exe' : 'node');
    expect(existsSync(node)).toBe(true);

    const modules = Number(
      execFileSync(node, ['-p', 'process.versions.modules'], { encoding: 'utf8' }).trim(),
    );

    expect(nodeForModuleVersion(modules)).toBe(
      `Node ${version.split('.')[0]} (NODE_MODULE_VERSION ${modules})`,
    );
  });
});
