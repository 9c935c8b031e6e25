import type { Octokit } from '@octokit/rest';
import * as z from 'zod/mini';
import { ISSUE_COMMENTS_MAX, type IssueInfo } from '../../domain/issue.js';
import { sanitizeLine, sanitizeText } from '../../domain/sanitize.js';
import { ForgeError } from './errors.js';
import type { GitHubRepo } from './remote.js';

/** Issues over GitHub's REST API: one with its last comments, the open ones, the token's user. */
export interface IssueClient {
  getIssue(number: number, signal: AbortSignal): Promise<IssueInfo>;
  /** Open issues (pull requests left out), newest first, at most `limit`. */
  listOpenIssues(limit: number, signal: AbortSignal): Promise<IssueInfo[]>;
  /** The login the token belongs to. */
  viewer(signal: AbortSignal): Promise<string>;
}

const Person = z.nullish(z.object({ login: z.string() }));
const Label = z.union([z.string(), z.object({ name: z.nullish(z.string()) })]);
const RawIssue = z.object({
  number: z.number(),
  html_url: z.string(),
  state: z.string(),
  title: z.string(),
  body: z.nullish(z.string()),
  user: Person,
  labels: z.optional(z.array(Label)),
  assignees: z.nullish(z.array(z.object({ login: z.string() }))),
  comments: z.optional(z.number()),
  created_at: z.optional(z.string()),
  pull_request: z.optional(z.unknown()),
});
const RawComment = z.object({ body: z.nullish(z.string()), user: Person });

type Call = <T>(work: () => Promise<T>) => Promise<T>;
type Req = (signal: AbortSignal) => { request: { signal: AbortSignal } };

function normalise(raw: unknown, comments: IssueInfo['comments']): IssueInfo {
  const parsed = RawIssue.safeParse(raw);
  if (!parsed.success)
    throw new ForgeError('server', 'GitHub answered with an issue Grove could not read.');
  const issue = parsed.data;
  const created = issue.created_at ? Date.parse(issue.created_at) : 0;
  // Text from GitHub is untrusted: anyone who can file an issue writes it.
  return {
    number: issue.number,
    title: sanitizeLine(issue.title),
    url: sanitizeLine(issue.html_url),
    state: issue.state === 'closed' ? 'closed' : 'open',
    isPullRequest: issue.pull_request !== undefined && issue.pull_request !== null,
    author: sanitizeLine(issue.user?.login ?? 'ghost'),
    body: sanitizeText(issue.body ?? ''),
    labels: (issue.labels ?? [])
      .map((l) => (typeof l === 'string' ? l : (l.name ?? '')))
      .filter(Boolean)
      .map(sanitizeLine),
    assignees: (issue.assignees ?? []).map((a) => sanitizeLine(a.login)),
    comments,
    createdAt: Number.isFinite(created) ? created : 0,
  };
}

export function createIssueClient(
  octokit: Octokit,
  repo: GitHubRepo,
  call: Call,
  req: Req,
): IssueClient {
  const base = { owner: repo.owner, repo: repo.repo };
  const label = `${repo.owner}/${repo.repo}`;
  const missing = (number: number) => (error: unknown) => {
    if (error instanceof ForgeError && error.reason === 'not_found')
      throw new ForgeError(
        'not_found',
        `Issue #${number} was not found in ${label} (or the token cannot see it).`,
        404,
      );
    throw error;
  };

  /** The last comments: the count from the issue tells which page holds them. */
  const lastComments = async (
    number: number,
    count: number,
    signal: AbortSignal,
  ): Promise<IssueInfo['comments']> => {
    if (count <= 0) return [];
    const perPage = 100;
    const page = Math.max(1, Math.ceil(count / perPage));
    const { data } = await call(() =>
      octokit.issues.listComments({
        ...base,
        issue_number: number,
        per_page: perPage,
        page,
        ...req(signal),
      }),
    );
    return data
      .slice(-ISSUE_COMMENTS_MAX)
      .map((c) => RawComment.safeParse(c))
      .flatMap((c) => (c.success ? [c.data] : []))
      .map((c) => ({
        author: sanitizeLine(c.user?.login ?? 'ghost'),
        body: sanitizeText(c.body ?? ''),
      }));
  };

  return {
    async getIssue(number, signal) {
      const { data } = await call(() =>
        octokit.issues.get({ ...base, issue_number: number, ...req(signal) }),
      ).catch(missing(number));
      const count = typeof data.comments === 'number' ? data.comments : 0;
      const isPull = data.pull_request !== undefined && data.pull_request !== null;
      const comments = isPull ? [] : await lastComments(number, count, signal);
      return normalise(data, comments);
    },
    async listOpenIssues(limit, signal) {
      const out: IssueInfo[] = [];
      for (let page = 1; out.length < limit && page <= 5; page++) {
        const { data } = await call(() =>
          octokit.issues.listForRepo({
            ...base,
            state: 'open',
            sort: 'created',
            direction: 'desc',
            per_page: 100,
            page,
            ...req(signal),
          }),
        );
        for (const raw of data) {
          const issue = normalise(raw, []);
          if (!issue.isPullRequest) out.push(issue);
        }
        if (data.length < 100) break;
      }
      return out.slice(0, limit);
    },
    async viewer(signal) {
      const { data } = await call(() => octokit.users.getAuthenticated({ ...req(signal) }));
      return sanitizeLine(data.login);
    },
  };
}
