// The world of the worker tests (test/integration/worker.test.ts,
// interruptions.test.ts): a real git repository, a fake `claude` first on
// PATH that replays a recorded Claude Code stream (test/fixtures/fake-claude),
// and a second Grove process, test/helpers/worker-driver.ts, bundled to run.
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { build } from 'esbuild';

const ROOT = resolve(import.meta.dirname, '..', '..');
const FAKE_CLAUDE = join(ROOT, 'test', 'fixtures', 'fake-claude', 'fake-claude.mjs');

export interface WorkerWorld {
  readonly dir: string;
  readonly repo: string;
  /** Where the fake keeps its records and reads its controls. */
  readonly control: string;
  readonly env: Record<string, string>;
}

export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();
}

/**
 * Bundles the second Grove process into `.grove-test/` (one folder below the
 * repository root, like dist/grove.js, so it finds migrations/). Returns its
 * path and a function that removes it.
 */
export async function bundleWorkerDriver(
  name: string,
): Promise<{ driver: string; remove: () => void }> {
  const dir = join(ROOT, '.grove-test');
  const driver = join(dir, `${name}-driver-${process.pid}.mjs`);
  mkdirSync(dir, { recursive: true });
  await build({
    entryPoints: [join(ROOT, 'test', 'helpers', 'worker-driver.ts')],
    outfile: driver,
    bundle: true,
    platform: 'node',
    format: 'esm',
    // Node 22.19: the ACP schema's JSON import keeps its `with { type: 'json' }`.
    target: 'node22.19',
    packages: 'external',
    logLevel: 'warning',
  });
  return { driver, remove: () => rmSync(driver, { force: true }) };
}

/** A fresh world under a temp folder named `grove-<prefix>-…`. */
export function makeWorkerWorld(prefix: string): WorkerWorld {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), `grove-${prefix}-`)));
  const repo = join(dir, 'project');
  const home = join(dir, 'home');
  // In one of Claude Code's runtime folders: the one place outside the
  // worktree that the sandbox Grove runs every agent in lets it write. Its
  // variable is named like Claude Code's own (CLAUDE_*), which the agent's
  // allow-listed environment keeps.
  const control = join(home, '.claude', 'debug', 'fake-claude');
  const bin = join(dir, 'bin');
  for (const d of [repo, control, bin, home]) mkdirSync(d, { recursive: true });
  // The script goes next to its launcher, in a PATH folder the sandbox binds back: the
  // checkout it comes from may be under /tmp, which is private to the agent.
  for (const file of ['fake-claude.mjs', 'recorded-turn.jsonl'])
    copyFileSync(join(dirname(FAKE_CLAUDE), file), join(bin, file));
  writeFileSync(
    join(bin, 'claude'),
    `#!/bin/sh\nexec '${process.execPath}' '${join(bin, 'fake-claude.mjs')}' "$@"\n`,
  );
  chmodSync(join(bin, 'claude'), 0o755);
  git(repo, 'init', '-q', '-b', 'main');
  git(repo, 'config', 'user.name', 'Grove Test');
  git(repo, 'config', 'user.email', 'test@grove.invalid');
  writeFileSync(join(repo, 'README.md'), '# project\n');
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'Initial commit');
  const env = {
    PATH: `${bin}:${process.env['PATH'] ?? '/usr/bin:/bin'}`,
    HOME: home,
    GROVE_HOME: join(dir, 'grove-home'),
    CLAUDE_FAKE_DIR: control,
    LANG: 'C.UTF-8',
  };
  return { dir, repo, control, env };
}
