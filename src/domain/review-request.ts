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

/**
 * What the poller keeps of a pull request between looks (migration 025): the
 * last answer and GitHub's ETags of the pull request and of its reviews, so
 * the next look asks If-None-Match and an unchanged one (304) costs no rate
 * limit, and the ETags the review threads were last read at (they have none
 * of their own: GraphQL), so they are read again only when one moved.
 */
export interface PullRequestPoll {
  readonly info: PullRequestInfo;
  readonly pullEtag: string | null;
  readonly reviewsEtag: string | null;
  /** The ETags (`threadsKey`) the review threads were last read at, and when (epoch ms); null: never. */
  readonly threadsReadAt: { readonly key: string; readonly at: number } | null;
}

/**
 * How long review threads read at unchanged ETags are believed: a thread
 * resolved, unresolved or a comment edited on GitHub changes neither the
 * pull request's ETag nor its reviews', so it shows within this time.
 */
export const THREADS_RECHECK_MS = 15 * 60_000;

/** The key the review threads are read at: null (always read) when either ETag is missing. */
export function threadsKey(poll: Pick<PullRequestPoll, 'pullEtag' | 'reviewsEtag'>): string | null {
  return poll.pullEtag && poll.reviewsEtag ? `${poll.pullEtag} ${poll.reviewsEtag}` : null;
}

/**
 * Whether the poller reads the review threads (GraphQL, always a 200):
 * when the pull request or its reviews changed since they were last read (a
 * new review comment or reply changes the pull request's ETag on GitHub: its
 * updated_at and review_comments), when an ETag is missing, or when the last
 * read is older than THREADS_RECHECK_MS.
 */
export function threadsDue(poll: PullRequestPoll, now: number): boolean {
  const key = threadsKey(poll);
  const read = poll.threadsReadAt;
  return key === null || read === null || read.key !== key || now - read.at >= THREADS_RECHECK_MS;
}
