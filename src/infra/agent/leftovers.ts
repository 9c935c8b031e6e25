import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as z from 'zod/mini';
import { isOwnerAlive, processOwner, processStartTime } from '../owner.js';

// Every agent process group Grove starts is recorded in GROVE_HOME/run/agents/
// (one file per group) and forgotten when it ends. The watchdog normally ends
// agents with Grove; the start-up sweep ends whatever is left of a Grove
// process that is gone, before recovery looks at any worktree.

const Record = z.object({
  pgid: z.number(),
  startTime: z.nullable(z.string()),
  owner: z.string(),
  provider: z.string(),
  startedAt: z.number(),
});

function agentsDir(runDir: string): string {
  return join(runDir, 'agents');
}

/** Records a started process group; returns the record's path (for forgetProcess). */
export function recordProcess(
  runDir: string,
  pgid: number,
  provider: string,
  now = Date.now(),
): string | null {
  try {
    const dir = agentsDir(runDir);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const path = join(dir, `${pgid}.json`);
    writeFileSync(
      path,
      JSON.stringify({
        pgid,
        startTime: processStartTime(pgid),
        owner: processOwner(),
        provider,
        startedAt: now,
      }),
      { mode: 0o600 },
    );
    return path;
  } catch {
    // The sweep is a second line of defence; the watchdog still ends the agent.
    return null;
  }
}

export function forgetProcess(path: string): void {
  rmSync(path, { force: true });
}

function groupExists(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function waitGone(pgid: number, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (groupExists(pgid) && Date.now() < until) await new Promise((done) => setTimeout(done, 20));
}

/**
 * Ends the recorded agent process groups whose Grove process is gone (not
 * this one, nor another Grove still running) and waits for them to go.
 * A group whose leader's pid now belongs to another process is left alone.
 * Returns the number of groups it ended.
 */
export async function sweepLeftoverAgents(
  runDir: string,
  self: string = processOwner(),
): Promise<number> {
  let names: string[];
  try {
    names = readdirSync(agentsDir(runDir)).filter((n) => n.endsWith('.json'));
  } catch {
    return 0;
  }
  let ended = 0;
  for (const name of names) {
    const path = join(agentsDir(runDir), name);
    let record: z.infer<typeof Record>;
    try {
      const parsed = Record.safeParse(JSON.parse(readFileSync(path, 'utf8')));
      if (!parsed.success) {
        forgetProcess(path);
        continue;
      }
      record = parsed.data;
    } catch {
      forgetProcess(path);
      continue;
    }
    if (record.owner === self || isOwnerAlive(record.owner, self)) continue;
    const leaderStart = processStartTime(record.pgid);
    const sameLeader =
      leaderStart === null || record.startTime === null || leaderStart === record.startTime;
    if (sameLeader && groupExists(record.pgid)) {
      try {
        process.kill(-record.pgid, 'SIGKILL');
        ended += 1;
      } catch {
        // Gone in the meantime.
      }
      await waitGone(record.pgid, 3000);
    }
    forgetProcess(path);
  }
  return ended;
}
