import { nativeLoadMessage, type NativeLoadFailure } from '../native-module.js';

/** Why Grove refused to open its database file. */
export type DatabaseErrorReason =
  | 'not_sqlite'
  | 'corrupt'
  | 'newer'
  | 'edited'
  | 'unreadable'
  | 'native_module'
  | 'empty'
  | 'locked'
  | 'full';

/**
 * Grove cannot use its database file. The message is one line, names the
 * file and says what to do; the file itself was left untouched.
 */
export class DatabaseError extends Error {
  readonly kind = 'database' as const;
  /** Set when `reason` is 'native_module'. */
  native: NativeLoadFailure | null = null;

  constructor(
    readonly reason: DatabaseErrorReason,
    readonly file: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'DatabaseError';
  }

  static notSqlite(file: string): DatabaseError {
    return new DatabaseError(
      'not_sqlite',
      file,
      `${file} is not a SQLite database; move it aside (Grove then creates a new one) or set GROVE_HOME to another folder.`,
    );
  }

  static corrupt(file: string, detail: string, cause?: unknown): DatabaseError {
    return new DatabaseError(
      'corrupt',
      file,
      `${file} is damaged (SQLite: ${detail}); restore it from a backup or move it aside to start with an empty one.`,
      { cause },
    );
  }

  static newer(file: string, version: number, name: string): DatabaseError {
    return new DatabaseError(
      'newer',
      file,
      `${file} was created by a newer Grove (it records migration ${label(version, name)}, unknown to this version); upgrade Grove or move the file aside.`,
    );
  }

  static edited(file: string, version: number, name: string): DatabaseError {
    return new DatabaseError(
      'edited',
      file,
      `${file} records migration ${label(version, name)} with a different checksum than this Grove ships (the migration file or the database was edited); reinstall Grove or move the file aside.`,
    );
  }

  /** SQLite itself is not there: better-sqlite3's native module did not load (the file is not at fault). */
  static nativeModule(file: string, failure: NativeLoadFailure, cause?: unknown): DatabaseError {
    const error = new DatabaseError('native_module', file, nativeLoadMessage(failure), { cause });
    error.native = failure;
    return error;
  }

  static empty(file: string): DatabaseError {
    return new DatabaseError(
      'empty',
      file,
      `${file} is empty (0 bytes): it holds none of your sessions, so Grove will not start over on it and lose track of their worktrees; restore it from a backup, or move it aside (mv ${file} ${file}.empty) to start with a new database.`,
    );
  }

  /** Another process held the write lock for longer than Grove waits (SQLITE_BUSY). */
  static locked(file: string, detail: string, cause?: unknown): DatabaseError {
    return new DatabaseError(
      'locked',
      file,
      `${file} is locked: another program has held it for longer than Grove waits, 5 s (SQLite: ${detail}); close what holds it (a sqlite3 shell, a backup or sync tool, a Grove stuck mid-write), then try again.`,
      { cause },
    );
  }

  /** The disk holding the database is full (SQLITE_FULL, ENOSPC). */
  static full(file: string, detail: string, cause?: unknown): DatabaseError {
    return new DatabaseError(
      'full',
      file,
      `the disk holding ${file} is full (SQLite: ${detail}); free some space, then try again.`,
      { cause },
    );
  }

  static unreadable(file: string, detail: string, cause?: unknown): DatabaseError {
    return new DatabaseError(
      'unreadable',
      file,
      `${file} cannot be opened (${detail}); check its permissions and the folder's, or set GROVE_HOME to another folder.`,
      { cause },
    );
  }
}

/** The migration files this build ships are themselves broken (a packaging bug). */
export class MigrationFilesError extends Error {
  readonly kind = 'migration_files' as const;

  constructor(
    readonly dir: string,
    readonly problems: readonly string[],
  ) {
    super(`The migrations in ${dir} are invalid: ${problems.join('; ')}.`);
    this.name = 'MigrationFilesError';
  }
}

/** A row the caller expected is not there. */
export class NotFoundError extends Error {
  readonly kind = 'not_found' as const;

  constructor(
    readonly entity: string,
    readonly id: string,
  ) {
    super(`No ${entity} with id ${id}.`);
    this.name = 'NotFoundError';
  }
}

function label(version: number, name: string): string {
  return `${String(version).padStart(3, '0')}_${name}`;
}

/**
 * A storage failure the user can act on, in words: a full disk, a failing
 * or read-only one, a database another program keeps locked. Null for any
 * other error.
 */
export function storageFailure(error: unknown): string | null {
  if (!(error instanceof Error)) return null;
  const code = (error as NodeJS.ErrnoException).code ?? '';
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'))
    return `the database is locked: another program has held it for longer than Grove waits (5 s), so nothing was saved (${error.message.split('\n')[0] ?? ''}). Close what holds it (a sqlite3 shell, a backup or sync tool, a Grove stuck mid-write), then try again.`;
  if (code === 'SQLITE_FULL' || code === 'ENOSPC')
    return `the disk is full (${error.message.split('\n')[0] ?? ''})`;
  if (code.startsWith('SQLITE_IOERR') || code === 'EIO')
    return `the disk could not be written (${error.message.split('\n')[0] ?? ''})`;
  if (code.startsWith('SQLITE_READONLY') || code === 'EROFS')
    return `the database is read-only (${error.message.split('\n')[0] ?? ''})`;
  return null;
}
