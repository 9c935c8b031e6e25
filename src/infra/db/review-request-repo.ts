import type { Selectable } from 'kysely';
import type { ReviewRequest } from '../../domain/session.js';
import type { Executor } from './executor.js';
import type { SessionReviewRequestTable } from './schema.js';
import { isChecksState, isReviewRequestState } from './session-codec.js';

/** A session's pull request as stored, with what Grove itself last wrote to it. */
export interface ReviewRequestRecord extends ReviewRequest {
  readonly sessionId: string;
  readonly forge: string;
  /** The title Grove last wrote (so a title edited on the forge is not overwritten). */
  readonly writtenTitle: string | null;
  readonly writtenBody: string | null;
  readonly lastRefreshedAt: number | null;
}

/** Fields left out keep their stored value (or the column default on first insert). */
export interface ReviewRequestInput extends Omit<ReviewRequest, 'checksSummary' | 'checksState'> {
  /** Left out: the stored summary stays (the checks refresh writes it, checks-repo.ts). */
  readonly checksSummary?: string | null;
  readonly forge?: string;
  readonly writtenTitle?: string | null;
  readonly writtenBody?: string | null;
  readonly lastRefreshedAt?: number | null;
}

export interface ReviewRequestRepo {
  upsert(sessionId: string, data: ReviewRequestInput): Promise<void>;
  get(sessionId: string): Promise<ReviewRequestRecord | undefined>;
  delete(sessionId: string): Promise<void>;
}

function decode(row: Selectable<SessionReviewRequestTable>): ReviewRequestRecord | undefined {
  if (!isReviewRequestState(row.state)) return undefined;
  return {
    sessionId: row.session_id,
    forge: row.forge,
    number: row.number,
    url: row.url,
    state: row.state,
    isDraft: row.is_draft !== 0,
    reviewDecision: row.review_decision,
    checksSummary: row.checks_summary,
    checksState: isChecksState(row.checks_state) ? row.checks_state : null,
    headBranch: row.head_branch,
    baseBranch: row.base_branch,
    writtenTitle: row.written_title,
    writtenBody: row.written_body,
    lastRefreshedAt: row.last_refreshed_at,
  };
}

export function createReviewRequestRepo(db: Executor): ReviewRequestRepo {
  return {
    async upsert(sessionId, data) {
      const fields = {
        number: data.number,
        url: data.url,
        state: data.state,
        is_draft: data.isDraft ? 1 : 0,
        review_decision: data.reviewDecision,
        ...(data.checksSummary !== undefined ? { checks_summary: data.checksSummary } : {}),
        head_branch: data.headBranch,
        base_branch: data.baseBranch,
        ...(data.forge !== undefined ? { forge: data.forge } : {}),
        ...(data.writtenTitle !== undefined ? { written_title: data.writtenTitle } : {}),
        ...(data.writtenBody !== undefined ? { written_body: data.writtenBody } : {}),
        ...(data.lastRefreshedAt !== undefined ? { last_refreshed_at: data.lastRefreshedAt } : {}),
      };
      await db
        .insertInto('session_review_request')
        .values({ session_id: sessionId, ...fields })
        .onConflict((oc) => oc.column('session_id').doUpdateSet(fields))
        .execute();
    },

    async get(sessionId) {
      const row = await db
        .selectFrom('session_review_request')
        .selectAll()
        .where('session_id', '=', sessionId)
        .executeTakeFirst();
      return row ? decode(row) : undefined;
    },

    async delete(sessionId) {
      await db.deleteFrom('session_review_request').where('session_id', '=', sessionId).execute();
    },
  };
}
