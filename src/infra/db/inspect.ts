// Looks at Grove's database without changing it, for `grove doctor`: does
// SQLite load, is the file intact, and which schema version does it hold
// compared with the migrations this Grove ships.
import { existsSync, rmSync, statSync } from 'node:fs';
import BetterSqlite3 from 'better-sqlite3';
import {
  classifyNativeLoadError,
  moduleVersion,
  nativeLoadMessage,
  type NativeLoadFailure,
} from '../native-module.js';
import { classify, hasSqliteHeader } from './database.js';
import { DatabaseError } from './errors.js';
import { conflictError, findConflict, loadMigrations, readAppliedMigrations } from './migrate.js';

export type SqliteProbe =
  | { readonly ok: true; readonly version: string | null; readonly sqlite: string }
  | { readonly ok: false; readonly failure: NativeLoadFailure | null; readonly message: string };

/** Loads better-sqlite3's native module (an in-memory database) and reports its versions. */
export function probeSqlite(): SqliteProbe {
  try {
    const memory = new BetterSqlite3(':memory:');
    try {
      const row = memory.prepare('SELECT sqlite_version() AS v').get() as { v: string };
      return { ok: true, version: moduleVersion('better-sqlite3'), sqlite: row.v };
    } finally {
      memory.close();
    }
  } catch (error) {
    const failure = classifyNativeLoadError(error, 'better-sqlite3');
    return {
      ok: false,
      failure,
      message: failure
        ? nativeLoadMessage(failure)
        : `better-sqlite3 failed: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`,
    };
  }
}

export type DatabaseReport =
  | { readonly state: 'absent' }
  | { readonly state: 'ok'; readonly schema: number; readonly shipped: number }
  | { readonly state: 'refused'; readonly error: DatabaseError };

/**
 * Inspects the database at `file` read-only: header, `PRAGMA quick_check`,
 * and the recorded migrations against those in `migrationsDir`. The -wal
 * and -shm files a read-only connection creates are removed again, so the
 * folder is left as it was. Throws `MigrationFilesError` when the shipped
 * migrations are broken.
 */
export function inspectDatabase(file: string, migrationsDir: string): DatabaseReport {
  const migrations = loadMigrations(migrationsDir);
  const shipped = migrations.at(-1)?.version ?? 0;
  try {
    const stat = statSync(file);
    if (!stat.isFile())
      return {
        state: 'refused',
        error: DatabaseError.unreadable(file, 'it is not a regular file'),
      };
    // Grove refuses an empty file at start (see openDatabase): so does doctor.
    if (stat.size === 0) return { state: 'refused', error: DatabaseError.empty(file) };
    if (!hasSqliteHeader(file)) return { state: 'refused', error: DatabaseError.notSqlite(file) };
  } catch (error) {
    if (error instanceof DatabaseError) return { state: 'refused', error };
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { state: 'absent' };
    return { state: 'refused', error: classify(file, error) };
  }
  const created = [`${file}-wal`, `${file}-shm`].filter((side) => !existsSync(side));
  let reader: BetterSqlite3.Database | undefined;
  try {
    reader = new BetterSqlite3(file, { readonly: true, fileMustExist: true });
    const verdict = (reader.pragma('quick_check') as { quick_check: string }[])
      .map((row) => row.quick_check)
      .join('; ');
    if (verdict !== 'ok')
      return {
        state: 'refused',
        error: DatabaseError.corrupt(file, verdict.split('\n')[0] ?? verdict),
      };
    const applied = readAppliedMigrations(reader);
    const conflict = findConflict(applied, migrations);
    if (conflict) return { state: 'refused', error: conflictError(file, conflict) };
    return { state: 'ok', schema: applied.at(-1)?.version ?? 0, shipped };
  } catch (error) {
    return {
      state: 'refused',
      error: error instanceof DatabaseError ? error : classify(file, error),
    };
  } finally {
    reader?.close();
    for (const side of created) rmSync(side, { force: true });
  }
}
