import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/infra/db/database.js';
import { DatabaseError, type DatabaseErrorReason } from '../../src/infra/db/errors.js';

const MIGRATIONS = fileURLToPath(new URL('../../migrations/', import.meta.url));
/** The shipped migrations, in order, and the number a new one would take. */
const SHIPPED = readdirSync(MIGRATIONS)
  .filter((f) => /^\d{3}_[a-z0-9_]+\.sql$/.test(f))
  .sort();
const SHIPPED_VERSIONS = SHIPPED.map((f) => Number(f.slice(0, 3)));
const NEXT = String(SHIPPED.length + 1).padStart(3, '0');

let dir: string;
let file: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'grove-db-open-'));
  file = join(dir, 'nested', 'grove.db');
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function sha256(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

/** Creates a migrated Grove database, runs `edit` on it with plain SQLite, and closes it. */
async function createGroveDb(edit?: (sqlite: BetterSqlite3.Database) => void): Promise<void> {
  const db = openDatabase(file, MIGRATIONS);
  edit?.(db.sqlite);
  await db.close();
}

function refusal(open: () => unknown): DatabaseError {
  try {
    open();
  } catch (error) {
    if (error instanceof DatabaseError) return error;
    throw error;
  }
  throw new Error('the database was opened');
}

function expectRefusedUnchanged(reason: DatabaseErrorReason): DatabaseError {
  const before = sha256(file);

  const error = refusal(() => openDatabase(file, MIGRATIONS));

  expect(error.kind).toBe('database');
  expect(error.reason).toBe(reason);
  expect(error.message).toContain(file);
  expect(error.message).not.toContain('\n');
  expect(sha256(file)).toBe(before);
  return error;
}

function tableNames(sqlite: BetterSqlite3.Database): string[] {
  const rows = sqlite
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
    .all() as {
    name: string;
  }[];
  return rows.map((row) => row.name);
}

describe('openDatabase', () => {
  it('creates the folder and file and applies every migration to an empty database', async () => {
    const db = openDatabase(file, MIGRATIONS, { now: () => 1234 });

    expect(tableNames(db.sqlite)).toEqual(
      expect.arrayContaining([
        'grove_migration',
        'project',
        'project_setting',
        'session',
        'session_message',
        'session_operation',
        'session_review_request',
        'session_usage',
        'setting',
      ]),
    );
    expect(
      db.sqlite.prepare('SELECT version, name, applied_at FROM grove_migration').all(),
    ).toEqual(
      SHIPPED.map((f) => ({
        version: Number(f.slice(0, 3)),
        name: f.slice(4, -4),
        applied_at: 1234,
      })),
    );
    expect(SHIPPED[0]).toBe('001_initial.sql');
    await db.close();
  });

  it('sets WAL, foreign keys, the busy timeout and synchronous NORMAL', async () => {
    const db = openDatabase(file, MIGRATIONS);

    expect(db.sqlite.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.sqlite.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(db.sqlite.pragma('busy_timeout', { simple: true })).toBe(5000);
    expect(db.sqlite.pragma('synchronous', { simple: true })).toBe(1);
    await db.close();
  });

  it('applies nothing when reopened', async () => {
    await createGroveDb();

    const db = openDatabase(file, MIGRATIONS, { now: () => 99 });

    const rows = db.sqlite.prepare('SELECT version, applied_at FROM grove_migration').all() as {
      applied_at: number;
    }[];
    expect(rows).toHaveLength(SHIPPED.length);
    expect(rows.map((r) => r.applied_at)).not.toContain(99);
    await db.close();
  });

  it('applies a new migration to a database created before it existed', async () => {
    await createGroveDb();
    const migrations = join(dir, 'migrations');
    cpSync(MIGRATIONS, migrations, { recursive: true });
    writeFileSync(
      join(migrations, `${NEXT}_extra.sql`),
      'CREATE TABLE extra (id INTEGER PRIMARY KEY);\n',
    );

    const db = openDatabase(file, migrations);

    expect(tableNames(db.sqlite)).toContain('extra');
    expect(
      db.sqlite.prepare('SELECT version FROM grove_migration ORDER BY version').pluck().all(),
    ).toEqual([...SHIPPED_VERSIONS, SHIPPED.length + 1]);
    await db.close();
  });

  it("keeps a session's usage counted before roles existed as its agent's turns (migration 014)", async () => {
    const before = join(dir, 'before-roles');
    mkdirSync(before);
    for (const name of SHIPPED.filter((f) => Number(f.slice(0, 3)) < 14))
      cpSync(join(MIGRATIONS, name), join(before, name));
    const old = openDatabase(file, before);
    old.sqlite.exec(
      `INSERT INTO project (id, path, display_name, created_at, last_opened_at) VALUES (1, '/p', 'p', 0, 0);
       INSERT INTO session (id, project_id, status, base_branch, branch, worktree_path, agent, model, reasoning_level, created_at, updated_at)
       VALUES ('s1', 1, 'Review', 'main', 'grove/s1', '/wt/s1', 'claude', 'sonnet', 'high', 0, 0);`,
    );
    old.sqlite
      .prepare(
        "INSERT INTO session_usage (session_id, model, input_tokens, output_tokens, invocation_count) VALUES ('s1', 'sonnet', 120, 40, 3)",
      )
      .run();
    await old.close();

    const db = openDatabase(file, MIGRATIONS);

    expect(
      db.sqlite
        .prepare(
          'SELECT session_id, model, role, input_tokens, output_tokens, invocation_count FROM session_usage',
        )
        .all(),
    ).toEqual([
      {
        session_id: 's1',
        model: 'sonnet',
        role: 'turn',
        input_tokens: 120,
        output_tokens: 40,
        invocation_count: 3,
      },
    ]);
    expect(tableNames(db.sqlite)).toContain('project_usage');
    await db.close();
  });

  it('applies pending migrations all or nothing', () => {
    const migrations = join(dir, 'migrations');
    cpSync(MIGRATIONS, migrations, { recursive: true });
    writeFileSync(
      join(migrations, `${NEXT}_broken.sql`),
      'CREATE TABLE half (id INTEGER);\nCREATE TABLE oops (;\n',
    );

    expect(() => openDatabase(file, migrations)).toThrow(new RegExp(`${NEXT}_broken\\.sql`));

    const sqlite = new BetterSqlite3(file, { readonly: true });
    expect(tableNames(sqlite)).toEqual([]);
    sqlite.close();
  });

  it('refuses a database created by a newer Grove and leaves it unchanged', async () => {
    await createGroveDb((sqlite) =>
      sqlite.prepare("INSERT INTO grove_migration VALUES (999, 'from_the_future', 'abc', 0)").run(),
    );

    const error = expectRefusedUnchanged('newer');

    expect(error.message).toContain('newer Grove');
    expect(error.message).toContain('999_from_the_future');
  });

  it('refuses a database whose recorded checksum differs and leaves it unchanged', async () => {
    await createGroveDb((sqlite) =>
      sqlite.prepare("UPDATE grove_migration SET checksum = 'tampered' WHERE version = 1").run(),
    );

    const error = expectRefusedUnchanged('edited');

    expect(error.message).toContain('001_initial');
  });

  it('refuses a database when the shipped migration file was edited after it was applied', async () => {
    await createGroveDb();
    const migrations = join(dir, 'migrations');
    cpSync(MIGRATIONS, migrations, { recursive: true });
    const initial = join(migrations, '001_initial.sql');
    writeFileSync(initial, `${readFileSync(initial, 'utf8')}\n-- an edit\n`);
    const before = sha256(file);

    const error = refusal(() => openDatabase(file, migrations));

    expect(error.reason).toBe('edited');
    expect(sha256(file)).toBe(before);
  });

  it('accepts a migration file whose only change is CRLF line endings', async () => {
    await createGroveDb();
    const migrations = join(dir, 'migrations');
    mkdirSync(migrations);
    for (const name of SHIPPED) {
      const sql = readFileSync(join(MIGRATIONS, name), 'utf8');
      writeFileSync(join(migrations, name), sql.replace(/\n/g, '\r\n'));
    }

    const db = openDatabase(file, migrations);

    await db.close();
  });

  it('refuses a file that is not SQLite and leaves it unchanged', () => {
    mkdirSync(join(dir, 'nested'));
    writeFileSync(file, 'These are my notes, not a database.\n'.repeat(200));

    const error = expectRefusedUnchanged('not_sqlite');

    expect(error.message).toContain('not a SQLite database');
    expect(existsSync(`${file}-wal`)).toBe(false);
  });

  it('refuses a file shorter than a SQLite header', () => {
    mkdirSync(join(dir, 'nested'));
    writeFileSync(file, 'SQLite format 3\0');

    expectRefusedUnchanged('not_sqlite');
  });

  it('refuses a corrupt database (valid header, garbage pages), leaves it unchanged and adds no side files', async () => {
    await createGroveDb();
    const bytes = readFileSync(file);
    const pageSize = bytes.readUInt16BE(16);
    expect(bytes.length).toBeGreaterThan(pageSize);
    bytes.fill(0xab, pageSize);
    writeFileSync(file, bytes);

    const error = expectRefusedUnchanged('corrupt');

    expect(error.message).toContain('damaged');
    expect(existsSync(`${file}-wal`)).toBe(false);
    expect(existsSync(`${file}-shm`)).toBe(false);
  });

  it('refuses a database whose first page is garbage after the header', async () => {
    await createGroveDb();
    const bytes = readFileSync(file);
    bytes.fill(0xab, 100);
    writeFileSync(file, bytes);

    expectRefusedUnchanged('corrupt');
  });

  it('refuses a path that is a folder as unreadable', () => {
    mkdirSync(file, { recursive: true });

    const error = refusal(() => openDatabase(file, MIGRATIONS));

    expect(error.reason).toBe('unreadable');
  });

  it('refuses an existing empty (0-byte) file, says to move it aside, and leaves it as it is', () => {
    mkdirSync(join(dir, 'nested'));
    writeFileSync(file, '');

    const error = expectRefusedUnchanged('empty');

    expect(error.message).toContain('empty (0 bytes)');
    expect(error.message).toContain(`mv ${file} ${file}.empty`);
    expect(readFileSync(file).length).toBe(0);
    expect(existsSync(`${file}-wal`)).toBe(false);
  });

  it('creates a new database where no file existed, and opens it again', async () => {
    await createGroveDb();

    const db = openDatabase(file, MIGRATIONS);

    expect(tableNames(db.sqlite)).toContain('session');
    await db.close();
  });

  it('can be closed twice', async () => {
    const db = openDatabase(file, MIGRATIONS);

    await db.close();
    await db.close();

    expect(db.sqlite.open).toBe(false);
  });
});
