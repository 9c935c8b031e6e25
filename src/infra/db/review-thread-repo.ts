// Pull-request review threads per session (migration 005): the unresolved
// threads the poller last fetched, with Grove's progress on each. Text in
// here came from GitHub and was sanitized by the forge adapter.
import type { Selectable } from 'kysely';
import * as z from 'zod/mini';
import {
  isReviewThreadState,
  type ReviewThread,
  type ReviewThreadComment,
  type ReviewThreadInfo,
} from '../../domain/review-thread.js';
import type { Executor } from './executor.js';
import type { ReviewThreadTable } from './schema.js';

export interface ReviewThreadRepo {
  /** The session's threads, in GitHub's order. */
  list(sessionId: string): Promise<ReviewThread[]>;
  /**
   * Stores what GitHub now reports as unresolved: new threads are `open`,
   * known ones keep Grove's progress (an answered one whose reviewer wrote
   * again is `open` again), and threads no longer listed are removed.
   */
  replaceFetched(
    sessionId: string,
    pullNumber: number,
    threads: readonly ReviewThreadInfo[],
    now: number,
  ): Promise<ReviewThread[]>;
  /** The threads were sent to the agent with operation `operationId`. */
  markSent(sessionId: string, threadIds: readonly string[], operationId: string): Promise<void>;
  /** Grove replied on the thread naming `commit`; its reply is comment `replyCommentId`. */
  markAnswered(
    sessionId: string,
    threadId: string,
    commit: string | null,
    replyCommentId: string | null,
  ): Promise<void>;
  /** Back to `open` (the turn failed, or was not answered). */
  reopen(sessionId: string, threadIds: readonly string[]): Promise<void>;
  /** Resolved (on GitHub, by Grove): gone from the list. */
  remove(sessionId: string, threadIds: readonly string[]): Promise<void>;
  /** Threads sent with an operation. */
  listByOperation(operationId: string): Promise<ReviewThread[]>;
}

const commentsSchema = z.array(
  z.object({
    id: z.string(),
    author: z.string(),
    body: z.string(),
    createdAt: z.string(),
    url: z.string(),
  }),
);

function decodeComments(text: string): ReviewThreadComment[] {
  try {
    const parsed = commentsSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : [];
  } catch {
    return [];
  }
}

function decode(row: Selectable<ReviewThreadTable>): ReviewThread {
  return {
    sessionId: row.session_id,
    id: row.thread_id,
    pullNumber: row.pull_number,
    path: row.path,
    line: row.line,
    startLine: row.start_line,
    isOutdated: row.is_outdated !== 0,
    comments: decodeComments(row.comments),
    state: isReviewThreadState(row.state) ? row.state : 'open',
    operationId: row.operation_id,
    repliedCommit: row.replied_commit,
    replyCommentId: row.reply_comment_id,
  };
}

/** An answered thread whose last comment is not Grove's reply: the reviewer answered back. */
function answeredBack(known: ReviewThread, fetched: ReviewThreadInfo): boolean {
  if (known.state !== 'answered' || known.replyCommentId === null) return false;
  const mine = fetched.comments.findIndex((c) => c.id === known.replyCommentId);
  return mine !== -1 && mine < fetched.comments.length - 1;
}

export function createReviewThreadRepo(db: Executor): ReviewThreadRepo {
  const list = async (sessionId: string): Promise<ReviewThread[]> => {
    const rows = await db
      .selectFrom('review_thread')
      .selectAll()
      .where('session_id', '=', sessionId)
      .orderBy('position')
      .orderBy('thread_id')
      .execute();
    return rows.map(decode);
  };
  return {
    list,

    async replaceFetched(sessionId, pullNumber, threads, now) {
      const known = new Map((await list(sessionId)).map((t) => [t.id, t]));
      const ids = threads.map((t) => t.id);
      let gone = db.deleteFrom('review_thread').where('session_id', '=', sessionId);
      if (ids.length > 0) gone = gone.where('thread_id', 'not in', ids);
      await gone.execute();
      for (const [position, thread] of threads.entries()) {
        const before = known.get(thread.id);
        const fields = {
          pull_number: pullNumber,
          position,
          path: thread.path,
          line: thread.line,
          start_line: thread.startLine,
          is_outdated: thread.isOutdated ? 1 : 0,
          comments: JSON.stringify(thread.comments),
          fetched_at: now,
          // A thread of another pull request (the session was published again) starts over.
          ...(before && (before.pullNumber !== pullNumber || answeredBack(before, thread))
            ? { state: 'open', operation_id: null, replied_commit: null, reply_comment_id: null }
            : {}),
        };
        await db
          .insertInto('review_thread')
          .values({
            session_id: sessionId,
            thread_id: thread.id,
            operation_id: null,
            replied_commit: null,
            reply_comment_id: null,
            ...fields,
          })
          .onConflict((oc) => oc.columns(['session_id', 'thread_id']).doUpdateSet(fields))
          .execute();
      }
      return list(sessionId);
    },

    async markSent(sessionId, threadIds, operationId) {
      if (threadIds.length === 0) return;
      await db
        .updateTable('review_thread')
        .set({ state: 'sent', operation_id: operationId })
        .where('session_id', '=', sessionId)
        .where('thread_id', 'in', [...threadIds])
        .execute();
    },

    async markAnswered(sessionId, threadId, commit, replyCommentId) {
      await db
        .updateTable('review_thread')
        .set({ state: 'answered', replied_commit: commit, reply_comment_id: replyCommentId })
        .where('session_id', '=', sessionId)
        .where('thread_id', '=', threadId)
        .execute();
    },

    async reopen(sessionId, threadIds) {
      if (threadIds.length === 0) return;
      await db
        .updateTable('review_thread')
        .set({ state: 'open', operation_id: null })
        .where('session_id', '=', sessionId)
        .where('thread_id', 'in', [...threadIds])
        .execute();
    },

    async remove(sessionId, threadIds) {
      if (threadIds.length === 0) return;
      await db
        .deleteFrom('review_thread')
        .where('session_id', '=', sessionId)
        .where('thread_id', 'in', [...threadIds])
        .execute();
    },

    async listByOperation(operationId) {
      const rows = await db
        .selectFrom('review_thread')
        .selectAll()
        .where('operation_id', '=', operationId)
        .orderBy('position')
        .execute();
      return rows.map(decode);
    },
  };
}
