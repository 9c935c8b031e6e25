// Installs the pinned real agent CLIs used by the offline channel tests
// (test/fixtures/real-clis) when they are not installed yet, or when an
// installed one is not the version its package.json pins. Kept out of the
// main install because the three CLIs are large. Upgrading a CLI is one line
// in test/fixtures/real-clis/package.json: the next `npm test` installs it
// (updating the fixture's lock file) and the drift tests check its wire format.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const fixture = join(import.meta.dirname, '..', 'test', 'fixtures', 'real-clis');
const pins = JSON.parse(readFileSync(join(fixture, 'package.json'), 'utf8')).dependencies;

function installedVersion(name) {
  const manifest = join(fixture, 'node_modules', ...name.split('/'), 'package.json');
  return existsSync(manifest) ? JSON.parse(readFileSync(manifest, 'utf8')).version : null;
}

const bins = ['claude', 'codex', 'gemini'].map((name) =>
  join(fixture, 'node_modules', '.bin', name),
);
const stale = Object.entries(pins).filter(([name, version]) => installedVersion(name) !== version);
if (stale.length === 0 && bins.every((bin) => existsSync(bin))) process.exit(0);
const locked = JSON.parse(readFileSync(join(fixture, 'package-lock.json'), 'utf8')).packages ?? {};
const lockMatches = Object.entries(pins).every(
  ([name, version]) => locked[`node_modules/${name}`]?.version === version,
);
// `npm ci` installs exactly the lock file; after a pin changed, `npm install` updates the lock first.
const command = lockMatches ? 'ci' : 'install';
console.log(
  `Installing the pinned agent CLIs for the tests (npm ${command} --prefix test/fixtures/real-clis): ${stale.map(([n, v]) => `${n}@${v}`).join(', ') || 'missing commands'}…`,
);
execFileSync('npm', [command, '--prefix', fixture, '--no-audit', '--no-fund'], {
  stdio: 'inherit',
});
