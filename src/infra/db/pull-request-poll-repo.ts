// What the pull request poller keeps of a published session's pull request
// between looks (migration 025): the last answer, GitHub's ETags of the pull
// request and of its reviews, and the ETags its review threads were last read
// at, as JSON on its `session_review_request` row. (Written in SQL: the
// column is this file's alone.)
import { sql } from 'kysely';
import * as z from 'zod/mini';
import type { PullRequestPoll } from '../../domain/review-request.js';
import type { Executor } from './executor.js';

export interface PullRequestPollRepo {
  /** What the last look kept (null: none yet, or unreadable: the next look asks afresh). */
  get(sessionId: string): Promise<PullRequestPoll | null>;
  save(sessionId: string, poll: PullRequestPoll): Promise<void>;
}

const infoSchema = z.object({
  number: z.number(),
  url: z.string(),
  state: z.enum(['open', 'merged', 'closed']),
  isDraft: z.boolean(),
  title: z.string(),
  body: z.string(),
  headBranch: z.string(),
  baseBranch: z.string(),
  reviewDecision: z.nullable(z.enum(['approved', 'changes_requested', 'review_required'])),
  headSha: z.string(),
  mergedAt: z.nullable(z.string()),
  conflicted: z.optional(z.boolean()),
});

const pollSchema = z.object({
  info: infoSchema,
  pullEtag: z.nullable(z.string()),
  reviewsEtag: z.nullable(z.string()),
  threadsReadAt: z.nullable(z.object({ key: z.string(), at: z.number() })),
});

function decode(text: string | null): PullRequestPoll | null {
  if (text === null) return null;
  try {
    const parsed = pollSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

export function createPullRequestPollRepo(db: Executor): PullRequestPollRepo {
  return {
    async get(sessionId) {
      const { rows } = await sql<{ pr_poll_json: string | null }>`
        SELECT pr_poll_json FROM session_review_request WHERE session_id = ${sessionId}
      `.execute(db);
      return decode(rows[0]?.pr_poll_json ?? null);
    },
    async save(sessionId, poll) {
      await sql`
        UPDATE session_review_request SET pr_poll_json = ${JSON.stringify(poll)}
        WHERE session_id = ${sessionId}
      `.execute(db);
    },
  };
}
