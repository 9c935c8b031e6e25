import type { Kysely } from 'kysely';
import type { DB } from './schema.js';

/** What every repository runs its queries on: the database or an open transaction. */
export type Executor = Kysely<DB>;

/**
 * Runs `fn` in a transaction: joins the caller's transaction when `db` is
 * one, else opens its own (committed when `fn` resolves, rolled back when
 * it throws).
 */
export function withTransaction<T>(db: Executor, fn: (trx: Executor) => Promise<T>): Promise<T> {
  if (db.isTransaction) return fn(db);
  return db.transaction().execute(fn);
}
