import type { ServerResponse } from 'node:http';
import { USER } from './repos.js';
import { notFound, now, send, type GitHubState } from './state.js';
import type { FakeGitHub, FakeIssue, GitHubRequest } from './types.js';

/** The next number on the repository: issues and pull requests share them, as on GitHub. */
export function nextNumber(state: GitHubState): number {
  const top = (list: readonly { number: number }[]) =>
    list.reduce((n, item) => Math.max(n, item.number), 0);
  return Math.max(top(state.pulls), top(state.issues)) + 1;
}

const person = (login: string) => ({ ...USER, login, id: 2000 + login.length });

function issueJson(state: GitHubState, issue: FakeIssue) {
  const { owner, repo, url } = state;
  return {
    url: `${url}/repos/${owner}/${repo}/issues/${issue.number}`,
    id: 700000 + issue.number,
    node_id: `I_${issue.number}`,
    html_url: `https://github.com/${owner}/${repo}/issues/${issue.number}`,
    number: issue.number,
    state: issue.state,
    title: issue.title,
    body: issue.body,
    user: person(issue.author),
    labels: issue.labels.map((name, i) => ({ id: 500 + i, name, color: 'ededed' })),
    assignee: issue.assignees[0] ? person(issue.assignees[0]) : null,
    assignees: issue.assignees.map(person),
    comments: issue.comments.length,
    created_at: issue.createdAt,
    updated_at: issue.updatedAt,
    closed_at: issue.state === 'closed' ? issue.updatedAt : null,
    author_association: 'MEMBER',
    locked: false,
  };
}

/** A pull request as the issues endpoints show it (with `pull_request`). */
function pullAsIssue(state: GitHubState, n: number) {
  const pull = state.pulls.find((p) => p.number === n);
  if (!pull) return undefined;
  const { owner, repo, url } = state;
  return {
    url: `${url}/repos/${owner}/${repo}/issues/${n}`,
    number: n,
    state: pull.state,
    title: pull.title,
    body: pull.body,
    user: USER,
    labels: [],
    assignees: [],
    comments: 0,
    created_at: pull.createdAt,
    updated_at: pull.updatedAt,
    html_url: `https://github.com/${owner}/${repo}/pull/${n}`,
    pull_request: {
      url: `${url}/repos/${owner}/${repo}/pulls/${n}`,
      html_url: `https://github.com/${owner}/${repo}/pull/${n}`,
    },
  };
}

/** GET /issues (state, assignee, labels, sort, direction, per_page). */
function listIssues(state: GitHubState, req: GitHubRequest, res: ServerResponse): number {
  const wanted = req.query['state'] ?? 'open';
  const assignee = req.query['assignee'];
  const labels = (req.query['labels'] ?? '').split(',').filter(Boolean);
  let list = state.issues.filter((i) => wanted === 'all' || i.state === wanted);
  if (assignee === 'none') list = list.filter((i) => i.assignees.length === 0);
  else if (assignee === '*') list = list.filter((i) => i.assignees.length > 0);
  else if (assignee) list = list.filter((i) => i.assignees.includes(assignee));
  if (labels.length > 0) list = list.filter((i) => labels.every((l) => i.labels.includes(l)));
  const asc = req.query['direction'] === 'asc';
  list = [...list].sort((a, b) => (asc ? a.number - b.number : b.number - a.number));
  const perPage = Math.min(100, Number(req.query['per_page'] ?? 30));
  const page = Math.max(1, Number(req.query['page'] ?? 1));
  // GitHub's issue list holds pull requests too; the open ones come along here.
  const pulls = state.pulls
    .filter((p) => wanted === 'all' || p.state === wanted)
    .map((p) => pullAsIssue(state, p.number));
  const all = [
    ...list.map((i) => issueJson(state, i)),
    ...(assignee || labels.length ? [] : pulls),
  ];
  send(state, res, 200, all.slice((page - 1) * perPage, page * perPage));
  return 200;
}

/**
 * GET /issues, GET /issues/N, GET /issues/N/comments (`rest` is the path
 * after /repos/owner/repo); undefined when the request is not one of these.
 */
export function issueRoute(
  state: GitHubState,
  req: GitHubRequest,
  rest: string,
  res: ServerResponse,
): number | undefined {
  if (req.method !== 'GET') return undefined;
  if (rest === '/issues') return listIssues(state, req, res);
  const m = /^\/issues\/(\d+)(\/comments)?$/.exec(rest);
  if (!m) return undefined;
  const n = Number(m[1]);
  const issue = state.issues.find((i) => i.number === n);
  if (!issue) {
    const pull = pullAsIssue(state, n);
    if (!pull) return notFound(state, res);
    send(state, res, 200, m[2] ? [] : pull);
    return 200;
  }
  if (!m[2]) {
    send(state, res, 200, issueJson(state, issue));
    return 200;
  }
  const perPage = Math.min(100, Number(req.query['per_page'] ?? 30));
  const page = Math.max(1, Number(req.query['page'] ?? 1));
  const comments = issue.comments.map((c, i) => ({
    id: 60000 + n * 100 + i,
    body: c.body,
    user: person(c.author),
    created_at: c.createdAt,
    updated_at: c.createdAt,
    html_url: `https://github.com/${state.owner}/${state.repo}/issues/${n}#issuecomment-${i}`,
    author_association: 'MEMBER',
  }));
  send(state, res, 200, comments.slice((page - 1) * perPage, page * perPage), {
    ...(comments.length > page * perPage
      ? {
          link: `<${state.url}/repos/${state.owner}/${state.repo}/issues/${n}/comments?per_page=${perPage}&page=${page + 1}>; rel="next"`,
        }
      : {}),
  });
  return 200;
}

/** GET /user: the user the token belongs to. */
export function userRoute(
  state: GitHubState,
  req: GitHubRequest,
  res: ServerResponse,
): number | undefined {
  if (req.path !== '/user' || req.method !== 'GET') return undefined;
  send(state, res, 200, USER);
  return 200;
}

/** What a person does to issues "on GitHub". */
export function issueActions(
  state: GitHubState,
): Pick<FakeGitHub, 'addIssue' | 'issue' | 'closeIssue' | 'commentOnIssue'> {
  const get = (n: number): FakeIssue => {
    const issue = state.issues.find((i) => i.number === n);
    if (!issue) throw new Error(`fake GitHub: no issue #${n}`);
    return issue;
  };
  return {
    issue: get,
    addIssue(input) {
      const stamp = now();
      const issue: FakeIssue = {
        number: nextNumber(state),
        state: input.state ?? 'open',
        title: input.title,
        body: input.body ?? null,
        author: input.author ?? 'octo-reporter',
        labels: [...(input.labels ?? [])],
        assignees: [...(input.assignees ?? [])],
        comments: (input.comments ?? []).map((c) => ({ ...c, createdAt: stamp })),
        createdAt: stamp,
        updatedAt: stamp,
      };
      state.issues.push(issue);
      return issue;
    },
    closeIssue(n) {
      const issue = get(n);
      issue.state = 'closed';
      issue.updatedAt = now();
    },
    commentOnIssue(n, author, body) {
      const issue = get(n);
      issue.comments.push({ author, body, createdAt: now() });
      issue.updatedAt = now();
    },
  };
}
