// Checks the migration files: names NNN_name.sql, numbered from 001 with no
// gaps or duplicates, none empty. The name rules duplicate
// validateMigrationNames in src/infra/db/migrate.ts (kept in step by
// test/unit/db-migration-names.test.ts), so this runs without a build.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import console from 'node:console';
import process from 'node:process';
import { URL, fileURLToPath } from 'node:url';

const PATTERN = /^(\d{3})_([a-z0-9_]+)\.sql$/;
const pad = (n) => String(n).padStart(3, '0');

/** @param {readonly string[]} fileNames @returns {string[]} */
export function validateMigrationNames(fileNames) {
  const problems = [];
  const byNumber = new Map();
  for (const fileName of [...fileNames].sort()) {
    const match = PATTERN.exec(fileName);
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
  if (versions.length === 0) {
    if (fileNames.length === 0) problems.push('there are no migration files');
    return problems;
  }
  if (versions[0] !== 1)
    problems.push(`migrations must start at 001, the first is ${pad(versions[0])}`);
  for (let i = 1; i < versions.length; i += 1) {
    for (let missing = versions[i - 1] + 1; missing < versions[i]; missing += 1) {
      problems.push(
        `migration ${pad(missing)} is missing (between ${pad(versions[i - 1])} and ${pad(versions[i])})`,
      );
    }
  }
  return problems;
}

function main() {
  const dir = process.argv[2] ?? fileURLToPath(new URL('../migrations/', import.meta.url));
  let fileNames;
  try {
    fileNames = readdirSync(dir, { withFileTypes: true })
      .filter((entry) => entry.isFile() && !entry.name.startsWith('.'))
      .map((entry) => entry.name);
  } catch (error) {
    console.error(`check-migrations: cannot read ${dir}: ${error.message}`);
    process.exit(1);
  }
  const problems = validateMigrationNames(fileNames);
  for (const fileName of fileNames) {
    if (PATTERN.test(fileName) && readFileSync(join(dir, fileName), 'utf8').trim() === '') {
      problems.push(`${fileName} is empty`);
    }
  }
  if (problems.length > 0) {
    for (const problem of problems) console.error(`check-migrations: ${problem}`);
    process.exit(1);
  }
  console.log(`migrations ok (${fileNames.length} files)`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main();
