// Raw execFileSync, not execa: isOwnerAlive answers synchronously (macOS only; Linux reads /proc).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { LEASE_MS } from './db/operation-repo.js';

// An owner id names the Grove process that queues or runs an operation, holds
// a git step or evaluates a best-of-N group: `host:pid@start`, where `start`
// is when the process started as the OS reports it. A pid the OS has since
// given to another process then does not pass for the owner. Ids written
// before the start time was recorded (`host:pid`) are still read: for them
// only the pid is checked.

/** Fields 3 onwards of /proc/<pid>/stat (after the command name, which may hold spaces and parentheses); null when unknown. */
function procStat(pid: number): string[] | null {
  if (process.platform !== 'linux') return null;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/** When process `pid` started, as the OS reports it (null when it is gone or unknown). */
export function processStartTime(pid: number): string | null {
  try {
    // Linux: starttime, field 22 (clock ticks since boot).
    if (process.platform === 'linux') return procStat(pid)?.[19] ?? null;
    const started = execFileSync('ps', ['-o', 'lstart=', '-p', String(pid)], {
      encoding: 'utf8',
      timeout: 3000,
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
    return started || null;
  } catch {
    return null;
  }
}

/** The owner id of process `pid` on this host (without a start time when the OS does not say it). */
export function ownerOf(pid: number): string {
  const start = processStartTime(pid);
  return `${hostname()}:${pid}${start === null ? '' : `@${start}`}`;
}

let self: string | null = null;

/** This process as the owner of the operations it queues and runs: `host:pid@start`. */
export function processOwner(): string {
  self ??= ownerOf(process.pid);
  return self;
}

interface OwnerId {
  readonly host: string;
  readonly pid: number;
  /** null in ids written before start times were recorded, or when the OS did not say. */
  readonly start: string | null;
}

function parseOwner(owner: string): OwnerId | null {
  const at = owner.indexOf('@');
  const base = at === -1 ? owner : owner.slice(0, at);
  const colon = base.lastIndexOf(':');
  const pid = Number(base.slice(colon + 1));
  if (colon <= 0 || !Number.isInteger(pid) || pid <= 0) return null;
  return { host: base.slice(0, colon), pid, start: at === -1 ? null : owner.slice(at + 1) };
}

/**
 * True when the owner of an operation may still be working on it.
 * On this host: its process exists, has not ended (a zombie counts as
 * gone) and started when the id says (a pid reused by another process
 * counts as gone). On another host (a GROVE_HOME
 * shared over the network) the process cannot be looked up: it counts as
 * alive until its lease heartbeat is older than LEASE_MS (with no heartbeat
 * — a queued operation — it counts as alive). `self` is the asking process,
 * which owns nothing yet at start-up, so its own pid counts as gone.
 */
export function isOwnerAlive(
  owner: string | null,
  self: string,
  heartbeatAt: number | null = null,
  now: number = Date.now(),
): boolean {
  if (!owner || owner === self) return false;
  const id = parseOwner(owner);
  if (!id) return false;
  const me = parseOwner(self);
  if (me && me.host === id.host && me.pid === id.pid) return false;
  if (id.host !== hostname()) return heartbeatAt === null || now - heartbeatAt < LEASE_MS;
  try {
    process.kill(id.pid, 0);
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  // A zombie (ended, not yet reaped by its parent) still answers kill(pid, 0), but works on nothing.
  const stat = procStat(id.pid);
  if (stat?.[0] === 'Z' || stat?.[0] === 'X') return false;
  if (id.start === null) return true;
  const start = stat ? (stat[19] ?? null) : processStartTime(id.pid);
  // Unknown now (e.g. no `ps`): the pid alone decides, as before.
  return start === null || start === id.start;
}
