// The durable operation journal: every piece of work handed to a session's
// worker is a row first, so a crash never strands it silently.
import { randomUUID } from 'node:crypto';
import { sql, type Selectable } from 'kysely';
import * as z from 'zod/mini';
import {
  INTERRUPTED_BY_RESTART,
  OPERATION_KINDS,
  isOperationKind,
  isOperationStatus,
  type FinishedOperationStatus,
  type Operation,
  type OperationKind,
} from '../../domain/operation.js';
import type { SessionStatus } from '../../domain/session-status.js';
import { withTransaction, type Executor } from './executor.js';
import type { SessionOperationTable } from './schema.js';
import { createSessionRepo } from './session-repo.js';

export interface OperationRepo {
  /**
   * Records a queued operation; returns its id. `owner` is the process that
   * queued it: while that process lives, start-up recovery in another
   * process leaves the queued operation alone.
   */
  enqueue(
    sessionId: string,
    kind: OperationKind,
    payload: Readonly<Record<string, unknown>>,
    now: number,
    owner?: string,
  ): Promise<string>;
  /**
   * Atomically takes the session's oldest queued operation and marks it
   * running for `owner` — unless another owner runs an operation of the same
   * session with a heartbeat younger than LEASE_MS.
   */
  claimNext(sessionId: string, owner: string, now: number): Promise<Operation | undefined>;
  /** Renews `owner`'s lease on a running operation; false when it no longer holds it. */
  heartbeat(id: string, owner: string, now: number): Promise<boolean>;
  /** Records the latest progress line of a running operation. */
  setProgress(id: string, text: string | null): Promise<void>;
  /** Progress of the operations of a project's sessions that other processes are running now. */
  progressElsewhere(
    projectId: number,
    owner: string,
  ): Promise<{ sessionId: string; progress: string }[]>;
  /**
   * Agent turns (start_prompt, reply) other processes run now, every project:
   * those whose lease is live (a crashed process's turns stop counting when
   * their heartbeat goes stale). The admission check counts them, by where
   * their session runs: the host's name, '' for this machine.
   */
  runningTurnsElsewhere(owner: string, now: number): Promise<Record<string, number>>;
  /**
   * Puts a running turn back in the queue, not to be taken before `notBefore`
   * (its agent reported a usage limit that lifts then). False when `owner`
   * no longer runs it.
   */
  defer(id: string, owner: string, notBefore: number, agent: string): Promise<boolean>;
  /** Ends a queued or running operation (a finished one is left as it is). */
  finish(
    id: string,
    status: FinishedOperationStatus,
    error: string | null,
    now: number,
  ): Promise<void>;
  /** One operation, finished or not (undefined when there is no such row). */
  get(id: string): Promise<Operation | undefined>;
  requestCancel(id: string): Promise<void>;
  isCancelRequested(id: string): Promise<boolean>;
  /** Cancels the session's newest queued operation (of `kinds`, when given) and returns it. */
  retractNewestQueued(
    sessionId: string,
    now: number,
    kinds?: readonly OperationKind[],
  ): Promise<Operation | undefined>;
  /** Queued and running operations, oldest first. */
  listUnfinished(sessionId?: string): Promise<Operation[]>;
  /**
   * Each of `sessionIds`' newest finished operation of `kinds` (what the
   * session last did). Only those sessions' rows are read (by index), so
   * the cost follows the live sessions, not the archive's history.
   */
  newestFinished(
    kinds: readonly OperationKind[],
    sessionIds: readonly string[],
  ): Promise<Operation[]>;
  /**
   * After a restart, or when a lease went stale while Grove runs: fails the
   * unfinished operations whose owner is not alive ("interrupted by
   * restart") and moves their sessions from a working status back to
   * Review, in one transaction. The active-work timer stops at the dead
   * owner's last heartbeat, so the time nobody worked is not counted.
   * Queued prompts (start_prompt, reply) are kept queued: the next worker
   * that takes the session runs them. Returns the ids of the sessions whose
   * operations were failed.
   */
  failInterrupted(now: number, isOwnerAlive: OwnerLiveness): Promise<string[]>;
  /** Records the run a turn started on a host (its stdout read from byte 0). */
  setRemoteRun(id: string, runId: string, pgid: number): Promise<void>;
  /** Records that the transcript took in the run's stdout up to `offset` (never moves back). */
  setRemoteOffset(id: string, offset: number): Promise<void>;
}

/**
 * Whether the process that owns an operation still lives. `heartbeatAt` is
 * the operation's last heartbeat (null while queued), for owners whose
 * process cannot be looked up (another machine).
 */
export type OwnerLiveness = (owner: string | null, heartbeatAt: number | null) => boolean;

/** Queued operations of these kinds outlive the process that queued them. */
const KEPT_WHEN_QUEUED: ReadonlySet<string> = new Set<OperationKind>(['start_prompt', 'reply']);

/** Working statuses a session leaves for Review when its operation was interrupted. */
const RESET_TO_REVIEW: ReadonlySet<SessionStatus> = new Set<SessionStatus>([
  'InProgress',
  'AgentReview',
  'Rebasing',
  'Merging',
  'Queued',
]);

const payloadSchema = z.record(z.string(), z.unknown());

function decodePayload(text: string): Readonly<Record<string, unknown>> {
  try {
    const parsed = payloadSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : {};
  } catch {
    return {};
  }
}

/** Rows of kinds this build does not know (written by a newer Grove) are skipped. */
function decodeOperation(row: Selectable<SessionOperationTable>): Operation | undefined {
  if (!isOperationKind(row.kind) || !isOperationStatus(row.status)) return undefined;
  return {
    id: row.id,
    sessionId: row.session_id,
    kind: row.kind,
    status: row.status,
    payload: decodePayload(row.payload),
    cancelRequested: row.cancel_requested !== 0,
    owner: row.owner,
    queuedAt: row.queued_at,
    startedAt: row.started_at,
    heartbeatAt: row.heartbeat_at,
    finishedAt: row.finished_at,
    lastError: row.last_error,
    notBefore: row.not_before,
    waitAgent: row.wait_agent,
    remoteRun:
      row.remote_run_id === null
        ? null
        : {
            runId: row.remote_run_id,
            pgid: row.remote_pgid,
            offset: Number.isSafeInteger(row.remote_offset) ? Math.max(0, row.remote_offset) : 0,
          },
  };
}

const UNFINISHED = ['queued', 'running'];
/** A running operation whose owner has not renewed its heartbeat for this long is up for takeover. */
export const LEASE_MS = 30_000;
/** FIFO order; rowid breaks ties between operations queued in the same millisecond. */
const insertionOrder = sql`rowid`;

export function createOperationRepo(db: Executor): OperationRepo {
  return {
    async get(id) {
      const row = await db
        .selectFrom('session_operation')
        .selectAll()
        .where('id', '=', id)
        .executeTakeFirst();
      return row ? decodeOperation(row) : undefined;
    },

    async enqueue(sessionId, kind, payload, now, owner) {
      const id = randomUUID();
      await db
        .insertInto('session_operation')
        .values({
          id,
          session_id: sessionId,
          kind,
          status: 'queued',
          payload: JSON.stringify(payload),
          queued_at: now,
          owner: owner ?? null,
        })
        .execute();
      return id;
    },

    async claimNext(sessionId, owner, now) {
      // A single UPDATE … WHERE id = (oldest queued) … RETURNING: two
      // workers can never claim the same row.
      const row = await db
        .updateTable('session_operation')
        .set({
          status: 'running',
          owner,
          heartbeat_at: now,
          started_at: now,
          not_before: null,
          wait_agent: null,
        })
        .where('status', '=', 'queued')
        // The oldest queued one waits for an agent's usage limit to lift: nothing runs before it.
        .where((eb) => eb.or([eb('not_before', 'is', null), eb('not_before', '<=', now)]))
        // One driver per session: not while another process holds a live lease on it.
        .where((eb) =>
          eb.not(
            eb.exists(
              eb
                .selectFrom('session_operation as other')
                .select('other.id')
                .where('other.session_id', '=', sessionId)
                .where('other.status', '=', 'running')
                .where('other.owner', '!=', owner)
                .where('other.heartbeat_at', '>', now - LEASE_MS),
            ),
          ),
        )
        .where('id', '=', (eb) =>
          eb
            .selectFrom('session_operation')
            .select('id')
            .where('session_id', '=', sessionId)
            .where('status', '=', 'queued')
            .where('kind', 'in', OPERATION_KINDS)
            .orderBy('queued_at')
            .orderBy(insertionOrder)
            .limit(1),
        )
        .returningAll()
        .executeTakeFirst();
      return row ? decodeOperation(row) : undefined;
    },

    async setProgress(id, text) {
      await db
        .updateTable('session_operation')
        .set({ progress: text })
        .where('id', '=', id)
        .where('status', '=', 'running')
        .execute();
    },

    async progressElsewhere(projectId, owner) {
      const rows = await db
        .selectFrom('session_operation as op')
        .innerJoin('session', 'session.id', 'op.session_id')
        .select(['op.session_id', 'op.progress'])
        .where('session.project_id', '=', projectId)
        .where('op.status', '=', 'running')
        .where('op.owner', '!=', owner)
        .where('op.progress', 'is not', null)
        .execute();
      return rows.flatMap((row) =>
        row.progress === null ? [] : [{ sessionId: row.session_id, progress: row.progress }],
      );
    },

    async runningTurnsElsewhere(owner, now) {
      const rows = await db
        .selectFrom('session_operation as op')
        .innerJoin('session as s', 's.id', 'op.session_id')
        .select(['s.host as host', (eb) => eb.fn.countAll<number>().as('n')])
        .where('op.status', '=', 'running')
        .where('op.kind', 'in', ['start_prompt', 'reply'])
        .where('op.owner', '!=', owner)
        .where('op.heartbeat_at', '>', now - LEASE_MS)
        .groupBy('s.host')
        .execute();
      const out: Record<string, number> = {};
      for (const row of rows) out[row.host ?? ''] = Number(row.n);
      return out;
    },

    async defer(id, owner, notBefore, agent) {
      const result = await db
        .updateTable('session_operation')
        .set({
          status: 'queued',
          owner,
          heartbeat_at: null,
          started_at: null,
          progress: null,
          not_before: notBefore,
          wait_agent: agent,
        })
        .where('id', '=', id)
        .where('status', '=', 'running')
        .where('owner', '=', owner)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },
    async heartbeat(id, owner, now) {
      const result = await db
        .updateTable('session_operation')
        .set({ heartbeat_at: now })
        .where('id', '=', id)
        .where('owner', '=', owner)
        .where('status', '=', 'running')
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },

    async finish(id, status, error, now) {
      await db
        .updateTable('session_operation')
        .set({ status, last_error: error, finished_at: now })
        .where('id', '=', id)
        .where('status', 'in', UNFINISHED)
        .execute();
    },

    async requestCancel(id) {
      await db
        .updateTable('session_operation')
        .set({ cancel_requested: 1 })
        .where('id', '=', id)
        .where('status', 'in', UNFINISHED)
        .execute();
    },

    async isCancelRequested(id) {
      const row = await db
        .selectFrom('session_operation')
        .select('cancel_requested')
        .where('id', '=', id)
        .executeTakeFirst();
      return row !== undefined && row.cancel_requested !== 0;
    },

    async retractNewestQueued(sessionId, now, kinds = OPERATION_KINDS) {
      if (kinds.length === 0) return undefined;
      const row = await db
        .updateTable('session_operation')
        .set({ status: 'canceled', cancel_requested: 1, finished_at: now })
        .where('status', '=', 'queued')
        .where('id', '=', (eb) =>
          eb
            .selectFrom('session_operation')
            .select('id')
            .where('session_id', '=', sessionId)
            .where('status', '=', 'queued')
            .where('kind', 'in', kinds)
            .orderBy('queued_at', 'desc')
            .orderBy(insertionOrder, 'desc')
            .limit(1),
        )
        .returningAll()
        .executeTakeFirst();
      return row ? decodeOperation(row) : undefined;
    },

    async listUnfinished(sessionId) {
      let query = db.selectFrom('session_operation').selectAll().where('status', 'in', UNFINISHED);
      if (sessionId !== undefined) query = query.where('session_id', '=', sessionId);
      const rows = await query.orderBy('queued_at').orderBy(insertionOrder).execute();
      return rows.map(decodeOperation).filter((op): op is Operation => op !== undefined);
    },

    async newestFinished(kinds, sessionIds) {
      if (kinds.length === 0 || sessionIds.length === 0) return [];
      const found: Operation[] = [];
      // SQLite takes at most 32,766 variables in one statement.
      for (let at = 0; at < sessionIds.length; at += 500) {
        const ids = sessionIds.slice(at, at + 500);
        const { rows } = await sql<Selectable<SessionOperationTable>>`
          SELECT * FROM (
            SELECT *, row_number() OVER (
              PARTITION BY session_id ORDER BY queued_at DESC, rowid DESC
            ) AS newest
            FROM session_operation
            WHERE session_id IN (${sql.join([...ids])})
              AND status NOT IN ('queued', 'running') AND kind IN (${sql.join([...kinds])})
          ) WHERE newest = 1`.execute(db);
        for (const row of rows) {
          const op = decodeOperation(row);
          if (op) found.push(op);
        }
      }
      return found;
    },

    failInterrupted(now, isOwnerAlive) {
      return withTransaction(db, async (trx) => {
        const unfinished = await trx
          .selectFrom('session_operation')
          .select([
            'id',
            'session_id',
            'owner',
            'status',
            'kind',
            'heartbeat_at',
            'started_at',
            'remote_run_id',
          ])
          .where('status', 'in', UNFINISHED)
          .orderBy('queued_at')
          .orderBy(insertionOrder)
          .execute();
        const alive = new Map<string, boolean>();
        const ownerAlive = (owner: string | null, heartbeatAt: number | null): boolean => {
          const key = `${owner ?? ''}\0${heartbeatAt ?? ''}`;
          if (!alive.has(key)) alive.set(key, isOwnerAlive(owner, heartbeatAt));
          return alive.get(key) === true;
        };
        const gone = unfinished.filter(
          (op) =>
            !ownerAlive(op.owner, op.heartbeat_at) &&
            !(op.status === 'queued' && KEPT_WHEN_QUEUED.has(op.kind)),
        );
        // A turn whose agent runs detached on a host goes on there: it is queued
        // again, to be re-attached by the next worker that takes the session.
        const reattach = gone.filter(
          (op) =>
            op.status === 'running' && op.remote_run_id !== null && KEPT_WHEN_QUEUED.has(op.kind),
        );
        if (reattach.length > 0)
          await trx
            .updateTable('session_operation')
            .set({ status: 'queued', owner: null, heartbeat_at: null, progress: null })
            .where(
              'id',
              'in',
              reattach.map((op) => op.id),
            )
            .execute();
        const dead = gone.filter((op) => !reattach.includes(op));
        if (dead.length === 0) return [];
        await trx
          .updateTable('session_operation')
          .set({ status: 'failed', last_error: INTERRUPTED_BY_RESTART, finished_at: now })
          .where(
            'id',
            'in',
            dead.map((op) => op.id),
          )
          .execute();
        const sessionIds = [...new Set(dead.map((op) => op.session_id))];
        const sessions = createSessionRepo(trx);
        for (const sessionId of sessionIds) {
          const session = await sessions.get(sessionId);
          if (!session || !RESET_TO_REVIEW.has(session.status)) continue;
          // The last moment the dead owner is known to have worked.
          const lastSeen = dead
            .filter((op) => op.session_id === sessionId && op.status === 'running')
            .map((op) => op.heartbeat_at ?? op.started_at ?? now)
            .reduce((latest, at) => Math.max(latest, at), -Infinity);
          await sessions.setStatus(
            sessionId,
            'Review',
            now,
            Number.isFinite(lastSeen) ? Math.min(lastSeen, now) : undefined,
          );
        }
        return sessionIds;
      });
    },

    async setRemoteRun(id, runId, pgid) {
      await db
        .updateTable('session_operation')
        .set({ remote_run_id: runId, remote_pgid: pgid, remote_offset: 0 })
        .where('id', '=', id)
        .execute();
    },

    async setRemoteOffset(id, offset) {
      await db
        .updateTable('session_operation')
        .set({ remote_offset: sql<number>`max(remote_offset, ${offset})` })
        .where('id', '=', id)
        .execute();
    },
  };
}
