import type { Session } from '../../domain/session.js';
import type { GitClient } from '../ports.js';

type BaseOf = Pick<Session, 'baseBranch' | 'branch'>;

/**
 * Why the session's base branch cannot be used: it no longer exists (deleted
 * by hand, or renamed). Null when it is there. The words say how to go on.
 */
export async function baseBranchGone(
  git: GitClient,
  mainCheckout: string,
  session: BaseOf,
): Promise<string | null> {
  if (await git.branchExists(mainCheckout, session.baseBranch)) return null;
  const base = session.baseBranch;
  return `the session's base branch ${base} no longer exists in ${mainCheckout} (deleted or renamed), so there is nothing to compare the session with or merge it into. Nothing was changed; the session's work is on ${session.branch}. Make ${base} again (git -C ${mainCheckout} branch ${base} <commit>), or point it at the branch you want as the base instead (git -C ${mainCheckout} branch ${base} <other-branch>).`;
}

/**
 * A base branch rewound under the session (reset to an earlier commit, or
 * force-pushed and pulled): the commit the session was last put on is no
 * longer on it, so merging the session brings back the commits the base
 * dropped. The lines say so and how to leave them out; none when all is well.
 */
export async function baseRewoundLines(
  git: GitClient,
  mainCheckout: string,
  session: BaseOf,
  worktree: string,
): Promise<string[]> {
  const tip = await git.lastBaseTip(mainCheckout, session.branch).catch(() => null);
  if (tip === null || (await git.isAncestor(mainCheckout, tip, session.baseBranch))) return [];
  const dropped = await git
    .commitSubjects(mainCheckout, `${session.baseBranch}..${tip}`)
    .catch(() => [] as string[]);
  if (dropped.length === 0) return [];
  const base = session.baseBranch;
  const listed = dropped.slice(0, 5).map((subject) => `  ${subject}`);
  if (dropped.length > 5) listed.push(`  … and ${dropped.length - 5} more`);
  return [
    `${base} was rewound since this session started from it: ${dropped.length} commit(s) it had then are no longer on it, and merging the session brings them back:`,
    ...listed,
    `To leave them out, put only the session's own commits on ${base} first: git -C ${worktree} rebase --onto ${base} ${tip.slice(0, 12)}`,
  ];
}
