import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { storageFailure } from '../../src/infra/db/errors.js';
import { expectExit, harness, reply, type Harness } from './headless-harness.js';

// A database another program keeps locked past SQLite's busy timeout
// (SQLITE_BUSY), and a full disk (SQLITE_FULL), are said in words of their
// own. Real SQLite: a second connection holds the write lock; the database
// refuses to grow past max_page_count, as on a full disk.

let h: Harness;

beforeEach(async () => {
  h = await harness();
});

afterEach(async () => {
  await h.close();
});

const dbFile = (): string => join(h.world.groveHome, 'db', 'grove.db');

describe('a locked database', () => {
  it('grove run says the database is locked and what to do, after waiting its 5 s, and changes nothing', async () => {
    h.utilities();
    h.server.script('anthropic', [{ when: 'First task', text: reply('Done.') }]);
    expectExit(await h.grove(['run', 'First task']), 0);
    const holder = new Database(dbFile());
    holder.exec('BEGIN IMMEDIATE');
    try {
      const run = await h.grove(['run', 'A prompt I want back']);

      expectExit(run, 1);
      expect(run.stderr).toContain('grove.db is locked: another program has held it');
      expect(run.stderr).toContain('close what holds it');
      expect(run.stderr).not.toContain('check its permissions');
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
    }
  }, 60_000);

  it('a real SQLITE_BUSY and a real SQLITE_FULL each get their own words', () => {
    const file = join(h.world.dir, 'plain.db');
    const first = new Database(file);
    first.exec('CREATE TABLE t (x TEXT)');
    const second = new Database(file, { timeout: 0 });
    first.exec('BEGIN IMMEDIATE');
    let busy: unknown = null;
    try {
      second.exec("INSERT INTO t VALUES ('x')");
    } catch (error) {
      busy = error;
    }
    first.exec('ROLLBACK');
    const pages = first.pragma('page_count', { simple: true }) as number;
    first.pragma(`max_page_count = ${pages}`);
    let full: unknown = null;
    try {
      first.prepare('INSERT INTO t VALUES (?)').run('y'.repeat(200_000));
    } catch (error) {
      full = error;
    }
    first.close();
    second.close();

    expect(storageFailure(busy)).toMatch(/^the database is locked/);
    expect(storageFailure(full)).toMatch(/^the disk is full/);
  });
});
