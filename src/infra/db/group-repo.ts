import type { Selectable } from 'kysely';
import {
  isGroupStatus,
  type CheckResult,
  type GroupStatus,
  type RankEntry,
  type SessionGroup,
} from '../../domain/best-of.js';
import { withTransaction, type Executor } from './executor.js';
import type { SessionGroupMemberTable, SessionGroupTable } from './schema.js';

/** Best-of-N groups: their sessions, each variant's check result and the judge's ranking. */
export interface GroupRepo {
  create(
    group: { id: string; projectId: number; prompt: string; sessionIds: readonly string[] },
    now: number,
  ): Promise<void>;
  get(id: string): Promise<SessionGroup | undefined>;
  /** The group a session belongs to. */
  ofSession(sessionId: string): Promise<SessionGroup | undefined>;
  listByProject(projectId: number): Promise<SessionGroup[]>;
  setStatus(id: string, status: GroupStatus, note?: string | null): Promise<void>;
  setCheck(sessionId: string, check: CheckResult): Promise<void>;
  setRanking(id: string, ranking: readonly RankEntry[], note: string | null): Promise<void>;
  choose(id: string, sessionId: string): Promise<void>;
  /** The process (host:pid) that last took the group's checks and judge, or null. */
  evaluatorOf(id: string): Promise<string | null>;
  /**
   * Takes the group's checks and judge for `owner` when it is not chosen,
   * ranked or failed and its evaluator is still `previous` (null: none):
   * false when another process took it first.
   */
  claimEvaluation(id: string, owner: string, previous: string | null): Promise<boolean>;
}

function decodeRanking(text: string | null): RankEntry[] {
  if (!text) return [];
  try {
    const value = JSON.parse(text) as unknown;
    if (!Array.isArray(value)) return [];
    return value.flatMap((v: unknown) => {
      const e = v as Partial<RankEntry> | null;
      return e && typeof e.sessionId === 'string' && typeof e.rank === 'number'
        ? [
            {
              sessionId: e.sessionId,
              rank: e.rank,
              reason: typeof e.reason === 'string' ? e.reason : '',
            },
          ]
        : [];
    });
  } catch {
    return [];
  }
}

function decode(
  row: Selectable<SessionGroupTable>,
  members: readonly Selectable<SessionGroupMemberTable>[],
): SessionGroup {
  return {
    id: row.id,
    projectId: row.project_id,
    prompt: row.prompt,
    status: isGroupStatus(row.status) ? row.status : 'failed',
    members: members.map((m) => ({
      sessionId: m.session_id,
      position: m.position,
      check:
        m.check_exit === null
          ? null
          : {
              exitCode: m.check_exit,
              timedOut: m.check_timed_out === 1,
              output: m.check_output ?? '',
            },
    })),
    ranking: decodeRanking(row.ranking),
    note: row.note,
    chosenSessionId: row.chosen_session_id,
    createdAt: row.created_at,
  };
}

export function createGroupRepo(db: Executor): GroupRepo {
  const load = async (rows: Selectable<SessionGroupTable>[]): Promise<SessionGroup[]> => {
    if (rows.length === 0) return [];
    const members = await db
      .selectFrom('session_group_member')
      .selectAll()
      .where(
        'group_id',
        'in',
        rows.map((r) => r.id),
      )
      .orderBy('position')
      .execute();
    return rows.map((row) =>
      decode(
        row,
        members.filter((m) => m.group_id === row.id),
      ),
    );
  };
  return {
    async create({ id, projectId, prompt, sessionIds }, now) {
      // One transaction: another process never reads a group without its variants.
      await withTransaction(db, async (trx) => {
        await trx
          .insertInto('session_group')
          .values({
            id,
            project_id: projectId,
            prompt,
            status: 'running',
            ranking: null,
            note: null,
            chosen_session_id: null,
            created_at: now,
            evaluator: null,
          })
          .execute();
        if (sessionIds.length > 0) {
          await trx
            .insertInto('session_group_member')
            .values(
              sessionIds.map((sessionId, i) => ({
                session_id: sessionId,
                group_id: id,
                position: i + 1,
                check_exit: null,
                check_timed_out: null,
                check_output: null,
              })),
            )
            .execute();
        }
      });
    },
    async get(id) {
      const rows = await db.selectFrom('session_group').selectAll().where('id', '=', id).execute();
      return (await load(rows))[0];
    },
    async ofSession(sessionId) {
      const member = await db
        .selectFrom('session_group_member')
        .select('group_id')
        .where('session_id', '=', sessionId)
        .executeTakeFirst();
      return member ? this.get(member.group_id) : undefined;
    },
    async listByProject(projectId) {
      return load(
        await db
          .selectFrom('session_group')
          .selectAll()
          .where('project_id', '=', projectId)
          .orderBy('created_at')
          .execute(),
      );
    },
    async setStatus(id, status, note) {
      await db
        .updateTable('session_group')
        .set(note === undefined ? { status } : { status, note })
        .where('id', '=', id)
        .execute();
    },
    async setCheck(sessionId, check) {
      await db
        .updateTable('session_group_member')
        .set({
          check_exit: check.exitCode,
          check_timed_out: check.timedOut ? 1 : 0,
          check_output: check.output,
        })
        .where('session_id', '=', sessionId)
        .execute();
    },
    async setRanking(id, ranking, note) {
      await db
        .updateTable('session_group')
        .set({ status: 'ranked', ranking: JSON.stringify(ranking), note })
        .where('id', '=', id)
        .execute();
    },
    async evaluatorOf(id) {
      const row = await db
        .selectFrom('session_group')
        .select('evaluator')
        .where('id', '=', id)
        .executeTakeFirst();
      return row?.evaluator ?? null;
    },
    async claimEvaluation(id, owner, previous) {
      const result = await db
        .updateTable('session_group')
        .set({ evaluator: owner })
        .where('id', '=', id)
        .where('status', 'in', ['running', 'checking', 'judging'])
        .where('evaluator', previous === null ? 'is' : '=', previous)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
    async choose(id, sessionId) {
      await db
        .updateTable('session_group')
        .set({ status: 'chosen', chosen_session_id: sessionId })
        .where('id', '=', id)
        .execute();
    },
  };
}
