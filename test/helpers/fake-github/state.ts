import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import type { ServerResponse } from 'node:http';
import type { FakeIssue, FakePull, FakeThread, GitHubRequest } from './types.js';

export const DOCS = 'https://docs.github.com/rest';

export interface CheckRun {
  /** The check run's id, which is also its GitHub Actions job's. */
  readonly id: number;
  name: string;
  status: string;
  conclusion: string | null;
  /** The job's log (null: none, the log route answers 404). */
  log: string | null;
  /** The app that reports it (github-actions unless a test says). */
  app: string;
  /** When it was set (ISO), so its answer, and its ETag, stay the same. */
  readonly at: string;
}

export interface CommitStatus {
  readonly id: number;
  readonly context: string;
  readonly state: 'pending' | 'success' | 'failure' | 'error';
  readonly description: string | null;
  readonly targetUrl: string | null;
  readonly at: string;
}

/** What the fake's routes share: its repository, records and rate-limit budget. */
export interface GitHubState {
  readonly owner: string;
  readonly repo: string;
  /** The API base, set once the server listens. */
  url: string;
  readonly bareRepo: string | undefined;
  readonly requests: GitHubRequest[];
  readonly pulls: FakePull[];
  readonly threads: FakeThread[];
  readonly issues: FakeIssue[];
  readonly checkRuns: Map<string, CheckRun[]>;
  /** Commit statuses by sha, oldest first. */
  readonly statuses: Map<string, CommitStatus[]>;
  /** The last check run or status id given. */
  checkRunSeq: number;
  commentSeq: number;
  remaining: number;
  readonly limit: number;
  /** Epoch seconds reported in x-ratelimit-reset. */
  readonly resetAt: number;
}

export const now = (): string => new Date().toISOString().replace(/\.\d+Z$/, 'Z');

/** The commit a branch of the bare repository points at (all zeros without one). */
export function headSha(state: GitHubState, branch: string): string | null {
  if (!state.bareRepo) return '0'.repeat(40);
  try {
    return (
      execFileSync('git', ['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`], {
        cwd: state.bareRepo,
        encoding: 'utf8',
      }).trim() || null
    );
  } catch {
    return null;
  }
}

/** Answers in JSON with GitHub's headers, counting the rate-limit budget down. */
export function send(
  state: GitHubState,
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (state.remaining > 0) state.remaining--;
  const text = body === undefined ? '' : JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'x-github-media-type': 'github.v3; format=json',
    'x-ratelimit-limit': String(state.limit),
    'x-ratelimit-remaining': String(state.remaining),
    'x-ratelimit-reset': String(state.resetAt),
    'x-ratelimit-used': String(state.limit - state.remaining),
    'x-ratelimit-resource': 'core',
    'x-github-request-id': `FAKE:${state.requests.length}`,
    ...headers,
  });
  res.end(text);
}

/**
 * Answers a GET with `body` and its ETag, or 304 Not Modified (no body, and
 * no rate limit spent, as on GitHub) when If-None-Match names that ETag.
 */
export function sendConditional(
  state: GitHubState,
  req: GitHubRequest,
  res: ServerResponse,
  body: unknown,
): number {
  const etag = `W/"${createHash('sha256').update(JSON.stringify(body)).digest('hex').slice(0, 32)}"`;
  const asked = req.headers['if-none-match'];
  if (asked !== undefined && String(asked).split(/,\s*/).includes(etag)) {
    res.writeHead(304, {
      etag,
      'x-ratelimit-limit': String(state.limit),
      'x-ratelimit-remaining': String(state.remaining),
      'x-ratelimit-reset': String(state.resetAt),
      'x-ratelimit-resource': 'core',
    });
    res.end();
    return 304;
  }
  send(state, res, 200, body, { etag });
  return 200;
}

export function notFound(state: GitHubState, res: ServerResponse): number {
  send(state, res, 404, { message: 'Not Found', documentation_url: DOCS, status: '404' });
  return 404;
}

export const findPull = (state: GitHubState, n: number): FakePull | undefined =>
  state.pulls.find((p) => p.number === n);

/** The pull request a test names (it must exist). */
export function getPull(state: GitHubState, n: number): FakePull {
  const pull = findPull(state, n);
  if (!pull) throw new Error(`fake GitHub: no pull request #${n}`);
  return pull;
}
