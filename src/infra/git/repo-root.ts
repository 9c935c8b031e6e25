// Finding the repository a folder belongs to. It uses only Node's own modules
// so the entry point can ask git while the rest of Grove is still loading.
import { execFile } from 'node:child_process';
import { GIT_ENV } from './env.js';

/** The top of the repository containing `dir`, or null when it is not in one (or git cannot run). */
export function repoRoot(dir: string): Promise<string | null> {
  return new Promise((resolvePromise) => {
    execFile(
      'git',
      ['rev-parse', '--show-toplevel'],
      { cwd: dir, env: { ...process.env, ...GIT_ENV }, timeout: 30_000 },
      (error, stdout) => {
        resolvePromise(error ? null : stdout.trim() || null);
      },
    );
  });
}

/** A repository lookup started before the arguments were fully parsed. */
export interface RepoRootPrefetch {
  readonly dir: string;
  readonly root: Promise<string | null>;
}
