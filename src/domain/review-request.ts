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
  /** e.g. "3 passed, 1 failed", or null when the head commit has no checks. */
  readonly checksSummary: string | null;
  readonly mergedAt: string | null;
}
