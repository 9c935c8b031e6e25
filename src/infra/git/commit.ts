import { GitError, git, gitOut } from './run.js';

export interface CommitResult {
  readonly committed: boolean;
  readonly commit: string | null;
}

/**
 * Stages everything and commits (or amends, keeping the session's single
 * commit). Hooks run unless `noVerify`. A hook failure is a GitError whose
 * stderr holds the hook's output. An amend that leaves no change against
 * the parent removes the commit and reports nothing committed.
 */
export async function commitAll(dir: string, message: string, options: { amend: boolean; noVerify?: boolean }): Promise<CommitResult> {
  await git(['add', '-A'], { cwd: dir });
  const staged = await git(['diff', '--cached', '--quiet'], { cwd: dir, okCodes: [1] });
  const hasStaged = staged.exitCode === 1;
  if (!hasStaged && !options.amend) return { committed: false, commit: null };
  const args = ['commit', '-q', '-F', '-', ...(options.amend ? ['--amend'] : []), ...(options.noVerify ? ['--no-verify'] : []), '--allow-empty'];
  const result = await git(args, { cwd: dir, input: message, okCodes: [1] });
  if (result.exitCode !== 0) {
    const output = `${result.stdout}${result.stderr}`.trim();
    throw new GitError(args, result.exitCode, output.slice(-4000), `The commit was rejected${/hook/i.test(output) ? ' by a git hook' : ''}: ${output.split('\n').filter(Boolean).slice(-1)[0] ?? 'no output'}`);
  }
  // An amend that undid everything: drop the now-empty commit.
  const empty = await git(['diff', '--quiet', 'HEAD^', 'HEAD'], { cwd: dir, okCodes: [1, 128] });
  if (options.amend && empty.exitCode === 0) {
    await git(['reset', '-q', '--soft', 'HEAD^'], { cwd: dir });
    return { committed: false, commit: null };
  }
  if (!hasStaged && !options.amend) return { committed: false, commit: null };
  return { committed: true, commit: await gitOut(['rev-parse', 'HEAD'], { cwd: dir }) };
}
