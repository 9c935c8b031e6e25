// Opens Grove's SQLite file. An existing file is inspected read-only first
// (header, the first page of every table, migration history) so a file Grove
// refuses is left byte-identical; only then is it opened for writing,
// switched to WAL and migrated. The whole-file check (quick_check) reads
// every page, so its cost grows with the stored history: it runs in `grove
// doctor` and, off the event loop, in the TUI (integrity.ts), not here.
import {
  closeSync,
  existsSync,
  linkSync,
  mkdirSync,
  openSync,
  readSync,
  rmSync,
  statSync,
} from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import {
  CompiledQuery,
  Kysely,
  SqliteDialect,
  SqliteDriver,
  type DatabaseConnection,
  type Driver,
  type SqliteDialectConfig,
} from 'kysely';
import { classifyNativeLoadError } from '../native-module.js';
import { makePrivateFile } from '../private-files.js';
import { DatabaseError } from './errors.js';
import {
  applyMigrations,
  conflictError,
  findConflict,
  loadMigrations,
  readAppliedMigrations,
  type Migration,
} from './migrate.js';
import type { DB } from './schema.js';

export interface GroveDb {
  readonly kysely: Kysely<DB>;
  readonly sqlite: BetterSqlite3.Database;
  /** Closes the connection (idempotent). */
  close(): Promise<void>;
}

export interface OpenDatabaseOptions {
  /** Clock for `grove_migration.applied_at` (epoch ms). */
  readonly now?: () => number;
}

const SQLITE_MAGIC = Buffer.from('SQLite format 3\0', 'latin1');
const HEADER_BYTES = 100;

/**
 * Opens (creating if needed) the database at `file` and applies the
 * migrations in `migrationsDir`. Throws `DatabaseError` when the file is
 * not SQLite, is corrupt, was written by a newer Grove, records an edited
 * migration, or cannot be opened; `MigrationFilesError` when the shipped
 * migrations themselves are misnamed.
 */
export function openDatabase(
  file: string,
  migrationsDir: string,
  options: OpenDatabaseOptions = {},
): GroveDb {
  const migrations = loadMigrations(migrationsDir);
  try {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  } catch (error) {
    throw DatabaseError.unreadable(file, describe(error), error);
  }
  createAtomically(file);
  inspectExisting(file, migrations);

  let sqlite: BetterSqlite3.Database;
  try {
    sqlite = new BetterSqlite3(file);
  } catch (error) {
    throw classify(file, error);
  }
  // Private: 0600 before WAL mode creates -wal and -shm (SQLite gives them
  // the database file's permissions); older, looser ones are tightened.
  for (const path of [file, `${file}-wal`, `${file}-shm`]) makePrivateFile(path);
  try {
    // First: another process holding the write lock is waited for here too (up to 5 s).
    sqlite.pragma('busy_timeout = 5000');
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('foreign_keys = ON');
    sqlite.pragma('synchronous = NORMAL');
    applyMigrations(sqlite, migrations, (options.now ?? Date.now)());
  } catch (error) {
    sqlite.close();
    if (error instanceof DatabaseError) throw error;
    if (isSqliteError(error)) throw classify(file, error);
    throw error;
  }

  const kysely = new Kysely<DB>({ dialect: new ImmediateSqliteDialect({ database: sqlite }) });
  let closing: Promise<void> | undefined;
  return {
    kysely,
    sqlite,
    // Kysely closes the connection only if it ever ran a query; close it here too.
    close: () =>
      (closing ??= kysely.destroy().finally(() => {
        if (sqlite.open) sqlite.close();
      })),
  };
}

/**
 * Makes a missing database file whole before anyone can see it: SQLite
 * creates an empty file and writes its header only at the first write, so a
 * second Grove starting in that moment would find 0 bytes and refuse it
 * (DatabaseError.empty). The file is made under a private name, given its
 * header (WAL mode, which is kept in the header), and linked into place; a
 * link never replaces a file, so when two processes race, one wins and the
 * other opens the winner's file.
 */
function createAtomically(file: string): void {
  if (existsSync(file)) return;
  const temp = `${file}.new-${process.pid}`;
  try {
    const sqlite = new BetterSqlite3(temp);
    try {
      sqlite.pragma('journal_mode = WAL');
    } finally {
      sqlite.close();
    }
    makePrivateFile(temp);
    linkSync(temp, file);
  } catch (error) {
    if (!isErrno(error, 'EEXIST')) throw classify(file, error);
  } finally {
    for (const path of [temp, `${temp}-wal`, `${temp}-shm`]) rmSync(path, { force: true });
  }
}

/**
 * Refuses an existing file Grove must not touch. Reads only: the header
 * bytes, then a read-only connection for the schema, the first page of
 * every table (a damaged root page fails here, as SQLITE_CORRUPT) and the
 * recorded migrations. What it costs does not grow with the stored rows.
 */
function inspectExisting(file: string, migrations: readonly Migration[]): void {
  let size: number;
  try {
    const stat = statSync(file);
    if (!stat.isFile()) throw DatabaseError.unreadable(file, 'it is not a regular file');
    size = stat.size;
  } catch (error) {
    if (error instanceof DatabaseError) throw error;
    if (isErrno(error, 'ENOENT')) return;
    throw DatabaseError.unreadable(file, describe(error), error);
  }
  // SQLite would take an empty file as a new, empty database: every session
  // (and the worktrees it knows of) would be forgotten. Grove never leaves
  // one behind itself, nor shows one to another Grove (createAtomically).
  if (size === 0) throw DatabaseError.empty(file);
  if (!hasSqliteHeader(file)) throw DatabaseError.notSqlite(file);

  // A read-only connection to a WAL database creates -wal/-shm beside it;
  // remove the ones it created if the file turns out to be damaged.
  const sideFiles = [`${file}-wal`, `${file}-shm`].filter((side) => !existsSync(side));
  let reader: BetterSqlite3.Database | undefined;
  try {
    reader = new BetterSqlite3(file, { readonly: true, fileMustExist: true });
    readTableRoots(reader);
    const conflict = findConflict(readAppliedMigrations(reader), migrations);
    if (conflict) throw conflictError(file, conflict);
  } catch (error) {
    const refusal = error instanceof DatabaseError ? error : classify(file, error);
    reader?.close();
    reader = undefined;
    if (refusal.reason === 'corrupt' || refusal.reason === 'not_sqlite') {
      for (const side of sideFiles) rmSync(side, { force: true });
    }
    throw refusal;
  } finally {
    reader?.close();
  }
}

/** Reads the first row of every table: each table's root page, not its rows. */
function readTableRoots(reader: BetterSqlite3.Database): void {
  const tables = reader
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
    .pluck()
    .all() as string[];
  for (const table of tables)
    reader.prepare(`SELECT 1 FROM "${table.replace(/"/g, '""')}" LIMIT 1`).get();
}

/** True when the file starts with SQLite's 100-byte header (throws DatabaseError when unreadable). */
export function hasSqliteHeader(file: string): boolean {
  const header = Buffer.alloc(HEADER_BYTES);
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    const read = readSync(fd, header, 0, HEADER_BYTES, 0);
    return read === HEADER_BYTES && header.subarray(0, SQLITE_MAGIC.length).equals(SQLITE_MAGIC);
  } catch (error) {
    throw DatabaseError.unreadable(file, describe(error), error);
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Maps a SQLite (or file system, or native module) failure to the refusal the user sees. */
export function classify(file: string, error: unknown): DatabaseError {
  if (!isSqliteError(error)) {
    const native = classifyNativeLoadError(error, 'better-sqlite3');
    if (native) return DatabaseError.nativeModule(file, native, error);
  }
  const code = isSqliteError(error) ? error.code : '';
  if (code === 'SQLITE_NOTADB') return DatabaseError.notSqlite(file);
  if (code.startsWith('SQLITE_CORRUPT')) return DatabaseError.corrupt(file, describe(error), error);
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'))
    return DatabaseError.locked(file, describe(error), error);
  if (code === 'SQLITE_FULL' || (error as NodeJS.ErrnoException).code === 'ENOSPC')
    return DatabaseError.full(file, describe(error), error);
  return DatabaseError.unreadable(file, describe(error), error);
}

function isSqliteError(error: unknown): error is InstanceType<typeof BetterSqlite3.SqliteError> {
  return error instanceof BetterSqlite3.SqliteError;
}

function isErrno(error: unknown, code: string): boolean {
  return error instanceof Error && (error as NodeJS.ErrnoException).code === code;
}

function describe(error: unknown): string {
  return firstLine(error instanceof Error ? error.message : String(error));
}

function firstLine(text: string): string {
  return text.split('\n')[0] ?? text;
}

/**
 * Kysely's SQLite driver begins transactions with a deferred `begin`; a
 * deferred transaction that reads and then writes can fail with SQLITE_BUSY
 * when another process wrote in between, without waiting on busy_timeout.
 * `begin immediate` takes the write lock up front, so it waits instead.
 */
class ImmediateSqliteDriver extends SqliteDriver {
  constructor(
    config: SqliteDialectConfig,
    private readonly sqlite: BetterSqlite3.Database,
  ) {
    super(config);
  }

  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }

  /**
   * On some errors (SQLITE_FULL, SQLITE_IOERR) SQLite has already rolled the
   * transaction back itself; a second rollback would fail with "cannot
   * rollback - no transaction is active", and Kysely would throw that in
   * place of the error that matters (a full disk).
   */
  override async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    if (!this.sqlite.inTransaction) return;
    await super.rollbackTransaction(connection);
  }
}

class ImmediateSqliteDialect extends SqliteDialect {
  readonly #config: SqliteDialectConfig & { readonly database: BetterSqlite3.Database };

  constructor(config: SqliteDialectConfig & { readonly database: BetterSqlite3.Database }) {
    super(config);
    this.#config = config;
  }

  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.#config, this.#config.database);
  }
}
