import { hostname } from 'node:os';
import { LEASE_MS } from './db/operation-repo.js';

/** This process as the owner of the operations it queues and runs: `host:pid`. */
export function processOwner(): string {
  return `${hostname()}:${process.pid}`;
}

/**
 * True when the `host:pid` owner of an operation may still be working on it.
 * On this host: its process exists. On another host (a GROVE_HOME shared
 * over the network) the process cannot be looked up: it counts as alive
 * until its lease heartbeat is older than LEASE_MS (with no heartbeat — a
 * queued operation — it counts as alive). `self` is the asking process,
 * which owns nothing yet at start-up, so its own id counts as gone.
 */
export function isOwnerAlive(
  owner: string | null,
  self: string,
  heartbeatAt: number | null = null,
  now: number = Date.now(),
): boolean {
  if (!owner || owner === self) return false;
  const colon = owner.lastIndexOf(':');
  const host = owner.slice(0, colon);
  const pid = Number(owner.slice(colon + 1));
  if (colon <= 0 || !Number.isInteger(pid) || pid <= 0) return false;
  if (host !== hostname()) return heartbeatAt === null || now - heartbeatAt < LEASE_MS;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
