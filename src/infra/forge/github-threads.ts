import type { Octokit } from '@octokit/rest';
import * as z from 'zod/mini';
import type { ReviewThreadInfo } from '../../domain/review-thread.js';
import { sanitizeLine, sanitizeText } from '../../domain/sanitize.js';
import { ForgeError, toGraphqlForgeError } from './errors.js';
import type { GitHubRepo } from './remote.js';

/** Pull-request review threads over GitHub's GraphQL API (REST has no threads or resolving). */
export interface ReviewThreadClient {
  /** The pull request's unresolved review threads, with every comment. */
  listReviewThreads(number: number, signal: AbortSignal): Promise<ReviewThreadInfo[]>;
  /** Posts a reply on a thread; resolves with the new comment's id. */
  replyToReviewThread(
    threadId: string,
    body: string,
    signal: AbortSignal,
  ): Promise<{ id: string; url: string }>;
  resolveReviewThread(threadId: string, signal: AbortSignal): Promise<void>;
}

const PAGE = 50;
const MAX_PAGES = 20;

const THREADS_QUERY = `query GroveReviewThreads($owner: String!, $name: String!, $number: Int!, $cursor: String) {
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) {
      reviewThreads(first: ${PAGE}, after: $cursor) {
        pageInfo { hasNextPage endCursor }
        nodes {
          id
          isResolved
          isOutdated
          path
          line
          startLine
          originalLine
          originalStartLine
          comments(first: 100) {
            nodes { id body createdAt url author { login } }
          }
        }
      }
    }
  }
}`;

const REPLY_MUTATION = `mutation GroveThreadReply($thread: ID!, $body: String!) {
  addPullRequestReviewThreadReply(input: { pullRequestReviewThreadId: $thread, body: $body }) {
    comment { id url }
  }
}`;

const RESOLVE_MUTATION = `mutation GroveResolveThread($thread: ID!) {
  resolveReviewThread(input: { threadId: $thread }) {
    thread { id isResolved }
  }
}`;

const nullableInt = z.nullish(z.number());
const ThreadsSchema = z.object({
  repository: z.nullable(
    z.object({
      pullRequest: z.nullable(
        z.object({
          reviewThreads: z.object({
            pageInfo: z.object({ hasNextPage: z.boolean(), endCursor: z.nullish(z.string()) }),
            nodes: z.array(
              z.object({
                id: z.string(),
                isResolved: z.boolean(),
                isOutdated: z.optional(z.boolean()),
                path: z.string(),
                line: nullableInt,
                startLine: nullableInt,
                originalLine: nullableInt,
                originalStartLine: nullableInt,
                comments: z.object({
                  nodes: z.array(
                    z.object({
                      id: z.string(),
                      body: z.nullish(z.string()),
                      createdAt: z.nullish(z.string()),
                      url: z.nullish(z.string()),
                      // A deleted account has no author.
                      author: z.nullish(z.object({ login: z.string() })),
                    }),
                  ),
                }),
              }),
            ),
          }),
        }),
      ),
    }),
  ),
});

const ReplySchema = z.object({
  addPullRequestReviewThreadReply: z.object({
    comment: z.object({ id: z.string(), url: z.nullish(z.string()) }),
  }),
});

function unexpected(what: string): ForgeError {
  return new ForgeError('server', `GitHub answered the ${what} request in an unexpected shape.`);
}

export function createReviewThreadClient(
  octokit: Octokit,
  repo: GitHubRepo,
  onError: (error: ForgeError) => void,
): ReviewThreadClient {
  const label = `${repo.owner}/${repo.repo}`;
  const run = async (
    query: string,
    variables: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<unknown> => {
    try {
      // `url` is absolute: github.com's /graphql, or Enterprise's /api/graphql (beside /api/v3).
      // (Only the one-object form takes `url`; with a query string it would be a variable.)
      return await octokit.graphql({
        query,
        ...variables,
        url: repo.graphqlUrl,
        request: { signal: AbortSignal.any([signal, AbortSignal.timeout(20_000)]) },
      });
    } catch (error) {
      const forge = toGraphqlForgeError(error, label, repo.graphqlUrl);
      onError(forge);
      throw forge;
    }
  };
  return {
    async listReviewThreads(number, signal) {
      const threads: ReviewThreadInfo[] = [];
      let cursor: string | null = null;
      for (let page = 0; page < MAX_PAGES; page++) {
        const parsed = ThreadsSchema.safeParse(
          await run(THREADS_QUERY, { owner: repo.owner, name: repo.repo, number, cursor }, signal),
        );
        if (!parsed.success) throw unexpected('review threads');
        const pull = parsed.data.repository?.pullRequest;
        if (!pull)
          throw new ForgeError(
            'not_found',
            `Pull request #${number} not found on ${label}, or the token cannot see it.`,
          );
        for (const node of pull.reviewThreads.nodes) {
          if (node.isResolved) continue;
          const line = node.line ?? node.originalLine ?? null;
          // Text from GitHub is untrusted: anyone who can comment writes it.
          threads.push({
            id: node.id,
            path: sanitizeLine(node.path),
            line,
            startLine: node.startLine ?? node.originalStartLine ?? null,
            isOutdated: node.isOutdated === true,
            comments: node.comments.nodes.map((c) => ({
              id: c.id,
              author: sanitizeLine(c.author?.login ?? 'ghost'),
              body: sanitizeText(c.body ?? ''),
              createdAt: c.createdAt ?? '',
              url: sanitizeLine(c.url ?? ''),
            })),
          });
        }
        const info = pull.reviewThreads.pageInfo;
        if (!info.hasNextPage || !info.endCursor) break;
        cursor = info.endCursor;
      }
      return threads;
    },

    async replyToReviewThread(threadId, body, signal) {
      const parsed = ReplySchema.safeParse(
        await run(REPLY_MUTATION, { thread: threadId, body }, signal),
      );
      if (!parsed.success) throw unexpected('reply');
      const comment = parsed.data.addPullRequestReviewThreadReply.comment;
      return { id: comment.id, url: sanitizeLine(comment.url ?? '') };
    },

    async resolveReviewThread(threadId, signal) {
      await run(RESOLVE_MUTATION, { thread: threadId }, signal);
    },
  };
}
