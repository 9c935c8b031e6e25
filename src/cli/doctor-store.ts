// `grove doctor`'s checks of Grove's own data: GROVE_HOME (there or
// creatable, private, room on its disk) and the database (intact, and a
// schema this Grove knows). Read-only: doctor changes nothing.
import { accessSync, constants, statSync, statfsSync } from 'node:fs';
import { dirname } from 'node:path';
import type { GrovePaths } from '../infra/paths.js';
import { inspectDatabase } from '../infra/db/inspect.js';
import { MigrationFilesError } from '../infra/db/errors.js';
import { fail, ok, warn, type CheckResult } from './doctor-checks.js';

const MiB = 1024 * 1024;
/** Below this, worktrees and the database may run out of room: warn. */
const LOW_DISK = 1024 * MiB;
/** Below this, Grove is about to fail writing: fail. */
const FULL_DISK = 100 * MiB;

/** The folder itself, or the nearest folder above it that exists (where it would be created). */
function existingAncestor(path: string): string {
  let dir = path;
  for (;;) {
    try {
      statSync(dir);
      return dir;
    } catch {
      const up = dirname(dir);
      if (up === dir) return dir;
      dir = up;
    }
  }
}

function writable(dir: string): boolean {
  try {
    accessSync(dir, constants.W_OK | constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

const octal = (mode: number): string => (mode & 0o777).toString(8).padStart(4, '0');

export function checkGroveHome(paths: GrovePaths): CheckResult {
  const home = paths.home;
  const other = 'or set GROVE_HOME to a folder you own';
  let stat;
  try {
    stat = statSync(home);
  } catch {
    const parent = existingAncestor(home);
    if (!writable(parent))
      return fail(
        'grove-home',
        `${home} does not exist and cannot be created (${parent} is not writable)`,
        `create it (mkdir -m 700 -p ${home}) ${other}`,
      );
    return ok('grove-home', `${home} does not exist yet; Grove creates it on first start`);
  }
  if (!stat.isDirectory())
    return fail('grove-home', `${home} is not a folder`, `move it aside ${other}`);
  if (!writable(home))
    return fail(
      'grove-home',
      `${home} is not writable by you`,
      `fix its owner or permissions (chmod u+rwx ${home}) ${other}`,
    );
  if (process.platform !== 'win32' && (stat.mode & 0o077) !== 0) {
    return warn(
      'grove-home',
      `${home} is readable by other users (mode ${octal(stat.mode)}, should be 0700): it holds transcripts, diffs and logs`,
      `chmod 700 ${home}`,
    );
  }
  return ok('grove-home', `${home} (mode ${octal(stat.mode)})`);
}

function size(bytes: number): string {
  return bytes >= 1024 * MiB
    ? `${(bytes / (1024 * MiB)).toFixed(1)} GiB`
    : `${Math.round(bytes / MiB)} MiB`;
}

export function checkDisk(paths: GrovePaths): CheckResult {
  const dir = existingAncestor(paths.home);
  let free: number;
  try {
    const fs = statfsSync(dir);
    free = fs.bavail * fs.bsize;
  } catch (error) {
    return warn(
      'disk',
      `cannot read the free space of ${dir} (${error instanceof Error ? error.message : String(error)})`,
      null,
    );
  }
  const fix = `free space on the disk of ${dir}, or set GROVE_HOME to a folder on a larger disk`;
  if (free < FULL_DISK)
    return fail(
      'disk',
      `only ${size(free)} free for ${paths.home} (worktrees and the database live there)`,
      fix,
    );
  if (free < LOW_DISK)
    return warn(
      'disk',
      `only ${size(free)} free for ${paths.home} (worktrees and the database live there)`,
      fix,
    );
  return ok('disk', `${size(free)} free for ${paths.home}`);
}

export function checkDatabase(paths: GrovePaths, migrationsDir: string): CheckResult {
  let report;
  try {
    report = inspectDatabase(paths.database, migrationsDir);
  } catch (error) {
    if (error instanceof MigrationFilesError)
      return fail('database', error.message, 'reinstall Grove (its migrations folder is damaged)');
    throw error;
  }
  switch (report.state) {
    case 'absent':
      return ok(
        'database',
        `${paths.database} does not exist yet; Grove creates it on first start`,
      );
    case 'ok': {
      const pending = report.shipped - report.schema;
      const schema = `schema version ${report.schema} of ${report.shipped}`;
      return ok(
        'database',
        `${paths.database}: quick_check ok, ${schema}${pending > 0 ? ` (Grove applies the ${pending} newer migration${pending === 1 ? '' : 's'} on its next start)` : ''}`,
      );
    }
    case 'refused': {
      const { error } = report;
      // The message ends with what to do; split it so the fix has its own field.
      const [detail, fix] = splitFix(error.message);
      switch (error.reason) {
        case 'native_module':
          return fail(
            'database',
            'cannot be checked: better-sqlite3 does not load (see the sqlite check)',
            error.native?.fix ?? fix,
          );
        case 'not_sqlite':
        case 'empty':
        case 'corrupt':
        case 'newer':
        case 'edited':
        case 'unreadable':
        case 'locked':
        case 'full':
          return fail('database', detail, fix);
      }
    }
  }
}

/** "X is damaged (…); restore it from a backup …." → ["X is damaged (…)", "restore it from a backup …"]. */
function splitFix(message: string): [string, string] {
  const at = message.lastIndexOf('; ');
  if (at === -1) return [message, 'move the file aside or set GROVE_HOME to another folder'];
  return [message.slice(0, at), message.slice(at + 2).replace(/\.$/, '')];
}
