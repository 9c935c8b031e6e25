import type { ConfirmAction, Confirmation, ConfirmationStatus } from '../../domain/confirmation.js';
import type { Executor } from './executor.js';
import type { ConfirmationTable } from './schema.js';

/** Irreversible actions an MCP client asked for, held for the person (domain/confirmation.ts). */
export interface ConfirmationRepo {
  add(request: Omit<Confirmation, 'status' | 'outcome' | 'decidedAt'>): Promise<void>;
  get(id: string): Promise<Confirmation | undefined>;
  /** The requests still waiting at `now` (not expired), oldest first. */
  listWaiting(now: number): Promise<Confirmation[]>;
  /** Requests whose id starts with `prefix` (at most a few). */
  findByPrefix(prefix: string): Promise<Confirmation[]>;
  /**
   * Decides a waiting request; false (and nothing written) when it was no
   * longer waiting: someone else decided it first, or it timed out.
   */
  decide(
    id: string,
    status: Exclude<ConfirmationStatus, 'waiting'>,
    now: number,
    outcome?: string,
  ): Promise<boolean>;
  /** Writes what came of a decided request. */
  setOutcome(id: string, outcome: string): Promise<void>;
}

type Row = Omit<ConfirmationTable, 'status'> & { status: string };

function decode(row: Row): Confirmation {
  return {
    id: row.id,
    sessionId: row.session_id,
    action: row.action as ConfirmAction,
    detail: row.detail,
    client: row.client,
    owner: row.owner,
    status: row.status as ConfirmationStatus,
    outcome: row.outcome,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    decidedAt: row.decided_at,
  };
}

export function createConfirmationRepo(db: Executor): ConfirmationRepo {
  return {
    async add(request) {
      await db
        .insertInto('confirmation')
        .values({
          id: request.id,
          session_id: request.sessionId,
          action: request.action,
          detail: request.detail,
          client: request.client,
          owner: request.owner,
          outcome: null,
          created_at: request.createdAt,
          expires_at: request.expiresAt,
          decided_at: null,
        })
        .execute();
    },

    async get(id) {
      const row = await db
        .selectFrom('confirmation')
        .selectAll()
        .where('id', '=', id)
        .executeTakeFirst();
      return row ? decode(row) : undefined;
    },

    async listWaiting(now) {
      const rows = await db
        .selectFrom('confirmation')
        .selectAll()
        .where('status', '=', 'waiting')
        .where('expires_at', '>', now)
        .orderBy('created_at')
        .execute();
      return rows.map(decode);
    },

    async findByPrefix(prefix) {
      const rows = await db
        .selectFrom('confirmation')
        .selectAll()
        .where('id', 'like', `${prefix.replace(/[%_\\]/g, '')}%`)
        .limit(5)
        .execute();
      return rows.map(decode);
    },

    async decide(id, status, now, outcome) {
      const result = await db
        .updateTable('confirmation')
        .set({ status, decided_at: now, ...(outcome === undefined ? {} : { outcome }) })
        .where('id', '=', id)
        .where('status', '=', 'waiting')
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    async setOutcome(id, outcome) {
      await db.updateTable('confirmation').set({ outcome }).where('id', '=', id).execute();
    },
  };
}
