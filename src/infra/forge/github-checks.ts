import type { Octokit } from '@octokit/rest';
import * as z from 'zod/mini';
import { checkRunState, commitStatusState, logTail, type CheckInfo } from '../../domain/checks.js';
import { sanitizeLine } from '../../domain/sanitize.js';
import { ForgeError } from './errors.js';
import type { GitHubRepo } from './remote.js';

/**
 * A conditional read: `changed` with the new ETag and what GitHub answered,
 * or not changed (GitHub answered 304 Not Modified to If-None-Match, which
 * costs no rate limit).
 */
export type Conditional<T> =
  | { readonly changed: true; readonly etag: string | null; readonly items: T }
  | { readonly changed: false };

/** The checks of a commit over GitHub's REST API, and the log of a GitHub Actions job. */
export interface ChecksClient {
  /** The commit's check runs (the first 100), asked with If-None-Match when an ETag is given. */
  checkRuns(
    sha: string,
    etag: string | null,
    signal: AbortSignal,
  ): Promise<Conditional<CheckInfo[]>>;
  /** The commit's combined status (the latest status of each context). */
  commitStatuses(
    sha: string,
    etag: string | null,
    signal: AbortSignal,
  ): Promise<Conditional<CheckInfo[]>>;
  /** The tail of an Actions job's log (GitHub answers 302 to a plain-text download), sanitized and capped. */
  jobLogTail(jobId: number, signal: AbortSignal): Promise<string>;
}

const RawRuns = z.object({
  check_runs: z.array(
    z.object({
      id: z.number(),
      name: z.string(),
      status: z.nullish(z.string()),
      conclusion: z.nullish(z.string()),
      html_url: z.nullish(z.string()),
      details_url: z.nullish(z.string()),
      app: z.nullish(z.object({ slug: z.nullish(z.string()) })),
    }),
  ),
});

const RawStatus = z.object({
  statuses: z.array(
    z.object({
      context: z.string(),
      state: z.string(),
      target_url: z.nullish(z.string()),
    }),
  ),
});

type Call = <T>(work: () => Promise<T>) => Promise<T>;
type Req = (signal: AbortSignal) => { request: { signal: AbortSignal } };

interface Answer {
  readonly data: unknown;
  readonly headers: Record<string, string | number | undefined>;
}

/** Runs a GET; null when GitHub answered 304 Not Modified. */
export async function conditional(work: () => Promise<Answer>): Promise<Answer | null> {
  try {
    return await work();
  } catch (error) {
    if ((error as { status?: unknown } | null)?.status === 304) return null;
    throw error;
  }
}

export const etagOf = (answer: Answer): string | null => {
  const etag = answer.headers.etag;
  return etag === undefined ? null : String(etag);
};

/** The If-None-Match header for an ETag kept from the last answer. */
export const ifNoneMatch = (etag: string | null): Record<string, string> =>
  etag ? { 'if-none-match': etag } : {};

function unreadable(what: string): ForgeError {
  return new ForgeError('server', `GitHub answered with ${what} Grove could not read.`);
}

export function createChecksClient(
  octokit: Octokit,
  repo: GitHubRepo,
  call: Call,
  req: Req,
): ChecksClient {
  const base = { owner: repo.owner, repo: repo.repo };
  /** A commit's checks or statuses (the first 100), with If-None-Match when an ETag is given; null: 304. */
  const commitRead = (
    route:
      | 'GET /repos/{owner}/{repo}/commits/{ref}/check-runs'
      | 'GET /repos/{owner}/{repo}/commits/{ref}/status',
    sha: string,
    etag: string | null,
    signal: AbortSignal,
  ): Promise<Answer | null> =>
    call(() =>
      conditional(() =>
        octokit.request(route, {
          ...base,
          ref: sha,
          per_page: 100,
          headers: ifNoneMatch(etag),
          ...req(signal),
        }),
      ),
    );
  return {
    async checkRuns(sha, etag, signal) {
      const answer = await commitRead(
        'GET /repos/{owner}/{repo}/commits/{ref}/check-runs',
        sha,
        etag,
        signal,
      );
      if (!answer) return { changed: false };
      const parsed = RawRuns.safeParse(answer.data);
      if (!parsed.success) throw unreadable('check runs');
      // Names and URLs are set by whoever runs the CI: untrusted.
      const items = parsed.data.check_runs.map((run): CheckInfo => ({
        kind: 'check_run',
        name: sanitizeLine(run.name),
        state: checkRunState(run.status ?? null, run.conclusion ?? null),
        conclusion: run.status === 'completed' ? sanitizeLine(run.conclusion ?? '') || null : null,
        url:
          run.html_url || run.details_url
            ? sanitizeLine(run.html_url || run.details_url || '')
            : null,
        // A GitHub Actions job is the check run of the same id.
        jobId: run.app?.slug === 'github-actions' ? run.id : null,
        logTail: null,
        logError: null,
      }));
      return { changed: true, etag: etagOf(answer), items };
    },

    async commitStatuses(sha, etag, signal) {
      const answer = await commitRead(
        'GET /repos/{owner}/{repo}/commits/{ref}/status',
        sha,
        etag,
        signal,
      );
      if (!answer) return { changed: false };
      const parsed = RawStatus.safeParse(answer.data);
      if (!parsed.success) throw unreadable('commit statuses');
      const items = parsed.data.statuses.map((status): CheckInfo => ({
        kind: 'status',
        name: sanitizeLine(status.context),
        state: commitStatusState(status.state),
        conclusion: sanitizeLine(status.state),
        url: status.target_url ? sanitizeLine(status.target_url) : null,
        jobId: null,
        logTail: null,
        logError: null,
      }));
      return { changed: true, etag: etagOf(answer), items };
    },

    async jobLogTail(jobId, signal) {
      try {
        // GitHub answers 302 to a short-lived plain-text download; fetch follows
        // it (and drops the token on the way to another host).
        const answer = await call(() =>
          octokit.request('GET /repos/{owner}/{repo}/actions/jobs/{job_id}/logs', {
            ...base,
            job_id: jobId,
            ...req(signal),
          }),
        );
        const data: unknown = answer.data;
        const text =
          typeof data === 'string'
            ? data
            : data instanceof ArrayBuffer
              ? new TextDecoder().decode(data)
              : null;
        if (text === null) throw unreadable(`a log for job ${jobId}`);
        return logTail(text);
      } catch (error) {
        if (error instanceof ForgeError && (error.reason === 'not_found' || error.status === 410))
          throw new ForgeError(
            'not_found',
            `GitHub has no log for job ${jobId}: it has expired, or the token cannot read Actions on ${repo.owner}/${repo.repo}.`,
            error.status,
          );
        throw error;
      }
    },
  };
}
