// Installs the pinned real agent CLIs used by the offline channel tests
// (test/fixtures/real-clis) when they are not installed yet. Kept out of the
// main install because the three CLIs are large.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const fixture = join(import.meta.dirname, '..', 'test', 'fixtures', 'real-clis');
const bins = ['claude', 'codex', 'gemini'].map((name) => join(fixture, 'node_modules', '.bin', name));
if (bins.every((bin) => existsSync(bin))) process.exit(0);
console.log('Installing the pinned agent CLIs for the tests (npm ci --prefix test/fixtures/real-clis)…');
execFileSync('npm', ['ci', '--prefix', fixture, '--no-audit', '--no-fund'], { stdio: 'inherit' });
