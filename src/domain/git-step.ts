/**
 * A multi-step git operation Grove has started on a checkout, recorded before
 * its first git command so that recovery (at start-up, or when the process
 * that ran it is gone) can finish or undo it.
 *
 * - `rebase`: the session branch in its worktree (`dir`) is being rebased
 *   onto its base; `headBefore` is the branch head before the rebase.
 * - `squash`: the session branch is being squash-merged into the base
 *   branch in the main checkout (`dir`); `headBefore` is the base branch head
 *   before it, `detail.sessionHead` the session commit being landed.
 * - `sync`: the main checkout's branch is being pulled with rebase and
 *   pushed; `headBefore` is its head before the pull.
 */
export const GIT_STEP_KINDS = ['rebase', 'squash', 'sync'] as const;
export type GitStepKind = (typeof GIT_STEP_KINDS)[number];

export interface GitStep {
  readonly id: string;
  readonly kind: GitStepKind;
  /** Where in the operation it is: 'rebasing', 'resolving conflicts', 'committing', 'cleaning up', 'pushing', … (for people and logs). */
  readonly step: string;
  readonly sessionId: string | null;
  readonly projectId: number | null;
  /** The checkout the operation changes. */
  readonly dir: string;
  /** The branch checked out there. */
  readonly branch: string;
  readonly headBefore: string;
  readonly detail: Readonly<Record<string, string>>;
  /** `host:pid` of the Grove process running it. */
  readonly owner: string;
  readonly startedAt: number;
}

export type NewGitStep = Omit<GitStep, 'id' | 'owner' | 'startedAt'>;

export function isGitStepKind(value: string): value is GitStepKind {
  return (GIT_STEP_KINDS as readonly string[]).includes(value);
}
