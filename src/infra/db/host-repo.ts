import type { Host } from '../../domain/host.js';
import type { Executor } from './executor.js';

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
}

export function createHostRepo(db: Executor): HostRepo {
  const decode = (row: {
    name: string;
    destination: string;
    root: string;
    created_at: number;
  }): Host => ({
    name: row.name,
    destination: row.destination,
    root: row.root,
    createdAt: row.created_at,
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
        })
        .onConflict((oc) => oc.column('name').doNothing())
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
    },

    async remove(name) {
      const result = await db.deleteFrom('host').where('name', '=', name).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
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
