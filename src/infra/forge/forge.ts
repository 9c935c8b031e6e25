import type { IssueInfo, IssueRepository } from '../../domain/issue.js';
import type { PullRequestInfo, PullRequestPoll } from '../../domain/review-request.js';
import type { ReviewThreadInfo } from '../../domain/review-thread.js';
import type { Logger } from '../log.js';
import { ForgeError } from './errors.js';
import type { ChecksClient } from './github-checks.js';
import { parseGitHubRemote } from './remote.js';
import { resolveGitHubToken, runGh, type GhRunner } from './token.js';

/** A GitHub repository the app can open pull requests on (infra/forge behind it). */
/** A repository's forge, with its checks (github-checks.ts: check runs, statuses, job logs). */
export interface ForgeConnection extends ChecksClient {
  /** `owner/repo` (and the host for Enterprise). */
  readonly label: string;
  /** The repository itself (issue URLs are checked against it). */
  readonly repository: IssueRepository;
  findOpen(headBranch: string, signal: AbortSignal): Promise<PullRequestInfo | null>;
  createDraft(
    input: { head: string; base: string; title: string; body: string },
    signal: AbortSignal,
  ): Promise<PullRequestInfo>;
  get(number: number, signal: AbortSignal): Promise<PullRequestInfo>;
  /**
   * The pull request and its reviews asked with If-None-Match on the ETags
   * `prior` kept (304s cost no rate limit); `changed` false: both unchanged,
   * and `poll` is `prior`.
   */
  poll(
    number: number,
    prior: PullRequestPoll | null,
    signal: AbortSignal,
  ): Promise<{ changed: boolean; poll: PullRequestPoll }>;
  update(
    number: number,
    input: { title?: string; body?: string },
    signal: AbortSignal,
  ): Promise<PullRequestInfo>;
  /** The pull request's unresolved review threads (GraphQL; sanitized). */
  reviewThreads(number: number, signal: AbortSignal): Promise<ReviewThreadInfo[]>;
  /** Replies on a review thread; resolves with the new comment. */
  replyToThread(
    threadId: string,
    body: string,
    signal: AbortSignal,
  ): Promise<{ id: string; url: string }>;
  resolveThread(threadId: string, signal: AbortSignal): Promise<void>;
  /** An issue (or a pull request's issue side) with its last comments, sanitized. */
  issue(number: number, signal: AbortSignal): Promise<IssueInfo>;
  /** The open issues, newest first, at most `limit` (pull requests left out). */
  openIssues(limit: number, signal: AbortSignal): Promise<IssueInfo[]>;
  /** The login the token belongs to ("assigned to me"). */
  viewer(signal: AbortSignal): Promise<string>;
  /** Epoch ms until which the API asked us to wait (rate limit), or null. */
  readonly waitUntil: number | null;
}

export interface Forge {
  /** Resolves the repository and token for a git remote URL; throws a ForgeError-like error in words. */
  connect(remoteUrl: string, signal: AbortSignal): Promise<ForgeConnection>;
}

/** GitHub behind the app's Forge port: remote URL → repository, token, client. */
export function createForge(env: NodeJS.ProcessEnv, logger: Logger, gh: GhRunner = runGh): Forge {
  return {
    async connect(remoteUrl: string): Promise<ForgeConnection> {
      const repo = parseGitHubRemote(remoteUrl, env);
      if (!repo)
        throw new ForgeError(
          'not_github',
          `The remote ${remoteUrl.replace(/\/\/[^@/]*@/, '//')} is not a GitHub repository URL.`,
        );
      const token = await resolveGitHubToken(env, repo.host, gh);
      if (!token) {
        throw new ForgeError(
          'no_token',
          `No GitHub token: set GITHUB_TOKEN or GH_TOKEN, or sign in with \`gh auth login\` (host ${repo.host}). Nothing was pushed.`,
        );
      }
      logger.log(
        'info',
        `GitHub ${repo.owner}/${repo.repo} via ${repo.apiBaseUrl} (token from ${token.source})`,
      );
      // The GitHub client (octokit) loads only when publishing.
      const { createGitHubClient } = await import('./github.js');
      const client = createGitHubClient(repo, token.token);
      return {
        label:
          repo.host === 'github.com'
            ? `${repo.owner}/${repo.repo}`
            : `${repo.host}/${repo.owner}/${repo.repo}`,
        repository: { host: repo.host, owner: repo.owner, name: repo.repo },
        findOpen: (head, signal) => client.findOpenPullRequest(head, signal),
        createDraft: (input, signal) => client.createDraftPullRequest(input, signal),
        get: (number, signal) => client.getPullRequest(number, signal),
        poll: (number, prior, signal) => client.pollPullRequest(number, prior, signal),
        update: (number, input, signal) => client.updatePullRequest(number, input, signal),
        reviewThreads: (number, signal) => client.listReviewThreads(number, signal),
        replyToThread: (threadId, body, signal) =>
          client.replyToReviewThread(threadId, body, signal),
        resolveThread: (threadId, signal) => client.resolveReviewThread(threadId, signal),
        issue: (number, signal) => client.getIssue(number, signal),
        openIssues: (limit, signal) => client.listOpenIssues(limit, signal),
        viewer: (signal) => client.viewer(signal),
        checkRuns: (sha, etag, signal) => client.checkRuns(sha, etag, signal),
        commitStatuses: (sha, etag, signal) => client.commitStatuses(sha, etag, signal),
        jobLogTail: (jobId, signal) => client.jobLogTail(jobId, signal),
        get waitUntil() {
          return client.rateLimit.remaining === 0 ? client.rateLimit.resetAt : null;
        },
      };
    },
  };
}
