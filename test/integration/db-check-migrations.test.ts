import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { validateMigrationNames } from '../../src/infra/db/migrate.js';

const SCRIPT = fileURLToPath(new URL('../../xtask/check-migrations.mjs', import.meta.url));
const MIGRATIONS = fileURLToPath(new URL('../../migrations/', import.meta.url));

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'grove-check-migrations-'));
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function check(folder: string): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [SCRIPT, folder], { encoding: 'utf8' });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

function files(names: readonly string[]): void {
  for (const name of names) writeFileSync(join(dir, name), 'SELECT 1;\n');
}

describe('xtask/check-migrations.mjs', () => {
  it('passes the shipped migrations and counts them', () => {
    const result = check(MIGRATIONS);

    expect(result.status).toBe(0);
    expect(result.stdout.trim()).toBe(`migrations ok (${readdirSync(MIGRATIONS).length} files)`);
  });

  it.each([
    [['001_a.sql', '003_c.sql']],
    [['001_a.sql', '001_b.sql']],
    [['002_a.sql']],
    [['001_a.sql', 'Notes.txt']],
  ])('fails with the same problems as validateMigrationNames for %j', (names) => {
    files(names);

    const result = check(dir);

    expect(result.status).toBe(1);
    const reported = result.stderr
      .trim()
      .split('\n')
      .map((line) => line.replace(/^check-migrations: /, ''));
    expect(reported).toEqual(validateMigrationNames(names));
  });

  it('fails on an empty migration file', () => {
    writeFileSync(join(dir, '001_a.sql'), '  \n');

    const result = check(dir);

    expect(result.status).toBe(1);
    expect(result.stderr).toContain('001_a.sql is empty');
  });
});
