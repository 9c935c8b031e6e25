import type { ServerResponse } from 'node:http';
import { now, send, sendConditional, type GitHubState } from './state.js';
import type { FakeGitHub, GitHubRequest } from './types.js';

/** Where the job-log redirect points: a download outside the API that wants no token, as GitHub's does. */
export const LOG_DOWNLOADS = '/_downloads/job-logs/';

/**
 * The checks routes: GET /commits/REF/check-runs, /commits/REF/status (the
 * combined status, latest per context), /commits/REF/statuses (every one,
 * newest first), all with ETags and 304s, and /actions/jobs/ID/logs (302 to
 * the plain-text download). Undefined when the request is none of these.
 */
export function checkRunRoute(
  state: GitHubState,
  req: GitHubRequest,
  rest: string,
  res: ServerResponse,
): number | undefined {
  if (req.method !== 'GET') return undefined;
  const commit = /^\/commits\/([^/]+)\/(check-runs|status|statuses)$/.exec(rest);
  if (commit) {
    const sha = decodeURIComponent(commit[1] ?? '');
    if (commit[2] === 'check-runs') {
      const runs = state.checkRuns.get(sha) ?? [];
      return sendConditional(state, req, res, {
        total_count: runs.length,
        check_runs: runs.map((r) => ({
          id: r.id,
          name: r.name,
          head_sha: sha,
          status: r.status,
          conclusion: r.conclusion,
          html_url: `https://github.com/${state.owner}/${state.repo}/actions/runs/7000/job/${r.id}`,
          details_url: `https://github.com/${state.owner}/${state.repo}/actions/runs/7000/job/${r.id}`,
          started_at: r.at,
          completed_at: r.status === 'completed' ? r.at : null,
          app: {
            id: 15368,
            slug: r.app,
            name: r.app === 'github-actions' ? 'GitHub Actions' : r.app,
          },
        })),
      });
    }
    const statuses = state.statuses.get(sha) ?? [];
    const json = statuses.map((s) => ({
      id: s.id,
      context: s.context,
      state: s.state,
      description: s.description,
      target_url: s.targetUrl,
      created_at: s.at,
      updated_at: s.at,
    }));
    if (commit[2] === 'statuses') return sendConditional(state, req, res, [...json].reverse());
    const latest = [...new Map(json.map((s) => [s.context, s])).values()];
    const combined = latest.some((s) => s.state === 'failure' || s.state === 'error')
      ? 'failure'
      : latest.every((s) => s.state === 'success') && latest.length > 0
        ? 'success'
        : 'pending';
    return sendConditional(state, req, res, {
      state: combined,
      sha,
      total_count: latest.length,
      statuses: latest,
    });
  }
  const job = /^\/actions\/jobs\/(\d+)\/logs$/.exec(rest);
  if (job) {
    const id = Number(job[1]);
    const run = [...state.checkRuns.values()].flat().find((r) => r.id === id);
    if (!run || run.log === null) {
      send(state, res, 404, { message: 'Not Found', status: '404' });
      return 404;
    }
    // GitHub's answer: a redirect to a short-lived plain-text download.
    if (state.remaining > 0) state.remaining--;
    res.writeHead(302, { location: `${state.url}${LOG_DOWNLOADS}${id}?sig=fake` });
    res.end();
    return 302;
  }
  return undefined;
}

/** The plain-text job log behind the redirect (no token wanted); undefined when not such a path. */
export function logDownloadRoute(
  state: GitHubState,
  req: GitHubRequest,
  res: ServerResponse,
): number | undefined {
  if (req.method !== 'GET' || !req.path.startsWith(LOG_DOWNLOADS)) return undefined;
  const id = Number(req.path.slice(LOG_DOWNLOADS.length));
  const run = [...state.checkRuns.values()].flat().find((r) => r.id === id);
  if (!run || run.log === null) {
    res.writeHead(404, { 'content-type': 'application/xml' });
    res.end('<Error><Code>BlobNotFound</Code></Error>');
    return 404;
  }
  res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
  res.end(run.log);
  return 200;
}

export function checkActions(
  state: GitHubState,
): Pick<FakeGitHub, 'setCheckRuns' | 'setCommitStatuses'> {
  return {
    setCheckRuns(sha, runs) {
      state.checkRuns.set(
        sha,
        runs.map((r) => ({
          id: ++state.checkRunSeq,
          name: r.name,
          status: r.status,
          conclusion: r.conclusion,
          log: r.log ?? null,
          app: r.app ?? 'github-actions',
          at: now(),
        })),
      );
    },
    setCommitStatuses(sha, statuses) {
      state.statuses.set(
        sha,
        statuses.map((s) => ({
          id: ++state.checkRunSeq,
          context: s.context,
          state: s.state,
          description: s.description ?? null,
          targetUrl: s.targetUrl ?? null,
          at: now(),
        })),
      );
    },
  };
}
