import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { checkActions, checkRunRoute, logDownloadRoute } from './checks.js';
import { failWith, matchFailure, type ArmedFailure } from './failures.js';
import { issueActions, issueRoute, userRoute } from './issues.js';
import { pullActions, pullRoute } from './pulls.js';
import { authorized } from './repos.js';
import { graphqlRoute, reviewRoute, threadActions } from './reviews.js';
import { notFound, type GitHubState } from './state.js';
import type { FakeGitHub, FakeGitHubOptions, GitHubRequest } from './types.js';

export type * from './types.js';

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

/** The REST endpoints under /repos/owner/repo/. */
function route(state: GitHubState, req: GitHubRequest, res: ServerResponse): number {
  const base = `/repos/${state.owner}/${state.repo}`;
  if (!req.path.startsWith(`${base}/`)) return notFound(state, res);
  const rest = req.path.slice(base.length);
  return (
    pullRoute(state, req, rest, res) ??
    issueRoute(state, req, rest, res) ??
    reviewRoute(state, req, rest, res) ??
    checkRunRoute(state, req, rest, res) ??
    notFound(state, res)
  );
}

export async function startFakeGitHub(options: FakeGitHubOptions): Promise<FakeGitHub> {
  const state: GitHubState = {
    owner: options.owner ?? 'acme',
    repo: options.repo ?? 'widgets',
    url: '',
    bareRepo: options.bareRepo,
    requests: [],
    pulls: [],
    threads: [],
    issues: [],
    checkRuns: new Map(),
    statuses: new Map(),
    checkRunSeq: 8000,
    commentSeq: 0,
    remaining: options.rateLimit ?? 5000,
    limit: options.rateLimit ?? 5000,
    resetAt: Math.floor(Date.now() / 1000) + 3600,
  };
  const { requests } = state;
  let token = options.token;
  let failures: ArmedFailure[] = [];

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
      const rule = matchFailure(failures, record);
      if (rule) {
        rule.left--;
        record.status = failWith(state, res, rule);
        return;
      }
      // The job-log download GitHub redirects to is signed, not authorized.
      const download = logDownloadRoute(state, record, res);
      if (download !== undefined) {
        record.status = download;
        return;
      }
      if (!authorized(record.authorization, token)) {
        record.status = failWith(state, res, { kind: 'bad_credentials' });
        return;
      }
      record.status =
        record.path === '/graphql' && record.method === 'POST'
          ? graphqlRoute(state, record, res)
          : (userRoute(state, record, res) ?? route(state, record, res));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url: state.url,
    owner: state.owner,
    repo: state.repo,
    requests,
    pulls: state.pulls,
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
      state.remaining = next;
    },
    rateLimitReset: state.resetAt,
    setToken(next) {
      token = next;
    },
    ...pullActions(state),
    ...threadActions(state),
    ...checkActions(state),
    ...issueActions(state),
    stop: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
