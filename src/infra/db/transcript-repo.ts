import { sql } from 'kysely';
import type { TranscriptEntry, TranscriptKind } from '../../domain/transcript.js';
import type { Executor } from './executor.js';

export interface TranscriptRepo {
  /** Appends an entry at the session's next position (0, 1, 2, …) and returns that position. */
  append(sessionId: string, kind: TranscriptKind, content: string, now: number): Promise<number>;
  /** The session's entries in order. */
  list(sessionId: string): Promise<TranscriptEntry[]>;
  count(sessionId: string): Promise<number>;
}

const KINDS: readonly TranscriptKind[] = [
  'user_prompt',
  'assistant_answer',
  'notice',
  'output',
  'tool',
];

function decodeKind(value: string): TranscriptKind {
  const kind = KINDS.find((k) => k === value);
  if (!kind) throw new Error(`Unknown transcript entry kind ${value}.`);
  return kind;
}

export function createTranscriptRepo(db: Executor): TranscriptRepo {
  return {
    async append(sessionId, kind, content, now) {
      // One INSERT … SELECT: the next position is computed and taken atomically.
      const row = await db
        .insertInto('session_message')
        .columns(['session_id', 'position', 'kind', 'content', 'created_at'])
        .expression((eb) =>
          eb
            .selectFrom('session_message')
            .select([
              eb.val(sessionId).as('session_id'),
              sql<number>`coalesce(max(position), -1) + 1`.as('position'),
              eb.val(kind).as('kind'),
              eb.val(content).as('content'),
              eb.val(now).as('created_at'),
            ])
            .where('session_id', '=', sessionId),
        )
        .returning('position')
        .executeTakeFirstOrThrow();
      return row.position;
    },

    async list(sessionId) {
      const rows = await db
        .selectFrom('session_message')
        .select(['position', 'kind', 'content', 'created_at'])
        .where('session_id', '=', sessionId)
        .orderBy('position')
        .execute();
      return rows.map((row) => ({
        position: row.position,
        kind: decodeKind(row.kind),
        content: row.content,
        createdAt: row.created_at,
      }));
    },

    async count(sessionId) {
      const row = await db
        .selectFrom('session_message')
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .where('session_id', '=', sessionId)
        .executeTakeFirstOrThrow();
      return Number(row.count);
    },
  };
}
