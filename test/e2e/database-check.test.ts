import { execFileSync } from 'node:child_process';
import { closeSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  GROVE_BIN,
  makeRepo,
  makeWorld,
  startGrove,
  type GroveWorld,
} from '../helpers/grove-env.js';
import { seedSessions, withStore } from '../helpers/seed.js';
import type { TmuxTerminal } from '../helpers/tmux.js';
import { waitUntil } from '../helpers/wait.js';

// The database's whole-file check in the built binary: opening the database
// reads only each table's first page (its cost does not grow with the
// stored history), so damage deep in a table is found by the TUI's check in
// the background after the first frame. The TUI starts, says so, and keeps
// saying it in the header; grove doctor names the same damage.

let world: GroveWorld;
let term: TmuxTerminal | null = null;

beforeEach(() => {
  world = makeWorld();
});

afterEach(async () => {
  await term?.kill();
  term = null;
  world.cleanup();
});

const dbFile = (): string => join(world.groveHome, 'db', 'grove.db');

/** A finished session whose transcript spans many pages, and a live one the list shows. */
async function seedHistory(repo: string): Promise<void> {
  const long: ['assistant_answer', string][] = Array.from({ length: 300 }, (_, i) => [
    'assistant_answer',
    `Answer ${i}: ${'words of an earlier answer '.repeat(60)}`,
  ]);
  await seedSessions(world.groveHome, repo, [
    { title: 'An old finished task', status: 'Done', transcript: long },
    { title: 'A task in review', status: 'Review' },
  ]);
}

/** Overwrites one leaf page in the middle of the transcripts' table (not its root) with garbage. */
function damageTranscriptPage(): number {
  const db = new Database(dbFile(), { readonly: true });
  const pageSize = db.pragma('page_size', { simple: true }) as number;
  const leaves = db
    .prepare(
      "SELECT pageno FROM dbstat WHERE name = 'session_message' AND pagetype = 'leaf' ORDER BY pageno",
    )
    .pluck()
    .all() as number[];
  db.close();
  expect(leaves.length).toBeGreaterThan(10);
  const page = leaves[Math.floor(leaves.length / 2)] ?? 0;
  const fd = openSync(dbFile(), 'r+');
  writeSync(fd, Buffer.alloc(pageSize, 0xab), 0, pageSize, (page - 1) * pageSize);
  closeSync(fd);
  return page;
}

describe('the database check', () => {
  it('finds damage deep in the file after the first frame, says it, and keeps it in the header', async () => {
    const repo = makeRepo(world);
    await seedHistory(repo);
    damageTranscriptPage();

    term = await startGrove(world, repo, { columns: 160 });
    const screen = await term.waitFor('database damaged: quit and run grove doctor', 30_000);
    expect(screen).toContain('A task in review');
    expect(screen).toMatch(/grove\.db is damaged \(SQLite: /);
    // The notice goes after a few seconds; the header keeps the mark.
    await term.waitForGone('is damaged (SQLite:', 20_000);
    expect(await term.screen()).toContain('database damaged: quit and run grove doctor');

    const doctor = (() => {
      try {
        return execFileSync(process.execPath, [GROVE_BIN, 'doctor'], {
          cwd: repo,
          env: world.env(),
          encoding: 'utf8',
        });
      } catch (error) {
        return String((error as { stdout?: string }).stdout ?? '');
      }
    })();
    expect(doctor).toMatch(/grove\.db is damaged \(SQLite: /);
  });

  it('finds a whole database whole, records when, and does not check it again that day', async () => {
    const repo = makeRepo(world);
    await seedHistory(repo);
    const before = Date.now();

    term = await startGrove(world, repo);
    await term.waitFor('A task in review');
    const checkedAt = await waitUntil(
      'the check to record its time',
      () =>
        withStore(world.groveHome, (store) => store.settings.getGlobal('database.checkedAt')).then(
          (value) => value,
        ),
      30_000,
    );
    expect(Number(checkedAt)).toBeGreaterThanOrEqual(before);
    expect(await term.screen()).not.toContain('database damaged');
    await term.kill();
    term = null;

    // Damaged now, but checked less than a day ago: the next start does not read the whole file.
    damageTranscriptPage();
    term = await startGrove(world, repo);
    await term.waitFor('A task in review');
    await waitUntil(
      'the check to be found not due',
      () => readLog().includes('the database check is not due'),
      30_000,
    );
    expect(await term.screen()).not.toContain('database damaged');
    expect(
      await withStore(world.groveHome, (store) => store.settings.getGlobal('database.checkedAt')),
    ).toBe(checkedAt);
  });
});

function readLog(): string {
  try {
    return readFileSync(join(world.groveHome, 'logs', 'grove.log'), 'utf8');
  } catch {
    return '';
  }
}
