import type { ServerResponse } from 'node:http';
import { nextNumber } from './issues.js';
import { repoJson, USER } from './repos.js';
import {
  DOCS,
  findPull,
  getPull,
  headSha,
  notFound,
  now,
  send,
  sendConditional,
  type GitHubState,
} from './state.js';
import type { FakeGitHub, FakePull, GitHubRequest } from './types.js';

/** A new open pull request with the next number. */
function addPull(
  state: GitHubState,
  fields: Pick<FakePull, 'draft' | 'title' | 'body' | 'head' | 'headSha' | 'base'>,
): FakePull {
  const stamp = now();
  const pull: FakePull = {
    number: nextNumber(state),
    state: 'open',
    ...fields,
    mergedAt: null,
    mergeCommitSha: null,
    createdAt: stamp,
    updatedAt: stamp,
    closedAt: null,
    reviews: [],
  };
  state.pulls.push(pull);
  return pull;
}

function pullJson(state: GitHubState, p: FakePull, full: boolean) {
  const { owner, repo, url } = state;
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
      repo: repoJson(state),
    },
    base: {
      label: `${owner}:${p.base}`,
      ref: p.base,
      sha: headSha(state, p.base) ?? '0'.repeat(40),
      user: { ...USER, login: owner },
      repo: repoJson(state),
    },
    author_association: 'OWNER',
    auto_merge: null,
  };
  // The list endpoint returns the "simple" pull request; get/create/update add these.
  if (!full) return simple;
  return {
    ...simple,
    merged: p.mergedAt !== null,
    mergeable: p.state === 'open' ? p.conflicted !== true : null,
    mergeable_state:
      p.state === 'open'
        ? p.conflicted === true
          ? 'dirty'
          : p.draft
            ? 'draft'
            : 'clean'
        : 'unknown',
    merged_by: p.mergedAt ? USER : null,
    comments: 0,
    // As on GitHub: a review comment or reply changes the count, so the answer and its ETag.
    review_comments: state.threads
      .filter((t) => t.pull === p.number)
      .reduce((n, t) => n + t.comments.length, 0),
    maintainer_can_modify: false,
    commits: 1,
    additions: 1,
    deletions: 0,
    changed_files: 1,
  };
}

function createPull(
  state: GitHubState,
  body: Record<string, unknown>,
  res: ServerResponse,
): number {
  const { owner, pulls } = state;
  const head = typeof body['head'] === 'string' ? body['head'] : '';
  const baseRef = typeof body['base'] === 'string' ? body['base'] : '';
  const headName = head.includes(':') ? (head.split(':')[1] ?? '') : head;
  const errors: Record<string, string>[] = [];
  const sha = headSha(state, headName);
  if (!body['title'])
    errors.push({ resource: 'PullRequest', field: 'title', code: 'missing_field' });
  if (!sha) errors.push({ resource: 'PullRequest', field: 'head', code: 'invalid' });
  if (!headSha(state, baseRef))
    errors.push({ resource: 'PullRequest', field: 'base', code: 'invalid' });
  if (sha && pulls.some((p) => p.state === 'open' && p.head === headName))
    errors.push({
      resource: 'PullRequest',
      code: 'custom',
      message: `A pull request already exists for ${owner}:${headName}.`,
    });
  if (errors.length > 0) {
    send(state, res, 422, {
      message: 'Validation Failed',
      errors,
      documentation_url: `${DOCS}/pulls/pulls#create-a-pull-request`,
      status: '422',
    });
    return 422;
  }
  const pull = addPull(state, {
    draft: body['draft'] === true,
    title: typeof body['title'] === 'string' ? body['title'] : '',
    body: typeof body['body'] === 'string' ? body['body'] : null,
    head: headName,
    headSha: sha ?? '',
    base: baseRef,
  });
  send(state, res, 201, pullJson(state, pull, true), {
    location: `${state.url}/repos/${owner}/${state.repo}/pulls/${pull.number}`,
  });
  return 201;
}

/**
 * GET/POST /pulls, GET/PATCH /pulls/N (`rest` is the path after
 * /repos/owner/repo). The status it answered with, or undefined when the
 * request is not one of these.
 */
export function pullRoute(
  state: GitHubState,
  req: GitHubRequest,
  rest: string,
  res: ServerResponse,
): number | undefined {
  const body = (req.body ?? {}) as Record<string, unknown>;
  if (rest === '/pulls' && req.method === 'GET') {
    const st = req.query['state'] ?? 'open';
    const head = req.query['head'];
    let list = state.pulls.filter((p) => st === 'all' || p.state === st);
    if (head) list = list.filter((p) => `${state.owner}:${p.head}` === head);
    list = [...list].sort((a, b) =>
      req.query['direction'] === 'asc' ? a.number - b.number : b.number - a.number,
    );
    const perPage = Number(req.query['per_page'] ?? 30);
    send(
      state,
      res,
      200,
      list.slice(0, perPage).map((p) => pullJson(state, p, false)),
    );
    return 200;
  }
  if (rest === '/pulls' && req.method === 'POST') return createPull(state, body, res);
  const m = /^\/pulls\/(\d+)$/.exec(rest);
  if (!m) return undefined;
  const pull = findPull(state, Number(m[1]));
  if (!pull) return notFound(state, res);
  if (req.method === 'GET') {
    const sha = headSha(state, pull.head);
    if (sha && pull.state === 'open' && sha !== pull.headSha) {
      // A push updates the pull request (its head and updated_at), as on GitHub.
      pull.headSha = sha;
      pull.updatedAt = now();
    }
    // With an ETag and 304 Not Modified to If-None-Match, as GitHub answers.
    return sendConditional(state, req, res, pullJson(state, pull, true));
  }
  if (req.method === 'PATCH') {
    if (typeof body['title'] === 'string') pull.title = body['title'];
    if (typeof body['body'] === 'string') pull.body = body['body'];
    if (body['state'] === 'closed' || body['state'] === 'open') pull.state = body['state'];
    pull.updatedAt = now();
    send(state, res, 200, pullJson(state, pull, true));
    return 200;
  }
  return undefined;
}

/** What a person does to pull requests "on GitHub". */
export function pullActions(
  state: GitHubState,
): Pick<
  FakeGitHub,
  'pull' | 'open' | 'merge' | 'setConflicted' | 'close' | 'reopen' | 'edit' | 'review'
> {
  const get = (n: number): FakePull => getPull(state, n);
  return {
    pull: get,
    open(input) {
      const sha = headSha(state, input.head);
      if (!sha) throw new Error(`fake GitHub: ${input.head} is not on the remote`);
      return addPull(state, {
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
    setConflicted(n, conflicted) {
      get(n).conflicted = conflicted;
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
    review(n, login, verdict) {
      // A submitted review updates the pull request's updated_at on GitHub.
      const pull = get(n);
      pull.updatedAt = now();
      pull.reviews.push({ login, state: verdict, at: pull.updatedAt });
    },
  };
}
