// `npm install`'s one line about an old Node.js (the `preinstall` script).
// npm's own per-package EBADENGINE warnings (55 of them on Node 20) are off
// in .npmrc (`loglevel=error`); this says the one thing they meant, and what
// `npm start` and `npm test` do about it. Runs on whatever Node is on the
// machine (20 and up); prints nothing on a Node that Grove supports.
import { readFileSync } from 'node:fs';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const wanted = /^>=(\d+)\.(\d+)/.exec(pkg.engines?.node ?? '');
const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
if (wanted) {
  const [need, needMinor] = [Number(wanted[1]), Number(wanted[2])];
  if (major < need || (major === need && minor < needMinor))
    process.stderr.write(
      `Node.js ${process.versions.node} is older than Grove supports (${need}.${needMinor} or newer): npm start and npm test run Grove on a pinned Node.js from the npm registry (xtask/node-versions.json).\n`,
    );
}
