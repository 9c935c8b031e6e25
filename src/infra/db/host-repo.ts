import type { Host } from '../../domain/host.js';
import { parseStoredLoad, type HostLoad } from '../../domain/placement.js';
import { withTransaction, type Executor } from './executor.js';

/** The hosts sessions can run on (issue 24), by name. */
export interface HostRepo {
  list(): Promise<Host[]>;
  get(name: string): Promise<Host | undefined>;
  /** Adds the host; false (and nothing written) when a host has that name already. */
  add(host: Host): Promise<boolean>;
  /** Removes the host; false when there was none of that name. */
  remove(name: string): Promise<boolean>;
  /** How many sessions name the host (of any status). */
  sessionsOn(name: string): Promise<number>;
  /** Records (or keeps: the first commit wins) what is left to remove on a host for a session that ended. */
  addCleanup(cleanup: HostCleanup): Promise<void>;
  /** The cleanups left, oldest first: of one host, one repository, or all. */
  cleanups(filter?: { readonly host?: string; readonly repo?: string }): Promise<HostCleanup[]>;
  /** The host is clean for that session: its row goes. */
  cleanupDone(sessionId: string): Promise<void>;
  /** A try that did not finish: why, and when. */
  cleanupFailed(sessionId: string, error: string, at: number): Promise<void>;
  /** The runs the session's turns started on its host (their folders there), oldest first. */
  runsOf(sessionId: string): Promise<string[]>;
  /** Sets the host's most turns at once (null: auto); false when there is no such host. */
  setMax(name: string, max: number | null): Promise<boolean>;
  /** Keeps the host's last reading of free memory and load. */
  saveLoad(name: string, load: HostLoad): Promise<void>;
  /** The hosts' last readings, by name (hosts never read are absent). */
  loads(): Promise<Record<string, HostLoad>>;
  /** Marks a new session to be placed by its first turn (the host `auto`). */
  markAuto(sessionId: string, at: number): Promise<void>;
  /** Whether the session waits to be placed. */
  isAuto(sessionId: string): Promise<boolean>;
  /** The session is placed: its host (null: this machine) is written and the mark goes, in one transaction. */
  placed(sessionId: string, host: string | null, at: number): Promise<void>;
}

/** A session's leftovers on a host (host_cleanup, migration 027). */
export interface HostCleanup {
  readonly sessionId: string;
  readonly host: string;
  /** The local repository (the project's path). */
  readonly repo: string;
  readonly branch: string;
  /** The local branch's commit when the session ended (null: it had none). */
  readonly commit: string | null;
  readonly createdAt: number;
  readonly attemptedAt: number | null;
  /** Why the last try did not finish. */
  readonly error: string | null;
}

export function createHostRepo(db: Executor): HostRepo {
  const decode = (row: {
    name: string;
    destination: string;
    root: string;
    created_at: number;
    max_sessions: number | null;
  }): Host => ({
    name: row.name,
    destination: row.destination,
    root: row.root,
    createdAt: row.created_at,
    maxSessions: row.max_sessions,
  });
  return {
    async list() {
      const rows = await db.selectFrom('host').selectAll().orderBy('name').execute();
      return rows.map(decode);
    },

    async get(name) {
      const row = await db
        .selectFrom('host')
        .selectAll()
        .where('name', '=', name)
        .executeTakeFirst();
      return row ? decode(row) : undefined;
    },

    async add(host) {
      const result = await db
        .insertInto('host')
        .values({
          name: host.name,
          destination: host.destination,
          root: host.root,
          created_at: host.createdAt,
          max_sessions: host.maxSessions ?? null,
        })
        .onConflict((oc) => oc.column('name').doNothing())
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
    },

    async remove(name) {
      const result = await db.deleteFrom('host').where('name', '=', name).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },

    async addCleanup(c) {
      await db
        .insertInto('host_cleanup')
        .values({
          session_id: c.sessionId,
          host: c.host,
          repo: c.repo,
          branch: c.branch,
          commit_id: c.commit,
          created_at: c.createdAt,
          attempted_at: null,
          error: null,
        })
        .onConflict((oc) => oc.column('session_id').doNothing())
        .execute();
    },

    async cleanups(filter = {}) {
      let query = db.selectFrom('host_cleanup').selectAll();
      if (filter.host !== undefined) query = query.where('host', '=', filter.host);
      if (filter.repo !== undefined) query = query.where('repo', '=', filter.repo);
      const rows = await query.orderBy('created_at').orderBy('session_id').execute();
      return rows.map((r) => ({
        sessionId: r.session_id,
        host: r.host,
        repo: r.repo,
        branch: r.branch,
        commit: r.commit_id,
        createdAt: r.created_at,
        attemptedAt: r.attempted_at,
        error: r.error,
      }));
    },

    async cleanupDone(sessionId) {
      await db.deleteFrom('host_cleanup').where('session_id', '=', sessionId).execute();
    },

    async cleanupFailed(sessionId, error, at) {
      await db
        .updateTable('host_cleanup')
        .set({ error, attempted_at: at })
        .where('session_id', '=', sessionId)
        .execute();
    },

    async runsOf(sessionId) {
      const rows = await db
        .selectFrom('session_operation')
        .select('remote_run_id')
        .where('session_id', '=', sessionId)
        .where('remote_run_id', 'is not', null)
        .orderBy('queued_at')
        .execute();
      return rows.flatMap((r) => (r.remote_run_id ? [r.remote_run_id] : []));
    },

    async setMax(name, max) {
      const result = await db
        .updateTable('host')
        .set({ max_sessions: max })
        .where('name', '=', name)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    async saveLoad(name, load) {
      await db
        .updateTable('host')
        .set({ load_reading: JSON.stringify(load) })
        .where('name', '=', name)
        .execute();
    },

    async loads() {
      const rows = await db.selectFrom('host').select(['name', 'load_reading']).execute();
      const out: Record<string, HostLoad> = {};
      for (const row of rows) {
        const load = parseStoredLoad(row.load_reading);
        if (load) out[row.name] = load;
      }
      return out;
    },

    async markAuto(sessionId, at) {
      await db
        .insertInto('session_placement')
        .values({ session_id: sessionId, created_at: at })
        .onConflict((oc) => oc.column('session_id').doNothing())
        .execute();
    },

    async isAuto(sessionId) {
      const row = await db
        .selectFrom('session_placement')
        .select('session_id')
        .where('session_id', '=', sessionId)
        .executeTakeFirst();
      return row !== undefined;
    },

    async placed(sessionId, host, at) {
      await withTransaction(db, async (trx) => {
        await trx
          .updateTable('session')
          .set({ host, updated_at: at })
          .where('id', '=', sessionId)
          .execute();
        await trx.deleteFrom('session_placement').where('session_id', '=', sessionId).execute();
      });
    },

    async sessionsOn(name) {
      const row = await db
        .selectFrom('session')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('host', '=', name)
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    },
  };
}
