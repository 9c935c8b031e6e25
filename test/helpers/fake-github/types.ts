/**
 * A local stand-in for the GitHub REST API on 127.0.0.1: the pull request
 * endpoints Grove calls (list by head, create, get, update, reviews, check
 * runs and commit statuses, Actions job logs through GitHub's redirect,
 * issues and their comments, the token's user), GitHub's response shapes and
 * rate-limit headers, programmable failures, and "on GitHub" actions (merge,
 * close, reopen, edit) a test can take. Point Grove at it with
 * GROVE_GITHUB_API_URL=server.url.
 *
 * GET of a pull request, of its reviews, and of a commit's check runs and
 * statuses answer with an ETag (a hash of the body) and 304 Not Modified,
 * costing no rate limit, to If-None-Match naming it, as GitHub does. As on
 * GitHub, a push (seen at the next GET), a submitted review, and a review
 * comment or reply (which also counts in `review_comments`) change the pull
 * request's `updated_at`, so its ETag; resolving a thread changes neither.
 *
 * Review threads live behind POST /graphql as on GitHub: the
 * `reviewThreads` connection of a pull request (paged), and the mutations
 * `addPullRequestReviewThreadReply` and `resolveReviewThread`. GraphQL
 * refusals come back as GitHub sends them: `errors` with a `type` in a 200.
 *
 * The files of this folder: types.ts (what a test sees), server.ts (the HTTP
 * server and the token), failures.ts, state.ts (what the routes share), pulls.ts,
 * reviews.ts (reviews and review threads), issues.ts, checks.ts, repos.ts (the repository
 * and user shapes) and project.ts (a project whose origin is the fake).
 */

export interface GitHubRequest {
  readonly method: string;
  /** Path without the query, e.g. /repos/acme/widgets/pulls/1. */
  readonly path: string;
  readonly query: Readonly<Record<string, string>>;
  /** The Authorization header as sent (tests check the token is sent only here). */
  readonly authorization: string | undefined;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: unknown;
  /** The status the fake answered with. */
  status: number;
}

export type FailureKind =
  | 'bad_credentials'
  | 'rate_limited'
  /** 403 "You have exceeded a secondary rate limit" with retry-after (`retryAfter`, default 60 s). */
  | 'secondary_rate_limited'
  | 'missing_scope'
  | 'not_found'
  | 'validation'
  | 'server'
  | 'graphql_forbidden'
  | 'graphql_rate_limited';

export interface FailureRule {
  readonly kind: FailureKind;
  /** Only requests with this method (any when absent). */
  readonly method?: string;
  /** Only paths matching this (any when absent). */
  readonly path?: RegExp;
  /** Only GraphQL documents (POST /graphql) whose query text matches this. */
  readonly graphql?: RegExp;
  /** How many requests fail (every one when absent). */
  readonly times?: number;
  /** For `server`: the status (default 502). */
  readonly status?: number;
  /** For `rate_limited`: epoch seconds of x-ratelimit-reset (default now + 1 h). */
  readonly resetAt?: number;
  /** For `secondary_rate_limited`: seconds of retry-after. */
  readonly retryAfter?: number;
  /** For `validation`: the error message. */
  readonly message?: string;
}

export interface FakePull {
  number: number;
  state: 'open' | 'closed';
  draft: boolean;
  title: string;
  body: string | null;
  head: string;
  headSha: string;
  base: string;
  mergedAt: string | null;
  mergeCommitSha: string | null;
  createdAt: string;
  updatedAt: string;
  closedAt: string | null;
  /** Submitted reviews; `at` (ISO) keeps the reviews' answer, and its ETag, the same until one is added. */
  reviews: { login: string; state: string; at: string }[];
  /** Conflicts with its base: mergeable false, mergeable_state dirty (setConflicted). */
  conflicted?: boolean;
}

export interface FakeIssue {
  readonly number: number;
  state: 'open' | 'closed';
  title: string;
  body: string | null;
  readonly author: string;
  readonly labels: string[];
  readonly assignees: string[];
  readonly comments: { author: string; body: string; createdAt: string }[];
  readonly createdAt: string;
  updatedAt: string;
}

export interface FakeThreadComment {
  readonly id: string;
  readonly author: string;
  readonly body: string;
  readonly createdAt: string;
}

export interface FakeThread {
  readonly id: string;
  readonly pull: number;
  readonly path: string;
  line: number | null;
  readonly startLine: number | null;
  isResolved: boolean;
  isOutdated: boolean;
  readonly comments: FakeThreadComment[];
}

export interface FakeGitHub {
  /** The API base (what GROVE_GITHUB_API_URL is set to). */
  readonly url: string;
  readonly owner: string;
  readonly repo: string;
  readonly requests: GitHubRequest[];
  readonly pulls: FakePull[];
  /** Requests that reached a real endpoint (not the failures). */
  apiCalls(method?: string, path?: RegExp): GitHubRequest[];
  /** Makes matching requests fail the way GitHub fails. */
  fail(rule: FailureRule): void;
  clearFailures(): void;
  /** Sets what x-ratelimit-remaining reports (it counts down by one per answer). */
  setRateLimitRemaining(remaining: number): void;
  /** Epoch seconds reported in x-ratelimit-reset. */
  readonly rateLimitReset: number;
  /** The token the fake accepts (anything else is 401 Bad credentials). */
  setToken(token: string): void;
  pull(number: number): FakePull;
  /** "On GitHub": a person opens a pull request (its head must be on the remote). */
  open(input: {
    head: string;
    base: string;
    title: string;
    body: string;
    draft?: boolean;
  }): FakePull;
  /** "On GitHub": merge, close, reopen, edit, review. */
  merge(number: number): void;
  /** "On GitHub": the base moved so that the pull request conflicts (mergeable false, dirty), or no longer does. */
  setConflicted(number: number, conflicted: boolean): void;
  close(number: number): void;
  reopen(number: number): void;
  edit(number: number, change: { title?: string; body?: string }): void;
  review(
    number: number,
    login: string,
    state: 'APPROVED' | 'CHANGES_REQUESTED' | 'COMMENTED',
  ): void;
  /** Review threads on every pull request. */
  readonly threads: FakeThread[];
  /** "On GitHub": a reviewer starts a thread on a line (with replies, if given). */
  addReviewThread(
    pull: number,
    input: {
      path: string;
      line: number | null;
      startLine?: number;
      author: string;
      body: string;
      replies?: readonly { author: string; body: string }[];
    },
  ): FakeThread;
  thread(id: string): FakeThread;
  /** "On GitHub": someone writes on a thread, or resolves it. */
  commentOnThread(id: string, author: string, body: string): void;
  resolveThread(id: string): void;
  /**
   * "On GitHub": the check runs of a commit sha (replacing any before), each
   * a GitHub Actions job whose log (when given) GET /actions/jobs/ID/logs
   * serves through a 302 to a plain-text download.
   */
  setCheckRuns(
    sha: string,
    runs: {
      name: string;
      status: 'queued' | 'in_progress' | 'completed';
      conclusion: string | null;
      log?: string;
      /** The app reporting it (default github-actions; another has no job log). */
      app?: string;
    }[],
  ): void;
  /** "On GitHub": the commit statuses of a sha, oldest first (replacing any before). */
  setCommitStatuses(
    sha: string,
    statuses: {
      context: string;
      state: 'pending' | 'success' | 'failure' | 'error';
      description?: string;
      targetUrl?: string;
    }[],
  ): void;
  /** "On GitHub": someone files an issue (numbers are shared with pull requests). */
  addIssue(input: {
    title: string;
    body?: string | null;
    author?: string;
    labels?: readonly string[];
    assignees?: readonly string[];
    state?: 'open' | 'closed';
    comments?: readonly { author: string; body: string }[];
  }): FakeIssue;
  issue(number: number): FakeIssue;
  closeIssue(number: number): void;
  commentOnIssue(number: number, author: string, body: string): void;
  /** Shuts the server down. */
  stop(): Promise<void>;
}

export interface FakeGitHubOptions {
  readonly owner?: string;
  readonly repo?: string;
  readonly token: string;
  /** The bare repository pushes go to: a pull request's head must exist there. */
  readonly bareRepo?: string;
  /** Rate-limit budget reported in x-ratelimit-remaining (counts down). */
  readonly rateLimit?: number;
}
