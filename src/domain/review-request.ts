/** A pull request as Grove keeps it, whatever the forge's payload looked like. */
export interface PullRequestInfo {
  readonly number: number;
  readonly url: string;
  readonly state: 'open' | 'merged' | 'closed';
  readonly isDraft: boolean;
  readonly title: string;
  readonly body: string;
  readonly headBranch: string;
  readonly baseBranch: string;
  readonly reviewDecision: 'approved' | 'changes_requested' | 'review_required' | null;
  /** The head commit's sha (its checks are read by the poller, app/services/review/pr-checks.ts). */
  readonly headSha: string;
  readonly mergedAt: string | null;
  /** GitHub says it conflicts with its base (mergeable false, or mergeable_state dirty); unknown: absent. */
  readonly conflicted?: boolean;
}
