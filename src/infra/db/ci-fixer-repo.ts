// The CI fixer's memory of a session's failure streak (migration 024), kept
// on its `session_review_request` row as JSON: when it started, the attempts,
// the failures tried and why it stopped. (Written in SQL: the column is this
// file's alone.)
import { sql } from 'kysely';
import * as z from 'zod/mini';
import { NO_CI_FIXER, type CiFixerState } from '../../domain/ci-fixer.js';
import type { Executor } from './executor.js';

export interface CiFixerRepo {
  /** The session's streak (nothing done: NO_CI_FIXER). */
  get(sessionId: string): Promise<CiFixerState>;
  save(sessionId: string, state: CiFixerState): Promise<void>;
}

const stateSchema = z.object({
  startedAt: z.nullable(z.number()),
  attempts: z.number(),
  tried: z.array(z.string()),
  stopped: z.nullable(z.object({ reason: z.string(), at: z.number() })),
});

function decode(text: string): CiFixerState {
  try {
    const parsed = stateSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : NO_CI_FIXER;
  } catch {
    return NO_CI_FIXER;
  }
}

export function createCiFixerRepo(db: Executor): CiFixerRepo {
  return {
    async get(sessionId) {
      const { rows } = await sql<{ ci_fixer_json: string }>`
        SELECT ci_fixer_json FROM session_review_request WHERE session_id = ${sessionId}
      `.execute(db);
      const row = rows[0];
      return row ? decode(row.ci_fixer_json) : NO_CI_FIXER;
    },
    async save(sessionId, state) {
      await sql`
        UPDATE session_review_request SET ci_fixer_json = ${JSON.stringify(state)}
        WHERE session_id = ${sessionId}
      `.execute(db);
    },
  };
}
