import { execFileSync } from 'node:child_process';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { git, makeRepo, type GroveWorld } from './grove-env.js';

/**
 * A local stand-in for the GitHub REST API on 127.0.0.1: the pull request
 * endpoints Grove calls (list by head, create, get, update, reviews, check
 * runs), GitHub's response shapes and rate-limit headers, programmable
 * failures, and "on GitHub" actions (merge, close, reopen, edit) a test can
 * take. Point Grove at it with GROVE_GITHUB_API_URL=server.url.
 *
 * Review threads live behind POST /graphql as on GitHub: the
 * `reviewThreads` connection of a pull request (paged), and the mutations
 * `addPullRequestReviewThreadReply` and `resolveReviewThread`. GraphQL
 * refusals come back as GitHub sends them: `errors` with a `type` in a 200.
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
  reviews: { login: string; state: string }[];
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
  /** Check runs reported for a commit sha. */
  setCheckRuns(
    sha: string,
    runs: {
      name: string;
      status: 'queued' | 'in_progress' | 'completed';
      conclusion: string | null;
    }[],
  ): void;
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

const DOCS = 'https://docs.github.com/rest';
const USER = {
  login: 'grove-tester',
  id: 1001,
  node_id: 'U_grove',
  type: 'User',
  site_admin: false,
  avatar_url: 'https://avatars.githubusercontent.com/u/1001',
  html_url: 'https://github.com/grove-tester',
};

function readBody(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      try {
        resolve(text ? JSON.parse(text) : null);
      } catch {
        resolve(text);
      }
    });
  });
}

export async function startFakeGitHub(options: FakeGitHubOptions): Promise<FakeGitHub> {
  const owner = options.owner ?? 'acme';
  const repo = options.repo ?? 'widgets';
  let token = options.token;
  const requests: GitHubRequest[] = [];
  const pulls: FakePull[] = [];
  const checkRuns = new Map<
    string,
    { name: string; status: string; conclusion: string | null }[]
  >();
  const threads: FakeThread[] = [];
  let commentSeq = 0;
  let failures: (FailureRule & { left: number })[] = [];
  let remaining = options.rateLimit ?? 5000;
  const limit = options.rateLimit ?? 5000;
  const resetAt = Math.floor(Date.now() / 1000) + 3600;
  let url = '';

  const now = (): string => new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  /** A new open pull request with the next number. */
  const addPull = (
    fields: Pick<FakePull, 'draft' | 'title' | 'body' | 'head' | 'headSha' | 'base'>,
  ): FakePull => {
    const stamp = now();
    const pull: FakePull = {
      number: pulls.reduce((n, p) => Math.max(n, p.number), 0) + 1,
      state: 'open',
      ...fields,
      mergedAt: null,
      mergeCommitSha: null,
      createdAt: stamp,
      updatedAt: stamp,
      closedAt: null,
      reviews: [],
    };
    pulls.push(pull);
    return pull;
  };
  const repoJson = () => ({
    id: 4242,
    node_id: 'R_widgets',
    name: repo,
    full_name: `${owner}/${repo}`,
    private: true,
    owner: { ...USER, login: owner },
    html_url: `https://github.com/${owner}/${repo}`,
    url: `${url}/repos/${owner}/${repo}`,
    default_branch: 'main',
  });
  const headSha = (branch: string): string | null => {
    if (!options.bareRepo) return '0'.repeat(40);
    try {
      return (
        execFileSync('git', ['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`], {
          cwd: options.bareRepo,
          encoding: 'utf8',
        }).trim() || null
      );
    } catch {
      return null;
    }
  };
  const pullJson = (p: FakePull, full: boolean) => {
    const apiPull = `${url}/repos/${owner}/${repo}/pulls/${p.number}`;
    const simple = {
      url: apiPull,
      id: 900000 + p.number,
      node_id: `PR_${p.number}`,
      html_url: `https://github.com/${owner}/${repo}/pull/${p.number}`,
      diff_url: `https://github.com/${owner}/${repo}/pull/${p.number}.diff`,
      patch_url: `https://github.com/${owner}/${repo}/pull/${p.number}.patch`,
      issue_url: `${url}/repos/${owner}/${repo}/issues/${p.number}`,
      number: p.number,
      state: p.state,
      locked: false,
      title: p.title,
      user: USER,
      body: p.body,
      created_at: p.createdAt,
      updated_at: p.updatedAt,
      closed_at: p.closedAt,
      merged_at: p.mergedAt,
      merge_commit_sha: p.mergeCommitSha,
      assignee: null,
      assignees: [],
      requested_reviewers: [],
      labels: [],
      milestone: null,
      draft: p.draft,
      head: {
        label: `${owner}:${p.head}`,
        ref: p.head,
        sha: p.headSha,
        user: { ...USER, login: owner },
        repo: repoJson(),
      },
      base: {
        label: `${owner}:${p.base}`,
        ref: p.base,
        sha: headSha(p.base) ?? '0'.repeat(40),
        user: { ...USER, login: owner },
        repo: repoJson(),
      },
      author_association: 'OWNER',
      auto_merge: null,
    };
    // The list endpoint returns the "simple" pull request; get/create/update add these.
    if (!full) return simple;
    return {
      ...simple,
      merged: p.mergedAt !== null,
      mergeable: p.state === 'open' ? true : null,
      mergeable_state: p.state === 'open' ? (p.draft ? 'draft' : 'clean') : 'unknown',
      merged_by: p.mergedAt ? USER : null,
      comments: 0,
      review_comments: 0,
      maintainer_can_modify: false,
      commits: 1,
      additions: 1,
      deletions: 0,
      changed_files: 1,
    };
  };

  const send = (
    res: ServerResponse,
    status: number,
    body: unknown,
    headers: Record<string, string> = {},
  ): void => {
    if (remaining > 0) remaining--;
    const text = body === undefined ? '' : JSON.stringify(body);
    res.writeHead(status, {
      'content-type': 'application/json; charset=utf-8',
      'x-github-media-type': 'github.v3; format=json',
      'x-ratelimit-limit': String(limit),
      'x-ratelimit-remaining': String(remaining),
      'x-ratelimit-reset': String(resetAt),
      'x-ratelimit-used': String(limit - remaining),
      'x-ratelimit-resource': 'core',
      'x-github-request-id': `FAKE:${requests.length}`,
      ...headers,
    });
    res.end(text);
  };

  const failWith = (res: ServerResponse, rule: FailureRule): number => {
    switch (rule.kind) {
      case 'bad_credentials':
        send(res, 401, { message: 'Bad credentials', documentation_url: DOCS, status: '401' });
        return 401;
      case 'rate_limited': {
        const reset = rule.resetAt ?? Math.floor(Date.now() / 1000) + 3600;
        res.writeHead(403, {
          'content-type': 'application/json; charset=utf-8',
          'x-ratelimit-limit': String(limit),
          'x-ratelimit-remaining': '0',
          'x-ratelimit-reset': String(reset),
          'x-ratelimit-used': String(limit),
          'x-ratelimit-resource': 'core',
        });
        res.end(
          JSON.stringify({
            message:
              'API rate limit exceeded for user ID 1001. If you reach out to GitHub Support for help, please include the request ID FAKE.',
            documentation_url: `${DOCS}/overview/rate-limits-for-the-rest-api`,
            status: '403',
          }),
        );
        return 403;
      }
      case 'missing_scope':
        send(
          res,
          403,
          {
            message: 'Resource not accessible by personal access token',
            documentation_url: `${DOCS}/pulls/pulls#create-a-pull-request`,
            status: '403',
          },
          { 'x-accepted-github-permissions': 'pull_requests=write' },
        );
        return 403;
      case 'not_found':
        send(res, 404, { message: 'Not Found', documentation_url: DOCS, status: '404' });
        return 404;
      case 'validation':
        send(res, 422, {
          message: 'Validation Failed',
          errors: [
            {
              resource: 'PullRequest',
              code: 'custom',
              message: rule.message ?? `No commits between main and ${owner}:branch`,
            },
          ],
          documentation_url: `${DOCS}/pulls/pulls#create-a-pull-request`,
          status: '422',
        });
        return 422;
      case 'graphql_forbidden':
        send(res, 200, {
          data: null,
          errors: [
            {
              type: 'FORBIDDEN',
              path: ['repository'],
              locations: [{ line: 2, column: 3 }],
              message: 'Resource not accessible by personal access token',
            },
          ],
        });
        return 200;
      case 'graphql_rate_limited': {
        const reset = rule.resetAt ?? Math.floor(Date.now() / 1000) + 3600;
        res.writeHead(200, {
          'content-type': 'application/json; charset=utf-8',
          'x-ratelimit-limit': '5000',
          'x-ratelimit-remaining': '0',
          'x-ratelimit-reset': String(reset),
          'x-ratelimit-used': '5000',
          'x-ratelimit-resource': 'graphql',
        });
        res.end(
          JSON.stringify({
            errors: [
              { type: 'RATE_LIMITED', message: 'API rate limit exceeded for user ID 1001.' },
            ],
          }),
        );
        return 200;
      }
      case 'server': {
        const status = rule.status ?? 502;
        res.writeHead(status, { 'content-type': 'text/html' });
        res.end('<html><body><h1>Server Error</h1></body></html>');
        return status;
      }
      default:
        return 500;
    }
  };

  const find = (n: number): FakePull | undefined => pulls.find((p) => p.number === n);

  const route = (req: GitHubRequest, res: ServerResponse): number => {
    const base = `/repos/${owner}/${repo}`;
    const notFound = () => {
      send(res, 404, { message: 'Not Found', documentation_url: DOCS, status: '404' });
      return 404;
    };
    if (!req.path.startsWith(`${base}/`)) return notFound();
    const rest = req.path.slice(base.length);
    const body = (req.body ?? {}) as Record<string, unknown>;
    let m: RegExpExecArray | null;
    if (rest === '/pulls' && req.method === 'GET') {
      const state = req.query['state'] ?? 'open';
      const head = req.query['head'];
      let list = pulls.filter((p) => state === 'all' || p.state === state);
      if (head) list = list.filter((p) => `${owner}:${p.head}` === head);
      list = [...list].sort((a, b) =>
        req.query['direction'] === 'asc' ? a.number - b.number : b.number - a.number,
      );
      const perPage = Number(req.query['per_page'] ?? 30);
      send(
        res,
        200,
        list.slice(0, perPage).map((p) => pullJson(p, false)),
      );
      return 200;
    }
    if (rest === '/pulls' && req.method === 'POST') {
      const head = typeof body['head'] === 'string' ? body['head'] : '';
      const baseRef = typeof body['base'] === 'string' ? body['base'] : '';
      const headName = head.includes(':') ? (head.split(':')[1] ?? '') : head;
      const errors: Record<string, string>[] = [];
      const sha = headSha(headName);
      if (!body['title'])
        errors.push({ resource: 'PullRequest', field: 'title', code: 'missing_field' });
      if (!sha) errors.push({ resource: 'PullRequest', field: 'head', code: 'invalid' });
      if (!headSha(baseRef))
        errors.push({ resource: 'PullRequest', field: 'base', code: 'invalid' });
      if (sha && pulls.some((p) => p.state === 'open' && p.head === headName))
        errors.push({
          resource: 'PullRequest',
          code: 'custom',
          message: `A pull request already exists for ${owner}:${headName}.`,
        });
      if (errors.length > 0) {
        send(res, 422, {
          message: 'Validation Failed',
          errors,
          documentation_url: `${DOCS}/pulls/pulls#create-a-pull-request`,
          status: '422',
        });
        return 422;
      }
      const pull = addPull({
        draft: body['draft'] === true,
        title: typeof body['title'] === 'string' ? body['title'] : '',
        body: typeof body['body'] === 'string' ? body['body'] : null,
        head: headName,
        headSha: sha ?? '',
        base: baseRef,
      });
      send(res, 201, pullJson(pull, true), { location: `${url}${base}/pulls/${pull.number}` });
      return 201;
    }
    if ((m = /^\/pulls\/(\d+)$/.exec(rest))) {
      const pull = find(Number(m[1]));
      if (!pull) return notFound();
      if (req.method === 'GET') {
        const sha = headSha(pull.head);
        if (sha && pull.state === 'open') pull.headSha = sha;
        send(res, 200, pullJson(pull, true));
        return 200;
      }
      if (req.method === 'PATCH') {
        if (typeof body['title'] === 'string') pull.title = body['title'];
        if (typeof body['body'] === 'string') pull.body = body['body'];
        if (body['state'] === 'closed' || body['state'] === 'open') pull.state = body['state'];
        pull.updatedAt = now();
        send(res, 200, pullJson(pull, true));
        return 200;
      }
    }
    if ((m = /^\/pulls\/(\d+)\/reviews$/.exec(rest)) && req.method === 'GET') {
      const pull = find(Number(m[1]));
      if (!pull) return notFound();
      send(
        res,
        200,
        pull.reviews.map((r, i) => ({
          id: 7000 + i,
          node_id: `PRR_${i}`,
          user: { ...USER, login: r.login },
          body: '',
          state: r.state,
          html_url: `https://github.com/${owner}/${repo}/pull/${pull.number}#pullrequestreview-${7000 + i}`,
          commit_id: pull.headSha,
          submitted_at: now(),
          author_association: 'MEMBER',
        })),
      );
      return 200;
    }
    if ((m = /^\/commits\/([^/]+)\/check-runs$/.exec(rest)) && req.method === 'GET') {
      const runs = checkRuns.get(decodeURIComponent(m[1] ?? '')) ?? [];
      send(res, 200, {
        total_count: runs.length,
        check_runs: runs.map((r, i) => ({
          id: 8000 + i,
          name: r.name,
          head_sha: m?.[1],
          status: r.status,
          conclusion: r.conclusion,
          started_at: now(),
          completed_at: r.status === 'completed' ? now() : null,
        })),
      });
      return 200;
    }
    return notFound();
  };

  const commentJson = (thread: FakeThread, c: FakeThreadComment) => ({
    id: c.id,
    body: c.body,
    createdAt: c.createdAt,
    url: `https://github.com/${owner}/${repo}/pull/${thread.pull}#discussion_r${c.id.replace(/\D/g, '')}`,
    author: { login: c.author },
  });
  const threadJson = (t: FakeThread) => ({
    id: t.id,
    isResolved: t.isResolved,
    isOutdated: t.isOutdated,
    path: t.path,
    // An outdated thread has no current line, only the original one.
    line: t.isOutdated ? null : t.line,
    startLine: t.isOutdated ? null : t.startLine,
    originalLine: t.line,
    originalStartLine: t.startLine,
    comments: { nodes: t.comments.map((c) => commentJson(t, c)) },
  });
  const newComment = (author: string, body: string): FakeThreadComment => ({
    id: `PRRC_kwDO${++commentSeq}`,
    author,
    body,
    createdAt: now(),
  });

  /** POST /graphql: the review-thread query and mutations Grove sends. */
  const graphql = (req: GitHubRequest, res: ServerResponse): number => {
    const body = (req.body ?? {}) as { query?: unknown; variables?: Record<string, unknown> };
    const query = typeof body.query === 'string' ? body.query : '';
    const vars = body.variables ?? {};
    const answer = (data: unknown, errors?: unknown[]): number => {
      send(res, 200, errors ? { data, errors } : { data });
      return 200;
    };
    const notFound = (path: string, what: string): number =>
      answer(null, [{ type: 'NOT_FOUND', path: [path], message: `Could not resolve to ${what}.` }]);
    if (query.includes('addPullRequestReviewThreadReply')) {
      const thread = threads.find((t) => t.id === vars['thread']);
      if (!thread)
        return notFound(
          'addPullRequestReviewThreadReply',
          `a node with the global id of '${String(vars['thread'])}'`,
        );
      const comment = newComment(USER.login, typeof vars['body'] === 'string' ? vars['body'] : '');
      thread.comments.push(comment);
      return answer({
        addPullRequestReviewThreadReply: {
          comment: { id: comment.id, url: commentJson(thread, comment).url },
        },
      });
    }
    if (query.includes('resolveReviewThread')) {
      const thread = threads.find((t) => t.id === vars['thread']);
      if (!thread)
        return notFound(
          'resolveReviewThread',
          `a node with the global id of '${String(vars['thread'])}'`,
        );
      thread.isResolved = true;
      return answer({ resolveReviewThread: { thread: { id: thread.id, isResolved: true } } });
    }
    if (query.includes('reviewThreads')) {
      if (vars['owner'] !== owner || vars['name'] !== repo)
        return notFound(
          'repository',
          `a Repository with the name '${String(vars['owner'])}/${String(vars['name'])}'`,
        );
      const pull = find(Number(vars['number']));
      if (!pull)
        return answer({ repository: { pullRequest: null } }, [
          {
            type: 'NOT_FOUND',
            path: ['repository', 'pullRequest'],
            message: `Could not resolve to a PullRequest with the number of ${String(vars['number'])}.`,
          },
        ]);
      const all = threads.filter((t) => t.pull === pull.number);
      const first = Number(/reviewThreads\(first:\s*(\d+)/.exec(query)?.[1] ?? 100);
      const start =
        typeof vars['cursor'] === 'string'
          ? Number(Buffer.from(vars['cursor'], 'base64').toString('utf8'))
          : 0;
      const page = all.slice(start, start + first);
      const end = start + page.length;
      return answer({
        repository: {
          pullRequest: {
            reviewThreads: {
              pageInfo: {
                hasNextPage: end < all.length,
                endCursor: page.length > 0 ? Buffer.from(String(end)).toString('base64') : null,
              },
              nodes: page.map(threadJson),
            },
          },
        },
      });
    }
    return answer(null, [
      {
        message: 'fake GitHub: unsupported GraphQL document',
        extensions: { code: 'undefinedField' },
      },
    ]);
  };

  const server = createServer((req, res) => {
    void readBody(req).then((body) => {
      const parsed = new URL(req.url ?? '/', 'http://127.0.0.1');
      const record: GitHubRequest = {
        method: req.method ?? 'GET',
        path: parsed.pathname,
        query: Object.fromEntries(parsed.searchParams),
        authorization: req.headers.authorization,
        headers: req.headers,
        body,
        status: 0,
      };
      requests.push(record);
      const query = (record.body as { query?: unknown } | null)?.query;
      const graphqlMatches = (f: FailureRule): boolean =>
        !f.graphql ||
        (record.path === '/graphql' && typeof query === 'string' && f.graphql.test(query));
      const rule = failures.find(
        (f) =>
          f.left > 0 &&
          (!f.method || f.method === record.method) &&
          (!f.path || f.path.test(record.path)) &&
          graphqlMatches(f),
      );
      if (rule) {
        rule.left--;
        record.status = failWith(res, rule);
        return;
      }
      const auth = record.authorization ?? '';
      if (auth !== `token ${token}` && auth !== `Bearer ${token}`) {
        record.status = failWith(res, { kind: 'bad_credentials' });
        return;
      }
      record.status =
        record.path === '/graphql' && record.method === 'POST'
          ? graphql(record, res)
          : route(record, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const get = (n: number): FakePull => {
    const pull = find(n);
    if (!pull) throw new Error(`fake GitHub: no pull request #${n}`);
    return pull;
  };

  return {
    url,
    owner,
    repo,
    requests,
    pulls,
    apiCalls: (method, path) =>
      requests.filter(
        (r) => r.status < 400 && (!method || r.method === method) && (!path || path.test(r.path)),
      ),
    fail(rule) {
      failures.push({ ...rule, left: rule.times ?? Number.POSITIVE_INFINITY });
    },
    clearFailures() {
      failures = [];
    },
    setRateLimitRemaining(next) {
      remaining = next;
    },
    rateLimitReset: resetAt,
    setToken(next) {
      token = next;
    },
    pull: get,
    open(input) {
      const sha = headSha(input.head);
      if (!sha) throw new Error(`fake GitHub: ${input.head} is not on the remote`);
      return addPull({
        draft: input.draft ?? false,
        title: input.title,
        body: input.body,
        head: input.head,
        headSha: sha,
        base: input.base,
      });
    },
    merge(n) {
      const pull = get(n);
      const stamp = now();
      pull.state = 'closed';
      pull.mergedAt = stamp;
      pull.closedAt = stamp;
      pull.updatedAt = stamp;
      pull.mergeCommitSha = 'f'.repeat(40);
    },
    close(n) {
      const pull = get(n);
      pull.state = 'closed';
      pull.closedAt = now();
      pull.updatedAt = pull.closedAt;
    },
    reopen(n) {
      const pull = get(n);
      if (pull.mergedAt) throw new Error('fake GitHub: a merged pull request cannot be reopened');
      pull.state = 'open';
      pull.closedAt = null;
      pull.updatedAt = now();
    },
    edit(n, change) {
      const pull = get(n);
      if (change.title !== undefined) pull.title = change.title;
      if (change.body !== undefined) pull.body = change.body;
      pull.updatedAt = now();
    },
    review(n, login, state) {
      get(n).reviews.push({ login, state });
    },
    threads,
    addReviewThread(pull, input) {
      get(pull);
      const thread: FakeThread = {
        id: `PRRT_kwDO${threads.length + 1}`,
        pull,
        path: input.path,
        line: input.line,
        startLine: input.startLine ?? null,
        isResolved: false,
        isOutdated: false,
        comments: [
          newComment(input.author, input.body),
          ...(input.replies ?? []).map((r) => newComment(r.author, r.body)),
        ],
      };
      threads.push(thread);
      return thread;
    },
    thread(id) {
      const thread = threads.find((t) => t.id === id);
      if (!thread) throw new Error(`fake GitHub: no review thread ${id}`);
      return thread;
    },
    commentOnThread(id, author, body) {
      const thread = threads.find((t) => t.id === id);
      if (!thread) throw new Error(`fake GitHub: no review thread ${id}`);
      thread.comments.push(newComment(author, body));
    },
    resolveThread(id) {
      const thread = threads.find((t) => t.id === id);
      if (!thread) throw new Error(`fake GitHub: no review thread ${id}`);
      thread.isResolved = true;
    },
    setCheckRuns(sha, runs) {
      checkRuns.set(sha, runs);
    },
    stop: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * A project whose origin is github.com/acme/widgets (so Grove finds the
 * repository there) with pushes going to a local bare repository, and the
 * fake GitHub serving that repository.
 */
export async function startGitHubProject(
  world: GroveWorld,
  token: string,
): Promise<{ repo: string; bare: string; github: FakeGitHub }> {
  const remoteUrl = 'https://github.com/acme/widgets.git';
  const repo = makeRepo(world, 'widgets', true);
  const bare = join(world.dir, 'widgets-origin.git');
  git(repo, 'remote', 'set-url', 'origin', remoteUrl);
  git(repo, 'config', `url.${bare}.pushInsteadOf`, remoteUrl);
  const github = await startFakeGitHub({ owner: 'acme', repo: 'widgets', token, bareRepo: bare });
  return { repo, bare, github };
}
