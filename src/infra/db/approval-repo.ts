import type { ApprovalChoice, ApprovalStatus, HeldApproval } from '../../domain/approval.js';
import type { Executor } from './executor.js';
import type { ApprovalTable } from './schema.js';

/** Held agent requests (domain/approval.ts): what waits on the person, and the session grants. */
export interface ApprovalRepo {
  add(held: Omit<HeldApproval, 'status' | 'decidedAt'>): Promise<void>;
  get(id: string): Promise<HeldApproval | undefined>;
  /** The requests still waiting at `now` (not expired), oldest first. */
  listWaiting(now: number): Promise<HeldApproval[]>;
  /** Requests whose id starts with `prefix` (at most a few). */
  findByPrefix(prefix: string): Promise<HeldApproval[]>;
  /**
   * Decides a waiting request; false (and nothing written) when it was no
   * longer waiting: someone else decided it first, or it timed out.
   */
  decide(id: string, status: ApprovalChoice | 'timedOut', now: number): Promise<boolean>;
  /** Whether the session holds a grant (a request approved for the session, or added to the allow list) of this scope. */
  hasGrant(sessionId: string, scope: string): Promise<boolean>;
}

type Row = Omit<ApprovalTable, 'status'> & { status: string };

function decode(row: Row): HeldApproval {
  return {
    id: row.id,
    sessionId: row.session_id,
    agent: row.agent,
    kind: row.kind === 'edit' || row.kind === 'network' ? row.kind : 'command',
    subject: row.subject,
    cwd: row.cwd,
    reason: row.reason,
    scope: row.scope,
    status: row.status as ApprovalStatus,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    decidedAt: row.decided_at,
  };
}

export function createApprovalRepo(db: Executor): ApprovalRepo {
  return {
    async add(held) {
      await db
        .insertInto('approval')
        .values({
          id: held.id,
          session_id: held.sessionId,
          agent: held.agent,
          kind: held.kind,
          subject: held.subject,
          cwd: held.cwd,
          reason: held.reason,
          scope: held.scope,
          created_at: held.createdAt,
          expires_at: held.expiresAt,
          decided_at: null,
        })
        .execute();
    },

    async get(id) {
      const row = await db
        .selectFrom('approval')
        .selectAll()
        .where('id', '=', id)
        .executeTakeFirst();
      return row ? decode(row) : undefined;
    },

    async listWaiting(now) {
      const rows = await db
        .selectFrom('approval')
        .selectAll()
        .where('status', '=', 'waiting')
        .where('expires_at', '>', now)
        .orderBy('created_at')
        .execute();
      return rows.map(decode);
    },

    async findByPrefix(prefix) {
      const rows = await db
        .selectFrom('approval')
        .selectAll()
        .where('id', 'like', `${prefix.replace(/[%_\\]/g, '')}%`)
        .limit(5)
        .execute();
      return rows.map(decode);
    },

    async decide(id, status, now) {
      const result = await db
        .updateTable('approval')
        .set({ status, decided_at: now })
        .where('id', '=', id)
        .where('status', '=', 'waiting')
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    async hasGrant(sessionId, scope) {
      const row = await db
        .selectFrom('approval')
        .select('id')
        .where('session_id', '=', sessionId)
        .where('scope', '=', scope)
        .where('status', 'in', ['session', 'allowList'])
        .executeTakeFirst();
      return row !== undefined;
    },
  };
}
