import type { ServerResponse } from 'node:http';
import { now, send, type GitHubState } from './state.js';
import type { FakeGitHub, GitHubRequest } from './types.js';

/** GET /commits/SHA/check-runs; undefined when the request is not that. */
export function checkRunRoute(
  state: GitHubState,
  req: GitHubRequest,
  rest: string,
  res: ServerResponse,
): number | undefined {
  const m = /^\/commits\/([^/]+)\/check-runs$/.exec(rest);
  if (!m || req.method !== 'GET') return undefined;
  const runs = state.checkRuns.get(decodeURIComponent(m[1] ?? '')) ?? [];
  send(state, res, 200, {
    total_count: runs.length,
    check_runs: runs.map((r, i) => ({
      id: 8000 + i,
      name: r.name,
      head_sha: m[1],
      status: r.status,
      conclusion: r.conclusion,
      started_at: now(),
      completed_at: r.status === 'completed' ? now() : null,
    })),
  });
  return 200;
}

export function checkActions(state: GitHubState): Pick<FakeGitHub, 'setCheckRuns'> {
  return {
    setCheckRuns(sha, runs) {
      state.checkRuns.set(sha, runs);
    },
  };
}
