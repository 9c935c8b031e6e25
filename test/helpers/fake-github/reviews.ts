import type { ServerResponse } from 'node:http';
import { USER } from './repos.js';
import {
  findPull,
  getPull,
  notFound,
  now,
  send,
  sendConditional,
  type GitHubState,
} from './state.js';
import type { FakeGitHub, FakeThread, FakeThreadComment, GitHubRequest } from './types.js';

/** GET /pulls/N/reviews; undefined when the request is not that. */
export function reviewRoute(
  state: GitHubState,
  req: GitHubRequest,
  rest: string,
  res: ServerResponse,
): number | undefined {
  const m = /^\/pulls\/(\d+)\/reviews$/.exec(rest);
  if (!m || req.method !== 'GET') return undefined;
  const pull = findPull(state, Number(m[1]));
  if (!pull) return notFound(state, res);
  return sendConditional(
    state,
    req,
    res,
    pull.reviews.map((r, i) => ({
      id: 7000 + i,
      node_id: `PRR_${i}`,
      user: { ...USER, login: r.login },
      body: '',
      state: r.state,
      html_url: `https://github.com/${state.owner}/${state.repo}/pull/${pull.number}#pullrequestreview-${7000 + i}`,
      commit_id: pull.headSha,
      submitted_at: r.at,
      author_association: 'MEMBER',
    })),
  );
}

const commentJson = (state: GitHubState, thread: FakeThread, c: FakeThreadComment) => ({
  id: c.id,
  body: c.body,
  createdAt: c.createdAt,
  url: `https://github.com/${state.owner}/${state.repo}/pull/${thread.pull}#discussion_r${c.id.replace(/\D/g, '')}`,
  author: { login: c.author },
});

const threadJson = (state: GitHubState, t: FakeThread) => ({
  id: t.id,
  isResolved: t.isResolved,
  isOutdated: t.isOutdated,
  path: t.path,
  // An outdated thread has no current line, only the original one.
  line: t.isOutdated ? null : t.line,
  startLine: t.isOutdated ? null : t.startLine,
  originalLine: t.line,
  originalStartLine: t.startLine,
  comments: { nodes: t.comments.map((c) => commentJson(state, t, c)) },
});

const newComment = (state: GitHubState, author: string, body: string): FakeThreadComment => ({
  id: `PRRC_kwDO${++state.commentSeq}`,
  author,
  body,
  createdAt: now(),
});

/**
 * A review comment or reply updates its pull request on GitHub (updated_at
 * and review_comments, so the pull request's ETag); resolving a thread does not.
 */
function touch(state: GitHubState, pull: number): void {
  const found = findPull(state, pull);
  if (found) found.updatedAt = now();
}

/** POST /graphql: the review-thread query and mutations Grove sends. */
export function graphqlRoute(state: GitHubState, req: GitHubRequest, res: ServerResponse): number {
  const { owner, repo, threads } = state;
  const body = (req.body ?? {}) as { query?: unknown; variables?: Record<string, unknown> };
  const query = typeof body.query === 'string' ? body.query : '';
  const vars = body.variables ?? {};
  const answer = (data: unknown, errors?: unknown[]): number => {
    send(state, res, 200, errors ? { data, errors } : { data });
    return 200;
  };
  const unresolved = (path: string, what: string): number =>
    answer(null, [{ type: 'NOT_FOUND', path: [path], message: `Could not resolve to ${what}.` }]);
  const noThread = (mutation: string): number =>
    unresolved(mutation, `a node with the global id of '${String(vars['thread'])}'`);
  const thread = threads.find((t) => t.id === vars['thread']);
  if (query.includes('addPullRequestReviewThreadReply')) {
    if (!thread) return noThread('addPullRequestReviewThreadReply');
    const comment = newComment(
      state,
      USER.login,
      typeof vars['body'] === 'string' ? vars['body'] : '',
    );
    thread.comments.push(comment);
    touch(state, thread.pull);
    return answer({
      addPullRequestReviewThreadReply: {
        comment: { id: comment.id, url: commentJson(state, thread, comment).url },
      },
    });
  }
  if (query.includes('resolveReviewThread')) {
    if (!thread) return noThread('resolveReviewThread');
    thread.isResolved = true;
    return answer({ resolveReviewThread: { thread: { id: thread.id, isResolved: true } } });
  }
  if (query.includes('reviewThreads')) {
    if (vars['owner'] !== owner || vars['name'] !== repo)
      return unresolved(
        'repository',
        `a Repository with the name '${String(vars['owner'])}/${String(vars['name'])}'`,
      );
    const pull = findPull(state, Number(vars['number']));
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
            nodes: page.map((t) => threadJson(state, t)),
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
}

/** What reviewers do to review threads "on GitHub". */
export function threadActions(
  state: GitHubState,
): Pick<
  FakeGitHub,
  'threads' | 'addReviewThread' | 'thread' | 'commentOnThread' | 'resolveThread'
> {
  const { threads } = state;
  const find = (id: string): FakeThread => {
    const thread = threads.find((t) => t.id === id);
    if (!thread) throw new Error(`fake GitHub: no review thread ${id}`);
    return thread;
  };
  return {
    threads,
    addReviewThread(pull, input) {
      getPull(state, pull);
      const thread: FakeThread = {
        id: `PRRT_kwDO${threads.length + 1}`,
        pull,
        path: input.path,
        line: input.line,
        startLine: input.startLine ?? null,
        isResolved: false,
        isOutdated: false,
        comments: [
          newComment(state, input.author, input.body),
          ...(input.replies ?? []).map((r) => newComment(state, r.author, r.body)),
        ],
      };
      threads.push(thread);
      touch(state, pull);
      return thread;
    },
    thread: find,
    commentOnThread(id, author, body) {
      const thread = find(id);
      thread.comments.push(newComment(state, author, body));
      touch(state, thread.pull);
    },
    resolveThread(id) {
      find(id).isResolved = true;
    },
  };
}
