import { sanitizeText } from '../../domain/sanitize.js';

export type ForgeErrorReason =
  | 'no_token'
  | 'bad_credentials'
  | 'missing_scope'
  | 'not_found'
  | 'branch_protection'
  | 'rate_limited'
  | 'validation'
  | 'server'
  | 'network'
  | 'not_github'
  /** The server has no GraphQL API (GitHub Enterprise without it): 404 on the GraphQL endpoint. */
  | 'no_graphql';

/** A GitHub failure in words (sanitized: it may quote GitHub's message). Never carries the token. */
export class ForgeError extends Error {
  readonly kind = 'forge' as const;
  constructor(
    readonly reason: ForgeErrorReason,
    message: string,
    readonly status: number | null = null,
    readonly resetAt: number | null = null,
  ) {
    super(sanitizeText(message));
    this.name = 'ForgeError';
  }
}

function clock(epochMs: number): string {
  const d = new Date(epochMs);
  return `${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`;
}

interface HttpFailure {
  readonly status?: number;
  readonly response?: {
    readonly headers?: Record<string, string | number | undefined>;
    readonly data?: unknown;
  };
  readonly message?: string;
  readonly code?: string;
  readonly cause?: unknown;
}

function header(failure: HttpFailure, name: string): string | undefined {
  const value = failure.response?.headers?.[name];
  return value === undefined ? undefined : String(value);
}

function githubMessage(failure: HttpFailure): string {
  const data = failure.response?.data as
    | { message?: string; errors?: { message?: string; code?: string; field?: string }[] }
    | undefined;
  const details = (data?.errors ?? [])
    .map((e) => e.message ?? [e.field, e.code].filter(Boolean).join(' '))
    .filter(Boolean);
  return [data?.message, ...details].filter(Boolean).join(': ');
}

/** Maps an HTTP/network failure of the GitHub API to a ForgeError. */
export function toForgeError(
  error: unknown,
  repoLabel: string,
  now: () => number = Date.now,
): ForgeError {
  if (error instanceof ForgeError) return error;
  const failure = (error ?? {}) as HttpFailure;
  const status = typeof failure.status === 'number' ? failure.status : null;
  const text = githubMessage(failure);
  if (status === null || (status === 500 && !failure.response)) {
    const cause = failure.cause as { code?: string } | undefined;
    const code = failure.code ?? cause?.code ?? '';
    return new ForgeError(
      'network',
      `Cannot reach GitHub${code ? ` (${code})` : ''}: check the network connection and try again.`,
    );
  }
  if (status === 401)
    return new ForgeError(
      'bad_credentials',
      'GitHub rejected the token (401). Check GITHUB_TOKEN / GH_TOKEN, or run `gh auth login`.',
      status,
    );
  const remaining = header(failure, 'x-ratelimit-remaining');
  const retryAfter = Number(header(failure, 'retry-after'));
  const waits = Number.isFinite(retryAfter) && retryAfter > 0;
  // A secondary rate limit (too many requests at once, or too fast) says how
  // long to wait in retry-after, or nothing (then at least a minute); the
  // primary one is used up (remaining 0) until x-ratelimit-reset.
  const secondary =
    /secondary rate limit|abuse detection/i.test(text) || (waits && remaining !== '0');
  if (
    status === 429 ||
    (status === 403 && (remaining === '0' || secondary || /rate limit/i.test(text)))
  ) {
    const reset = Number(header(failure, 'x-ratelimit-reset'));
    const resetAt = waits
      ? now() + retryAfter * 1000
      : secondary
        ? now() + 60_000
        : Number.isFinite(reset) && reset > 0
          ? reset * 1000
          : null;
    return new ForgeError(
      'rate_limited',
      secondary
        ? `GitHub's secondary rate limit stopped Grove's requests (too many too fast); they wait until ${clock(resetAt ?? now() + 60_000)}.`
        : `GitHub's rate limit is used up${resetAt ? `; it resets at ${clock(resetAt)}` : ''}. Try again then.`,
      status,
      resetAt,
    );
  }
  if (status === 403) {
    if (/protected branch|branch protection/i.test(text))
      return new ForgeError(
        'branch_protection',
        `GitHub refused because of branch protection: ${text}`,
        status,
      );
    return new ForgeError(
      'missing_scope',
      `GitHub refused (403)${text ? `: ${text}` : ''}. The token needs the \`repo\` scope (or pull-request write access) on ${repoLabel}.`,
      status,
    );
  }
  if (status === 404)
    return new ForgeError(
      'not_found',
      `Repository ${repoLabel} not found on GitHub, or the token cannot see it.`,
      status,
    );
  if (status === 422)
    return new ForgeError(
      'validation',
      `GitHub did not accept the request: ${text || 'validation failed'}.`,
      status,
    );
  if (status >= 500)
    return new ForgeError(
      'server',
      `GitHub had a server error (${status}); try again later.`,
      status,
    );
  return new ForgeError('server', `GitHub answered ${status}${text ? `: ${text}` : ''}.`, status);
}

interface GraphqlFailure {
  readonly name?: string;
  readonly errors?: readonly { readonly type?: string; readonly message?: string }[];
  readonly headers?: Record<string, string | number | undefined>;
}

/**
 * Maps a failure of a GitHub GraphQL call (review threads) to a ForgeError.
 * GraphQL reports most refusals as errors in a 200 answer (`type` FORBIDDEN,
 * RATE_LIMITED, NOT_FOUND…); an Enterprise server without GraphQL answers 404.
 */
export function toGraphqlForgeError(
  error: unknown,
  repoLabel: string,
  graphqlUrl: string,
  now: () => number = Date.now,
): ForgeError {
  if (error instanceof ForgeError) return error;
  const failure = (error ?? {}) as GraphqlFailure & HttpFailure;
  const errors: GraphqlFailure['errors'] | null = Array.isArray(failure.errors)
    ? (failure.errors as GraphqlFailure['errors'])
    : null;
  if (errors) {
    const types = errors.map((e) => e.type ?? '');
    const text = errors
      .map((e) => e.message ?? '')
      .filter(Boolean)
      .join('; ');
    if (types.includes('RATE_LIMITED')) {
      const reset = Number(failure.headers?.['x-ratelimit-reset']);
      const resetAt = Number.isFinite(reset) && reset > 0 ? reset * 1000 : null;
      return new ForgeError(
        'rate_limited',
        `GitHub's rate limit is used up${resetAt ? `; it resets at ${clock(resetAt)}` : ''}. Try again then.`,
        null,
        resetAt,
      );
    }
    if (types.includes('FORBIDDEN') || types.includes('INSUFFICIENT_SCOPES')) {
      return new ForgeError(
        'missing_scope',
        `GitHub refused${text ? `: ${text}` : ''}. The token needs the \`repo\` scope (or pull-request write access) on ${repoLabel}.`,
      );
    }
    if (types.includes('NOT_FOUND'))
      return new ForgeError(
        'not_found',
        `GitHub could not find it on ${repoLabel}${text ? `: ${text}` : ''}.`,
      );
    return new ForgeError(
      'validation',
      `GitHub's GraphQL API did not accept the request${text ? `: ${text}` : ''}.`,
    );
  }
  if (failure.status === 404) {
    return new ForgeError(
      'no_graphql',
      `GitHub answered 404 at ${graphqlUrl}: this server has no GraphQL API (GitHub Enterprise Server without it), which review threads need. Publishing and following the pull request still work.`,
      404,
    );
  }
  return toForgeError(error, repoLabel, now);
}
