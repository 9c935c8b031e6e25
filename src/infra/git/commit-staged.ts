import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { git, gitOut } from './run.js';

// The commit of a tree Grove has just staged and written (stageAllAndDiff),
// made from git's plumbing: `git commit` refreshes the index first, a stat of
// every tracked file (as long as a status on a large repository), though
// nothing changed since the `add -A` a moment before. commit-tree then
// update-ref make the same commit: the message cleaned up as `git commit -F`
// does, an amend keeping the author and date of the commit it replaces, the
// branch and HEAD's reflogs written. Whatever this does not reproduce (a
// signed commit, a commit.cleanup setting, a merge or cherry-pick in
// progress, an empty message) is left to `git commit`: null.

/** What the plumbing commit answers: the new commit, nothing to commit (an amend back to its parent), or null: use `git commit`. */
export type StagedCommit = { readonly commit: string } | { readonly emptied: true } | null;

/**
 * git's default clean-up of a message it does not edit (`--cleanup=whitespace`,
 * strbuf_stripspace): trailing blanks of each line, runs of empty lines made
 * one, empty lines at the start and end dropped, a final newline.
 */
export function cleanMessage(message: string): string {
  const lines = message.split('\n').map((line) => line.replace(/[ \t\v\f\r]+$/, ''));
  const kept: string[] = [];
  for (const line of lines) {
    if (line === '' && (kept.length === 0 || kept[kept.length - 1] === '')) continue;
    kept.push(line);
  }
  while (kept.length > 0 && kept[kept.length - 1] === '') kept.pop();
  return kept.length === 0 ? '' : `${kept.join('\n')}\n`;
}

/** States in which `git commit` does more than commit the index (a merge commit, a cherry-pick's author). */
const IN_PROGRESS = ['MERGE_HEAD', 'CHERRY_PICK_HEAD', 'REVERT_HEAD', 'SQUASH_MSG'];

/**
 * Commits `tree` (the index as just written) on HEAD, or in place of HEAD
 * with `amend`. The message is already sanitized. Null: the case is
 * `git commit`'s (see above); nothing was written then.
 */
export async function commitStagedTree(
  dir: string,
  tree: string,
  message: string,
  amend: boolean,
): Promise<StagedCommit> {
  const cleaned = cleanMessage(message);
  if (cleaned === '') return null;
  const [config, gitDir, head] = await Promise.all([
    git(['config', '--get-regexp', '^commit\\.(gpgsign|cleanup)$'], { cwd: dir, okCodes: [1] }),
    gitOut(['rev-parse', '--absolute-git-dir'], { cwd: dir }),
    git(
      [
        'show',
        '-s',
        '--no-show-signature',
        '--format=%H%n%P%n%an%n%ae%n%ad',
        '--date=raw',
        'HEAD',
        '--',
      ],
      { cwd: dir, okCodes: [128] },
    ),
  ]);
  if (config.stdout.trim() !== '') return null;
  if (head.exitCode !== 0) return null; // no commit yet
  if (IN_PROGRESS.some((name) => existsSync(join(gitDir, name)))) return null;
  const [oid = '', parentLine = '', name = '', email = '', date = ''] = head.stdout.split('\n');
  const parents = amend ? parentLine.split(' ').filter(Boolean) : [oid];
  if (amend) {
    // An amend that leaves nothing against the parent: no commit, as `git commit` then `reset --soft` did.
    const parent = parents[0];
    if (parent) {
      const parentTree = await gitOut(['rev-parse', `${parent}^{tree}`], { cwd: dir });
      if (parentTree === tree) {
        await git(['reset', '-q', '--soft', 'HEAD^'], { cwd: dir });
        return { emptied: true };
      }
    }
  }
  const made = await gitOut(['commit-tree', tree, ...parents.flatMap((p) => ['-p', p])], {
    cwd: dir,
    input: cleaned,
    // An amend keeps the author and date of the commit it replaces, as `git commit --amend`.
    ...(amend
      ? { env: { GIT_AUTHOR_NAME: name, GIT_AUTHOR_EMAIL: email, GIT_AUTHOR_DATE: date } }
      : {}),
  });
  const subject = cleaned.split('\n')[0] ?? '';
  // Moves the branch HEAD names only from the commit read above: a HEAD moved meanwhile fails the update.
  await git(
    ['update-ref', '-m', `commit${amend ? ' (amend)' : ''}: ${subject}`, 'HEAD', made, oid],
    { cwd: dir },
  );
  return { commit: made };
}
