import { sql, type Expression, type SqlBool } from 'kysely';
import { ARCHIVE_STATUSES } from '../../domain/session-order.js';
import { assertTransition, type SessionStatus } from '../../domain/session-status.js';
import { timerAfterStatusChange, type PermissionMode, type Session } from '../../domain/session.js';
import type { SessionIssue } from '../../domain/issue.js';
import type { SessionLimitValues } from '../../domain/session.js';
import { NotFoundError } from './errors.js';
import { withTransaction, type Executor } from './executor.js';
import { decodeSession, encodeSessionPatch, type SessionPatch } from './session-codec.js';

export type { SessionPatch } from './session-codec.js';

/** What creating a session needs; everything else starts at its column default. */
export interface NewSession {
  readonly id: string;
  readonly projectId: number;
  readonly title: string;
  readonly status: SessionStatus;
  readonly baseBranch: string;
  readonly branch: string;
  readonly worktreePath: string;
  readonly agent: string;
  readonly model: string;
  readonly reasoning: string;
  readonly createdAt: number;
  /** Defaults to `createdAt`. */
  readonly updatedAt?: number;
  readonly titleProvisional?: boolean;
  readonly permissionMode?: PermissionMode;
  readonly prompt?: string | null;
  /** The host the session runs on (host.name); null or absent: this machine. */
  readonly host?: string | null;
  /** The GitHub issue the session starts from; null or absent: none. */
  readonly issue?: SessionIssue | null;
  /** Its own limits (grove run --memory-max / --tasks-max); null or absent: the project's. */
  readonly limits?: SessionLimitValues | null;
}

export interface SessionRepo {
  insert(session: NewSession): Promise<void>;
  get(id: string): Promise<Session | undefined>;
  /** Every session of the project, the archive included; most recently updated first. */
  listByProject(projectId: number): Promise<Session[]>;
  /** The project's live sessions (not in the archive: Merged, Done, Canceled); most recently updated first. */
  listLive(projectId: number): Promise<Session[]>;
  /** The live sessions and the archived ones updated at or after `since` (ms), not the rest of the archive. */
  listTouchedSince(projectId: number, since: number): Promise<Session[]>;
  /**
   * A page of the project's archive, most recently updated first: sessions
   * whose title, branch or first prompt holds `query` (ASCII letters in any
   * case; '' matches all), skipping the first `offset`.
   */
  listArchive(projectId: number, page: ArchivePage): Promise<Session[]>;
  /** The project's sessions linked to a pull request (the archive's included); most recently updated first. */
  listWithReviewRequest(projectId: number): Promise<Session[]>;
  /** How many archived sessions of the project match `query` (as listArchive). */
  countArchive(projectId: number, query: string): Promise<number>;
  /** The last git figures stored for the project's sessions of one kind, by session id. */
  gitProbes(projectId: number, kind: GitProbeKind): Promise<Map<string, GitProbeRecord>>;
  /** Stores a session's git figures of one kind, with the tips they were read at. */
  saveGitProbe(sessionId: string, kind: GitProbeKind, probe: GitProbeRecord): Promise<void>;
  /** Sessions (of any project) whose focused review was left running. */
  listFocusedReviewRunning(): Promise<Session[]>;
  /** Sessions (of any project) whose id starts with `prefix`; dashes and case are ignored. */
  findByIdPrefix(prefix: string): Promise<Session[]>;
  /** Changes plain fields and bumps `updatedAt`. */
  update(id: string, patch: SessionPatch, now: number): Promise<void>;
  /**
   * Moves the session to `next` (throws `TransitionError` when the move is
   * illegal, `NotFoundError` when there is no such session), banking or
   * starting the active-work timer and keeping `queuedAt` for the merge queue.
   * `activeUntil` (≤ now) is when the work really stopped, when that was
   * earlier (a process that died): the timer banks up to it, not to `now`.
   */
  setStatus(id: string, next: SessionStatus, now: number, activeUntil?: number): Promise<Session>;
  /**
   * Moves a Queued session to Merging unless another session of its project
   * is Merging (in any process): one merge at a time per project. Null when
   * it has to wait.
   */
  startMerging(id: string, now: number): Promise<Session | null>;
  addTokens(id: string, input: number, output: number): Promise<void>;
  /** Deletes the session and (by cascade) its transcript, operations, usage and review request. */
  delete(id: string): Promise<void>;
}

export interface ArchivePage {
  readonly query: string;
  readonly offset: number;
  readonly limit: number;
}

/** 'base': ahead/behind its base and a conflict; 'paths': the paths the branch changed. */
export type GitProbeKind = 'base' | 'paths';

/** Git figures as stored: `value` is JSON the caller wrote, `tips` the branch tips it was read at. */
export interface GitProbeRecord {
  readonly tips: string;
  readonly value: string;
}

// The archive's statuses written literally (not as bound values), so SQLite
// matches the terms of the partial indexes of migration 017.
const ARCHIVED_LIST = sql.raw(ARCHIVE_STATUSES.map((s) => `'${s}'`).join(', '));
const IS_ARCHIVED = sql<SqlBool>`session.status IN (${ARCHIVED_LIST})`;
const IS_LIVE = sql<SqlBool>`session.status NOT IN (${ARCHIVED_LIST})`;

/** Title, branch or first prompt holds `query` (ASCII case folded); true for ''. */
function matching(query: string): Expression<SqlBool> {
  const needle = query.trim().toLowerCase();
  if (needle === '') return sql<SqlBool>`1`;
  return sql<SqlBool>`(instr(lower(session.title), ${needle}) > 0 OR instr(lower(session.branch), ${needle}) > 0 OR instr(lower(coalesce(session.prompt, '')), ${needle}) > 0)`;
}

function selectSessions(db: Executor) {
  return db
    .selectFrom('session')
    .leftJoin('session_review_request as rr', 'rr.session_id', 'session.id')
    .leftJoin('session_placement as sp', 'sp.session_id', 'session.id')
    .selectAll('session')
    .select([
      'sp.session_id as sp_session_id',
      'rr.number as rr_number',
      'rr.url as rr_url',
      'rr.state as rr_state',
      'rr.is_draft as rr_is_draft',
      'rr.review_decision as rr_review_decision',
      'rr.checks_summary as rr_checks_summary',
      'rr.checks_state as rr_checks_state',
      'rr.head_branch as rr_head_branch',
      'rr.base_branch as rr_base_branch',
    ]);
}

async function getSession(db: Executor, id: string): Promise<Session | undefined> {
  const row = await selectSessions(db).where('session.id', '=', id).executeTakeFirst();
  return row ? decodeSession(row) : undefined;
}

/** The merge-queue time after a move: set on joining, kept while merging, cleared on leaving. */
function queuedAtAfter(current: Session, next: SessionStatus, now: number): number | null {
  if (next === 'Queued') return current.status === 'Queued' ? (current.queuedAt ?? now) : now;
  if (next === 'Merging') return current.queuedAt;
  return null;
}

export function createSessionRepo(db: Executor): SessionRepo {
  const listLive = async (projectId: number): Promise<Session[]> => {
    const rows = await selectSessions(db)
      .where('session.project_id', '=', projectId)
      .where(IS_LIVE)
      .orderBy('session.updated_at', 'desc')
      .orderBy('session.id')
      .execute();
    return rows.map(decodeSession);
  };
  return {
    async insert(session) {
      const timer = timerAfterStatusChange(
        { activeSeconds: 0, activeSince: null },
        session.status,
        session.createdAt,
      );
      await db
        .insertInto('session')
        .values({
          id: session.id,
          project_id: session.projectId,
          title: session.title,
          title_provisional: session.titleProvisional === false ? 0 : 1,
          status: session.status,
          base_branch: session.baseBranch,
          branch: session.branch,
          worktree_path: session.worktreePath,
          agent: session.agent,
          model: session.model,
          reasoning_level: session.reasoning,
          permission_mode: session.permissionMode ?? 'auto_edit',
          prompt: session.prompt ?? null,
          active_seconds: timer.activeSeconds,
          active_since: timer.activeSince,
          created_at: session.createdAt,
          updated_at: session.updatedAt ?? session.createdAt,
          queued_at: session.status === 'Queued' ? session.createdAt : null,
          host: session.host ?? null,
          issue_number: session.issue?.number ?? null,
          issue_title: session.issue?.title ?? null,
          issue_url: session.issue?.url ?? null,
          memory_max: session.limits?.memoryMax ?? null,
          tasks_max: session.limits?.tasksMax ?? null,
        })
        .execute();
    },

    get: (id) => getSession(db, id),

    async listByProject(projectId) {
      const rows = await selectSessions(db)
        .where('session.project_id', '=', projectId)
        .orderBy('session.updated_at', 'desc')
        .orderBy('session.id')
        .execute();
      return rows.map(decodeSession);
    },

    listLive: (projectId) => listLive(projectId),

    async listTouchedSince(projectId, since) {
      const [live, archived] = await Promise.all([
        listLive(projectId),
        selectSessions(db)
          .where('session.project_id', '=', projectId)
          .where(IS_ARCHIVED)
          .where('session.updated_at', '>=', since)
          .orderBy('session.updated_at', 'desc')
          .orderBy('session.id')
          .execute(),
      ]);
      return [...live, ...archived.map(decodeSession)];
    },

    async listArchive(projectId, page) {
      const rows = await selectSessions(db)
        .where('session.project_id', '=', projectId)
        .where(IS_ARCHIVED)
        .where(matching(page.query))
        .orderBy('session.updated_at', 'desc')
        .orderBy('session.id')
        .limit(page.limit)
        .offset(page.offset)
        .execute();
      return rows.map(decodeSession);
    },

    async listWithReviewRequest(projectId) {
      const rows = await selectSessions(db)
        .where('session.project_id', '=', projectId)
        .where('rr.number', 'is not', null)
        .orderBy('session.updated_at', 'desc')
        .orderBy('session.id')
        .execute();
      return rows.map(decodeSession);
    },

    async countArchive(projectId, query) {
      const row = await db
        .selectFrom('session')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('session.project_id', '=', projectId)
        .where(IS_ARCHIVED)
        .where(matching(query))
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    },

    async gitProbes(projectId, kind) {
      const rows = await db
        .selectFrom('session_git_probe as p')
        .innerJoin('session', 'session.id', 'p.session_id')
        .select(['p.session_id', 'p.tips', 'p.value'])
        .where('session.project_id', '=', projectId)
        .where(IS_LIVE)
        .where('p.kind', '=', kind)
        .execute();
      return new Map(rows.map((r) => [r.session_id, { tips: r.tips, value: r.value }]));
    },

    async saveGitProbe(sessionId, kind, probe) {
      await db
        .insertInto('session_git_probe')
        .values({ session_id: sessionId, kind, tips: probe.tips, value: probe.value })
        .onConflict((oc) =>
          oc.columns(['session_id', 'kind']).doUpdateSet({ tips: probe.tips, value: probe.value }),
        )
        .execute();
    },

    async listFocusedReviewRunning() {
      const rows = await selectSessions(db)
        .where('session.focused_review_status', '=', 'running')
        .orderBy('session.id')
        .execute();
      return rows.map(decodeSession);
    },

    async findByIdPrefix(prefix) {
      const wanted = prefix.replace(/-/g, '').toLowerCase();
      if (wanted === '') return [];
      const rows = await selectSessions(db)
        .where(
          (eb) =>
            eb.fn('substr', [
              eb.fn('lower', [eb.fn('replace', ['session.id', eb.val('-'), eb.val('')])]),
              eb.val(1),
              eb.val(wanted.length),
            ]),
          '=',
          wanted,
        )
        .orderBy('session.created_at')
        .orderBy('session.id')
        .execute();
      return rows.map(decodeSession);
    },

    async update(id, patch, now) {
      await db
        .updateTable('session')
        .set({ ...encodeSessionPatch(patch), updated_at: now })
        .where('id', '=', id)
        .execute();
    },

    startMerging(id, now) {
      return withTransaction(db, async (trx) => {
        // A write first: the transaction holds the write lock from here on, so
        // two processes cannot both see "nobody is merging".
        await trx
          .updateTable('session')
          .set({ updated_at: sql`updated_at` })
          .where('id', '=', id)
          .execute();
        const session = await getSession(trx, id);
        if (!session) throw new NotFoundError('session', id);
        const busy = await trx
          .selectFrom('session')
          .select('id')
          .where('project_id', '=', session.projectId)
          .where('status', '=', 'Merging')
          .where('id', '!=', id)
          .executeTakeFirst();
        if (busy) return null;
        return createSessionRepo(trx).setStatus(id, 'Merging', now);
      });
    },

    setStatus(id, next, now, activeUntil) {
      return withTransaction(db, async (trx) => {
        const current = await getSession(trx, id);
        if (!current) throw new NotFoundError('session', id);
        assertTransition(current.status, next);
        if (current.status === next) return current;
        const timer = timerAfterStatusChange(current, next, now, activeUntil);
        const queuedAt = queuedAtAfter(current, next, now);
        await trx
          .updateTable('session')
          .set({
            status: next,
            active_seconds: timer.activeSeconds,
            active_since: timer.activeSince,
            queued_at: queuedAt,
            updated_at: now,
          })
          .where('id', '=', id)
          .execute();
        return { ...current, ...timer, status: next, queuedAt, updatedAt: now };
      });
    },

    async addTokens(id, input, output) {
      await db
        .updateTable('session')
        .set((eb) => ({
          input_tokens: eb('input_tokens', '+', input),
          output_tokens: eb('output_tokens', '+', output),
        }))
        .where('id', '=', id)
        .execute();
    },

    async delete(id) {
      await db.deleteFrom('session').where('id', '=', id).execute();
    },
  };
}
