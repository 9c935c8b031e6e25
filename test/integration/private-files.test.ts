import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openInfra } from '../../src/compose.js';
import { openDatabase } from '../../src/infra/db/database.js';
import { createFileLogger } from '../../src/infra/log.js';

// GROVE_HOME holds prompts, transcripts and logs: only its owner may read it.

const MIGRATIONS = fileURLToPath(new URL('../../migrations/', import.meta.url));

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'grove-private-'));
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function mode(path: string): string {
  return (statSync(path).mode & 0o777).toString(8);
}

describe('private by default', () => {
  it('a new GROVE_HOME is 0700, its database, -wal and -shm files and its log 0600', async () => {
    const home = join(dir, 'grove-home');
    const infra = openInfra({ GROVE_HOME: home, HOME: dir, PATH: process.env['PATH'] ?? '' });
    infra.logger.log('info', 'hello');
    await infra.store.projects.upsert('/repo', 'repo', Date.now());

    expect(mode(home)).toBe('700');
    expect(mode(join(home, 'db'))).toBe('700');
    expect(mode(join(home, 'logs'))).toBe('700');
    expect(mode(infra.paths.database)).toBe('600');
    expect(mode(`${infra.paths.database}-wal`)).toBe('600');
    expect(mode(`${infra.paths.database}-shm`)).toBe('600');
    expect(mode(infra.paths.logFile)).toBe('600');
    await infra.db.close();
  });

  it('an existing GROVE_HOME readable by others is tightened at start-up', async () => {
    const home = join(dir, 'grove-home');
    mkdirSync(home, { mode: 0o755 });
    chmodSync(home, 0o755);

    const infra = openInfra({ GROVE_HOME: home, HOME: dir, PATH: process.env['PATH'] ?? '' });

    expect(mode(home)).toBe('700');
    await infra.db.close();
  });

  it('an existing database with its -wal and -shm files readable by others is tightened when opened', async () => {
    const file = join(dir, 'db', 'grove.db');
    const first = openDatabase(file, MIGRATIONS);
    first.sqlite.exec("INSERT INTO setting (name, value) VALUES ('k', 'v')");
    // Left open elsewhere so -wal and -shm stay, as an older Grove made them.
    for (const path of [file, `${file}-wal`, `${file}-shm`]) chmodSync(path, 0o644);

    const second = openDatabase(file, MIGRATIONS);

    expect([mode(file), mode(`${file}-wal`), mode(`${file}-shm`)]).toEqual(['600', '600', '600']);
    await second.close();
    await first.close();
  });

  it('an existing log file readable by others is tightened on the first line logged', () => {
    const file = join(dir, 'logs', 'grove.log');
    mkdirSync(join(dir, 'logs'));
    writeFileSync(file, 'old line\n', { mode: 0o644 });
    chmodSync(file, 0o644);

    createFileLogger(file).log('info', 'new line');

    expect(mode(file)).toBe('600');
  });
});
