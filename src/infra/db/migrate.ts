// The migration runner: numbered `.sql` files, applied in order, recorded
// with their checksums in `grove_migration` so edits and newer databases are
// caught. Migrations are frozen in time: plain SQL, no application code.
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { DatabaseError, MigrationFilesError } from './errors.js';

export const MIGRATION_FILE_PATTERN = /^(\d{3})_([a-z0-9_]+)\.sql$/;

export interface Migration {
  readonly version: number;
  /** The part of the file name between the number and `.sql`. */
  readonly name: string;
  readonly fileName: string;
  readonly sql: string;
  readonly checksum: string;
}

export interface AppliedMigration {
  readonly version: number;
  readonly name: string;
  readonly checksum: string;
  readonly appliedAt: number;
}

export type MigrationConflict =
  | { readonly reason: 'newer'; readonly version: number; readonly name: string }
  | { readonly reason: 'edited'; readonly version: number; readonly name: string };

const CREATE_MIGRATION_TABLE = `CREATE TABLE IF NOT EXISTS grove_migration (
  version INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  checksum TEXT NOT NULL,
  applied_at INTEGER NOT NULL
)`;

const pad = (n: number): string => String(n).padStart(3, '0');

/**
 * Problems with a folder's migration file names (empty when fine): names
 * not of the form `NNN_name.sql`, numbers used twice, gaps, and a first
 * number other than 001. Pure; shared in spirit with xtask/check-migrations.mjs.
 */
export function validateMigrationNames(fileNames: readonly string[]): string[] {
  const problems: string[] = [];
  const byNumber = new Map<number, string[]>();
  for (const fileName of [...fileNames].sort()) {
    const match = MIGRATION_FILE_PATTERN.exec(fileName);
    if (!match) {
      problems.push(
        `${fileName} is not named NNN_name.sql (three digits, then lowercase letters, digits and _)`,
      );
      continue;
    }
    const version = Number(match[1]);
    byNumber.set(version, [...(byNumber.get(version) ?? []), fileName]);
  }
  for (const [version, names] of byNumber) {
    if (names.length > 1)
      problems.push(`migration number ${pad(version)} is used by ${names.join(' and ')}`);
  }
  const versions = [...byNumber.keys()].sort((a, b) => a - b);
  const first = versions[0];
  if (first === undefined) {
    if (fileNames.length === 0) problems.push('there are no migration files');
    return problems;
  }
  if (first !== 1) problems.push(`migrations must start at 001, the first is ${pad(first)}`);
  for (let i = 1; i < versions.length; i += 1) {
    const previous = versions[i - 1] ?? 0;
    const current = versions[i] ?? 0;
    for (let missing = previous + 1; missing < current; missing += 1) {
      problems.push(
        `migration ${pad(missing)} is missing (between ${pad(previous)} and ${pad(current)})`,
      );
    }
  }
  return problems;
}

/** sha256 of the SQL with line endings normalised, so a CRLF checkout is not an edit. */
export function migrationChecksum(sql: string): string {
  return createHash('sha256').update(sql.replace(/\r\n/g, '\n')).digest('hex');
}

/** Reads and checks every migration in `dir`, sorted by number. */
export function loadMigrations(dir: string): Migration[] {
  const fileNames = readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isFile() && !entry.name.startsWith('.'))
    .map((entry) => entry.name);
  const problems = validateMigrationNames(fileNames);
  if (problems.length > 0) throw new MigrationFilesError(dir, problems);
  return fileNames
    .map((fileName) => {
      const match = MIGRATION_FILE_PATTERN.exec(fileName);
      const sql = readFileSync(join(dir, fileName), 'utf8');
      return {
        version: Number(match?.[1]),
        name: match?.[2] ?? '',
        fileName,
        sql,
        checksum: migrationChecksum(sql),
      };
    })
    .sort((a, b) => a.version - b.version);
}

/** The migrations recorded in a database (none if it has no `grove_migration` table). */
export function readAppliedMigrations(sqlite: BetterSqlite3.Database): AppliedMigration[] {
  const table = sqlite
    .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'grove_migration'")
    .get();
  if (table === undefined) return [];
  const rows = sqlite
    .prepare('SELECT version, name, checksum, applied_at FROM grove_migration ORDER BY version')
    .all() as { version: number; name: string; checksum: string; applied_at: number }[];
  return rows.map((row) => ({
    version: row.version,
    name: row.name,
    checksum: row.checksum,
    appliedAt: row.applied_at,
  }));
}

/** A recorded migration this build does not ship, or ships with other content. */
export function findConflict(
  applied: readonly AppliedMigration[],
  known: readonly Migration[],
): MigrationConflict | null {
  const byVersion = new Map(known.map((m) => [m.version, m]));
  for (const record of applied) {
    if (!byVersion.has(record.version))
      return { reason: 'newer', version: record.version, name: record.name };
  }
  for (const record of applied) {
    const migration = byVersion.get(record.version);
    if (migration && migration.checksum !== record.checksum) {
      return { reason: 'edited', version: record.version, name: record.name };
    }
  }
  return null;
}

export function conflictError(file: string, conflict: MigrationConflict): DatabaseError {
  return conflict.reason === 'newer'
    ? DatabaseError.newer(file, conflict.version, conflict.name)
    : DatabaseError.edited(file, conflict.version, conflict.name);
}

/**
 * Applies the pending migrations in one immediate transaction (all or none)
 * and returns them. Throws a `DatabaseError` ('newer' / 'edited') without
 * writing anything when the recorded history does not match `migrations`.
 */
export function applyMigrations(
  sqlite: BetterSqlite3.Database,
  migrations: readonly Migration[],
  now: number,
): Migration[] {
  const run = sqlite.transaction((): Migration[] => {
    sqlite.exec(CREATE_MIGRATION_TABLE);
    const applied = readAppliedMigrations(sqlite);
    const conflict = findConflict(applied, migrations);
    if (conflict) throw conflictError(sqlite.name, conflict);
    const done = new Set(applied.map((record) => record.version));
    const pending = migrations.filter((m) => !done.has(m.version));
    const record = sqlite.prepare(
      'INSERT INTO grove_migration (version, name, checksum, applied_at) VALUES (?, ?, ?, ?)',
    );
    for (const migration of pending) {
      try {
        sqlite.exec(migration.sql);
      } catch (error) {
        const detail = error instanceof Error ? error.message : String(error);
        throw new Error(`Migration ${migration.fileName} failed on ${sqlite.name}: ${detail}`, {
          cause: error,
        });
      }
      record.run(migration.version, migration.name, migration.checksum, now);
    }
    return pending;
  });
  return run.immediate();
}
