import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// `npm install` on a Node.js older than Grove supports: one clear line, not
// npm's EBADENGINE warning for every dependency that wants a newer Node.
// Run with the pinned too-old Node (xtask/node-versions.json) and the
// machine's npm, on a copy of the project's package files.

const root = join(import.meta.dirname, '..', '..');
let dir: string;
let oldNode: string;
let npmCli: string;

beforeAll(() => {
  const bin = execFileSync(process.execPath, [join(root, 'xtask/node.mjs'), 'bin', 'too-old'], {
    encoding: 'utf8',
  }).trim();
  oldNode = join(bin, 'node');
  npmCli = join(
    dirname(realpathSync(execFileSync('which', ['npm'], { encoding: 'utf8' }).trim())),
    'npm-cli.js',
  );
  dir = mkdtempSync(join(tmpdir(), 'grove-old-node-'));
  mkdirSync(join(dir, 'xtask'));
  for (const file of ['package.json', 'package-lock.json', '.npmrc', 'xtask/install-notice.mjs'])
    copyFileSync(join(root, file), join(dir, file));
}, 120_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

function npm(...args: string[]): string {
  const result = spawnSync(oldNode, [npmCli, ...args], {
    cwd: dir,
    encoding: 'utf8',
    env: {
      PATH: `${dirname(oldNode)}:/usr/bin:/bin`,
      HOME: dir,
      npm_config_cache: join(dir, '.npm'),
    },
  });
  return `${result.stdout}${result.stderr}`;
}

describe('npm install on a Node.js older than Grove supports', () => {
  it('prints no EBADENGINE warning per dependency', () => {
    const out = npm('install', '--dry-run', '--ignore-scripts', '--no-audit', '--no-fund');
    expect(out).not.toContain('EBADENGINE');
    expect(out).toMatch(/added \d+ packages/);
  }, 120_000);

  it('says once that the Node.js is too old and what npm start does about it', () => {
    const result = spawnSync(oldNode, [join(dir, 'xtask/install-notice.mjs')], {
      encoding: 'utf8',
    });
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^Node\.js 20\.\d+\.\d+ is older than Grove supports \(22\.19 or newer\): npm start and npm test run Grove on a pinned Node\.js/,
    );
    expect(result.status).toBe(0);
  });

  it('is the preinstall script, and says nothing on a supported Node.js', () => {
    expect(npm('pkg', 'get', 'scripts.preinstall').trim()).toBe('"node xtask/install-notice.mjs"');
    const result = spawnSync(process.execPath, [join(dir, 'xtask/install-notice.mjs')], {
      encoding: 'utf8',
    });
    expect(result.stderr).toBe('');
  });
});
