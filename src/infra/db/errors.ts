/** Why Grove refused to open its database file. */
export type DatabaseErrorReason = 'not_sqlite' | 'corrupt' | 'newer' | 'edited' | 'unreadable';

/**
 * Grove cannot use its database file. The message is one line, names the
 * file and says what to do; the file itself was left untouched.
 */
export class DatabaseError extends Error {
  readonly kind = 'database' as const;

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
