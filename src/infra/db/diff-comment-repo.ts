import { randomUUID } from 'node:crypto';
import { sql, type Selectable } from 'kysely';
import {
  isCommentSide,
  isCommentStatus,
  isSeverity,
  type CommentStatus,
  type DiffComment,
  type Severity,
} from '../../domain/diff-comment.js';
import type { CommentSide } from '../../domain/diff-rows.js';
import type { Executor } from './executor.js';
import type { DiffCommentTable } from './schema.js';

/** What a new comment needs; the repository adds its id, status and times. */
export interface NewDiffComment {
  readonly sessionId: string;
  readonly path: string;
  readonly side: CommentSide;
  readonly startLine: number | null;
  readonly endLine: number | null;
  readonly body: string;
  readonly excerpt?: string;
  readonly hunk?: string;
  readonly severity?: Severity | null;
  readonly origin?: 'person' | 'review';
}

export type DiffCommentPatch = Partial<
  Pick<DiffComment, 'body' | 'excerpt' | 'hunk' | 'severity' | 'status'>
>;

export interface DiffCommentRepo {
  insert(comment: NewDiffComment, now: number): Promise<DiffComment>;
  update(id: string, patch: DiffCommentPatch, now: number): Promise<DiffComment | undefined>;
  delete(id: string): Promise<void>;
  get(id: string): Promise<DiffComment | undefined>;
  /** The session's comments, oldest first. */
  listBySession(sessionId: string): Promise<DiffComment[]>;
  /** Moves the given comments to `status` (one statement). */
  setStatus(ids: readonly string[], status: CommentStatus, now: number): Promise<void>;
}

function decode(row: Selectable<DiffCommentTable>): DiffComment {
  const side = isCommentSide(row.side) ? row.side : 'file';
  return {
    id: row.id,
    sessionId: row.session_id,
    path: row.path,
    side,
    startLine: side === 'file' ? null : row.start_line,
    endLine: side === 'file' ? null : row.end_line,
    body: row.body,
    excerpt: row.excerpt,
    hunk: row.hunk,
    severity: row.severity !== null && isSeverity(row.severity) ? row.severity : null,
    origin: row.origin === 'review' ? 'review' : 'person',
    status: isCommentStatus(row.status) ? row.status : 'draft',
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function createDiffCommentRepo(db: Executor): DiffCommentRepo {
  const get = async (id: string): Promise<DiffComment | undefined> => {
    const row = await db
      .selectFrom('diff_comment')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? decode(row) : undefined;
  };
  return {
    async insert(comment, now) {
      const id = randomUUID();
      await db
        .insertInto('diff_comment')
        .values({
          id,
          session_id: comment.sessionId,
          path: comment.path,
          side: comment.side,
          start_line: comment.side === 'file' ? null : comment.startLine,
          end_line: comment.side === 'file' ? null : comment.endLine,
          body: comment.body,
          excerpt: comment.excerpt ?? '',
          hunk: comment.hunk ?? '',
          severity: comment.severity ?? null,
          origin: comment.origin ?? 'person',
          created_at: now,
          updated_at: now,
        })
        .execute();
      const stored = await get(id);
      if (!stored) throw new Error(`The comment ${id} was not stored.`);
      return stored;
    },

    async update(id, patch, now) {
      await db
        .updateTable('diff_comment')
        .set({
          ...(patch.body !== undefined ? { body: patch.body } : {}),
          ...(patch.excerpt !== undefined ? { excerpt: patch.excerpt } : {}),
          ...(patch.hunk !== undefined ? { hunk: patch.hunk } : {}),
          ...(patch.severity !== undefined ? { severity: patch.severity } : {}),
          ...(patch.status !== undefined ? { status: patch.status } : {}),
          updated_at: now,
        })
        .where('id', '=', id)
        .execute();
      return get(id);
    },

    async delete(id) {
      await db.deleteFrom('diff_comment').where('id', '=', id).execute();
    },

    get,

    async listBySession(sessionId) {
      const rows = await db
        .selectFrom('diff_comment')
        .selectAll()
        .where('session_id', '=', sessionId)
        .orderBy('created_at')
        .orderBy(sql`rowid`)
        .execute();
      return rows.map(decode);
    },

    async setStatus(ids, status, now) {
      if (ids.length === 0) return;
      await db
        .updateTable('diff_comment')
        .set({ status, updated_at: now })
        .where('id', 'in', [...ids])
        .execute();
    },
  };
}
