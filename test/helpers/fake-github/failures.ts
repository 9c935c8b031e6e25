import type { ServerResponse } from 'node:http';
import { DOCS, notFound, send, type GitHubState } from './state.js';
import type { FailureRule, GitHubRequest } from './types.js';

export type ArmedFailure = FailureRule & { left: number };

/** The first armed failure a request matches, if any. */
export function matchFailure(
  failures: readonly ArmedFailure[],
  record: GitHubRequest,
): ArmedFailure | undefined {
  const query = (record.body as { query?: unknown } | null)?.query;
  const graphqlMatches = (f: FailureRule): boolean =>
    !f.graphql ||
    (record.path === '/graphql' && typeof query === 'string' && f.graphql.test(query));
  return failures.find(
    (f) =>
      f.left > 0 &&
      (!f.method || f.method === record.method) &&
      (!f.path || f.path.test(record.path)) &&
      graphqlMatches(f),
  );
}

/** Answers the way GitHub fails; returns the status sent. */
export function failWith(state: GitHubState, res: ServerResponse, rule: FailureRule): number {
  const { limit, owner } = state;
  switch (rule.kind) {
    case 'bad_credentials':
      send(state, res, 401, { message: 'Bad credentials', documentation_url: DOCS, status: '401' });
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
    case 'secondary_rate_limited':
      // The primary budget is not used up: retry-after says how long to wait.
      res.writeHead(403, {
        'content-type': 'application/json; charset=utf-8',
        'retry-after': String(rule.retryAfter ?? 60),
        'x-ratelimit-limit': String(limit),
        'x-ratelimit-remaining': String(state.remaining),
        'x-ratelimit-reset': String(state.resetAt),
        'x-ratelimit-resource': 'core',
      });
      res.end(
        JSON.stringify({
          message:
            'You have exceeded a secondary rate limit. Please wait a few minutes before you try again. If you reach out to GitHub Support for help, please include the request ID FAKE.',
          documentation_url: `${DOCS}/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits`,
          status: '403',
        }),
      );
      return 403;
    case 'missing_scope':
      send(
        state,
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
      return notFound(state, res);
    case 'validation':
      send(state, res, 422, {
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
      send(state, res, 200, {
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
          errors: [{ type: 'RATE_LIMITED', message: 'API rate limit exceeded for user ID 1001.' }],
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
}
