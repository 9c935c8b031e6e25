// The checks of a published session's pull request (migration 022), kept on
// its `session_review_request` row: the head commit, GitHub's ETags, the
// checks with a failing job's log tail, the badge and the last error. Text in
// here came from GitHub and CI and was sanitized on its way in.
import * as z from 'zod/mini';
import {
  checksSummary,
  type CheckInfo,
  type CheckState,
  type PullRequestChecks,
} from '../../domain/checks.js';
import type { Executor } from './executor.js';

export interface ChecksRepo {
  /** The checks last stored for the session, or undefined (not published, never read). */
  get(sessionId: string): Promise<PullRequestChecks | undefined>;
  /** Stores the checks (and the summary and badge they make) on the session's pull request row. */
  save(sessionId: string, checks: PullRequestChecks): Promise<void>;
}

const STATES = ['pending', 'failing', 'passing'] as const;

const checkSchema = z.object({
  kind: z.enum(['check_run', 'status']),
  name: z.string(),
  state: z.enum(STATES),
  conclusion: z.nullable(z.string()),
  url: z.nullable(z.string()),
  jobId: z.nullable(z.number()),
  logTail: z.nullable(z.string()),
  logError: z.nullable(z.string()),
});

function decodeChecks(text: string): CheckInfo[] {
  try {
    const parsed = z.array(checkSchema).safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : [];
  } catch {
    return [];
  }
}

const isState = (value: string | null): value is CheckState =>
  value !== null && (STATES as readonly string[]).includes(value);

export function createChecksRepo(db: Executor): ChecksRepo {
  return {
    async get(sessionId) {
      const row = await db
        .selectFrom('session_review_request')
        .select([
          'checks_head_sha',
          'checks_runs_etag',
          'checks_statuses_etag',
          'checks_json',
          'checks_state',
          'checks_error',
          'checks_fetched_at',
        ])
        .where('session_id', '=', sessionId)
        .executeTakeFirst();
      if (!row || row.checks_head_sha === null) return undefined;
      return {
        headSha: row.checks_head_sha,
        runsEtag: row.checks_runs_etag,
        statusesEtag: row.checks_statuses_etag,
        checks: decodeChecks(row.checks_json),
        state: isState(row.checks_state) ? row.checks_state : null,
        error: row.checks_error,
        fetchedAt: row.checks_fetched_at ?? 0,
      };
    },

    async save(sessionId, checks) {
      await db
        .updateTable('session_review_request')
        .set({
          checks_head_sha: checks.headSha,
          checks_runs_etag: checks.runsEtag,
          checks_statuses_etag: checks.statusesEtag,
          checks_json: JSON.stringify(checks.checks),
          checks_state: checks.state,
          checks_error: checks.error,
          checks_fetched_at: checks.fetchedAt,
          checks_summary: checksSummary(checks.checks),
        })
        .where('session_id', '=', sessionId)
        .execute();
    },
  };
}
