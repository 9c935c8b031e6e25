import { Octokit } from '@octokit/rest';
import type { PullRequestInfo, PullRequestPoll } from '../../domain/review-request.js';
import { sanitizeLine, sanitizeText } from '../../domain/sanitize.js';
import { ForgeError, toForgeError } from './errors.js';
import {
  conditional,
  createChecksClient,
  etagOf,
  ifNoneMatch,
  type ChecksClient,
} from './github-checks.js';
import { createIssueClient, type IssueClient } from './github-issues.js';
import { createReviewThreadClient, type ReviewThreadClient } from './github-threads.js';
import type { GitHubRepo } from './remote.js';

const REQUEST_TIMEOUT_MS = 20_000;
const silent = { debug() {}, info() {}, warn() {}, error() {} };

interface RawPull {
  number: number;
  html_url: string;
  state: string;
  draft?: boolean | null;
  merged?: boolean | null;
  merged_at?: string | null;
  /** Only on a single pull request: false (or mergeable_state dirty) when it conflicts with its base. */
  mergeable?: boolean | null;
  mergeable_state?: string;
  title: string;
  body?: string | null;
  head: { ref: string; sha: string };
  base: { ref: string };
}

/** The GitHub calls Grove makes, normalised: REST for pull requests, issues and checks, GraphQL for review threads. */
export interface ReviewRequestClient extends ReviewThreadClient, IssueClient, ChecksClient {
  findOpenPullRequest(headBranch: string, signal: AbortSignal): Promise<PullRequestInfo | null>;
  createDraftPullRequest(
    input: { head: string; base: string; title: string; body: string },
    signal: AbortSignal,
  ): Promise<PullRequestInfo>;
  getPullRequest(number: number, signal: AbortSignal): Promise<PullRequestInfo>;
  /**
   * The pull request and its reviews, each asked with If-None-Match on the
   * ETag `prior` kept (a 304 costs no rate limit): `changed` false when
   * GitHub answered 304 to both, and then `poll` is `prior` itself.
   */
  pollPullRequest(
    number: number,
    prior: PullRequestPoll | null,
    signal: AbortSignal,
  ): Promise<{ changed: boolean; poll: PullRequestPoll }>;
  updatePullRequest(
    number: number,
    input: { title?: string; body?: string },
    signal: AbortSignal,
  ): Promise<PullRequestInfo>;
  /** The last rate-limit state GitHub reported. */
  readonly rateLimit: { remaining: number | null; resetAt: number | null };
}

function reviewDecision(
  reviews: readonly { user?: { login?: string } | null; state?: string }[],
): PullRequestInfo['reviewDecision'] {
  const latest = new Map<string, string>();
  for (const review of reviews) {
    const who = review.user?.login ?? '';
    if (review.state && review.state !== 'COMMENTED' && review.state !== 'PENDING')
      latest.set(who, review.state);
  }
  const states = [...latest.values()];
  if (states.includes('CHANGES_REQUESTED')) return 'changes_requested';
  if (states.includes('APPROVED')) return 'approved';
  return reviews.length > 0 || latest.size > 0 ? 'review_required' : null;
}

export function createGitHubClient(repo: GitHubRepo, token: string): ReviewRequestClient {
  const rateLimit: { remaining: number | null; resetAt: number | null } = {
    remaining: null,
    resetAt: null,
  };
  const octokit = new Octokit({
    auth: token,
    baseUrl: repo.apiBaseUrl,
    userAgent: 'grove',
    log: silent,
  });
  octokit.hook.after('request', (response) => {
    const headers = response.headers as Record<string, string | undefined>;
    const remaining = Number(headers['x-ratelimit-remaining']);
    const reset = Number(headers['x-ratelimit-reset']);
    if (Number.isFinite(remaining)) rateLimit.remaining = remaining;
    if (Number.isFinite(reset)) rateLimit.resetAt = reset * 1000;
  });
  const label = `${repo.owner}/${repo.repo}`;
  const base = { owner: repo.owner, repo: repo.repo };
  const req = (signal: AbortSignal) => ({
    request: { signal: AbortSignal.any([signal, AbortSignal.timeout(REQUEST_TIMEOUT_MS)]) },
  });
  const call = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      const forge = toForgeError(error, label);
      if (forge.resetAt) rateLimit.resetAt = forge.resetAt;
      throw forge;
    }
  };

  const toInfo = (pull: RawPull, decision: PullRequestInfo['reviewDecision']): PullRequestInfo => {
    const merged = pull.merged === true || Boolean(pull.merged_at);
    // Text from GitHub is untrusted: anyone with write access sets titles and bodies.
    return {
      number: pull.number,
      url: sanitizeLine(pull.html_url),
      state: merged ? 'merged' : pull.state === 'closed' ? 'closed' : 'open',
      isDraft: pull.draft === true,
      title: sanitizeLine(pull.title),
      body: sanitizeText(pull.body ?? ''),
      headBranch: sanitizeLine(pull.head.ref),
      baseBranch: sanitizeLine(pull.base.ref),
      reviewDecision: decision,
      headSha: sanitizeLine(pull.head.sha),
      mergedAt: pull.merged_at ?? null,
      conflicted: pull.mergeable === false || pull.mergeable_state === 'dirty',
    };
  };

  /** The reviews (If-None-Match on `etag`): null when unchanged (304); a failure reads as no reviews. */
  const reviews = async (
    number: number,
    etag: string | null,
    signal: AbortSignal,
  ): Promise<{ decision: PullRequestInfo['reviewDecision']; etag: string | null } | null> => {
    try {
      const answer = await call(() =>
        conditional(() =>
          octokit.pulls.listReviews({
            ...base,
            pull_number: number,
            per_page: 100,
            headers: ifNoneMatch(etag),
            ...req(signal),
          }),
        ),
      );
      if (!answer) return null;
      return {
        decision: reviewDecision(answer.data as Parameters<typeof reviewDecision>[0]),
        etag: etagOf(answer),
      };
    } catch {
      return { decision: null, etag: null };
    }
  };

  const normalise = async (pull: RawPull, signal: AbortSignal): Promise<PullRequestInfo> =>
    toInfo(pull, (await reviews(pull.number, null, signal))?.decision ?? null);

  const threads = createReviewThreadClient(octokit, repo, (error) => {
    if (error.resetAt) rateLimit.resetAt = error.resetAt;
  });

  return {
    rateLimit,
    ...threads,
    ...createIssueClient(octokit, repo, call, req),
    ...createChecksClient(octokit, repo, call, req),
    async findOpenPullRequest(headBranch, signal) {
      const { data } = await call(() =>
        octokit.pulls.list({
          ...base,
          head: `${repo.owner}:${headBranch}`,
          state: 'open',
          sort: 'created',
          direction: 'desc',
          per_page: 1,
          ...req(signal),
        }),
      );
      const first = data[0] as RawPull | undefined;
      return first ? normalise(first, signal) : null;
    },
    async createDraftPullRequest(input, signal) {
      const { data } = await call(() =>
        octokit.pulls.create({
          ...base,
          head: input.head,
          base: input.base,
          title: input.title,
          body: input.body,
          draft: true,
          ...req(signal),
        }),
      );
      return normalise(data, signal);
    },
    async getPullRequest(number, signal) {
      const { data } = await call(() =>
        octokit.pulls.get({ ...base, pull_number: number, ...req(signal) }),
      );
      return normalise(data, signal);
    },
    async pollPullRequest(number, prior, signal) {
      const pull = await call(() =>
        conditional(() =>
          octokit.pulls.get({
            ...base,
            pull_number: number,
            headers: ifNoneMatch(prior?.pullEtag ?? null),
            ...req(signal),
          }),
        ),
      );
      const asked = await reviews(number, prior?.reviewsEtag ?? null, signal);
      if (prior && !pull && !asked) return { changed: false, poll: prior };
      const decision = asked ? asked.decision : (prior?.info.reviewDecision ?? null);
      let info: PullRequestInfo;
      if (pull) info = toInfo(pull.data as RawPull, decision);
      else if (prior) info = { ...prior.info, reviewDecision: decision };
      // No ETag was sent without a kept answer, so GitHub cannot have answered 304.
      else throw new ForgeError('server', `GitHub answered 304 for pull request #${number}.`);
      return {
        changed: true,
        poll: {
          info,
          pullEtag: pull ? etagOf(pull) : (prior?.pullEtag ?? null),
          reviewsEtag: asked ? asked.etag : (prior?.reviewsEtag ?? null),
          threadsReadAt: prior?.threadsReadAt ?? null,
        },
      };
    },
    async updatePullRequest(number, input, signal) {
      const { data } = await call(() =>
        octokit.pulls.update({ ...base, pull_number: number, ...input, ...req(signal) }),
      );
      return normalise(data, signal);
    },
  };
}
