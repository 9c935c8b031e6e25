import { createHash } from 'node:crypto';
import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as z from 'zod/mini';
import { isOwnerAlive, processOwner, processStartTime } from '../../owner.js';

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
  /** The session the agent works for (absent for Grove's own prompts and older records). */
  session: z.optional(z.string()),
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
  sessionId?: string,
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
        ...(sessionId === undefined ? {} : { session: sessionId }),
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

/**
 * The agents running now for a session, by session id, from the records of
 * every Grove process (a headless command's view of agents the TUI or another
 * command started). A record whose group leader is gone, or whose pid now
 * belongs to another process, is left out; nothing is removed.
 */
export function recordedAgents(runDir: string): ReadonlyMap<string, readonly number[]> {
  const bySession = new Map<string, number[]>();
  let names: string[];
  try {
    names = readdirSync(agentsDir(runDir)).filter((n) => n.endsWith('.json'));
  } catch {
    return bySession;
  }
  for (const name of names) {
    let parsed;
    try {
      parsed = Record.safeParse(JSON.parse(readFileSync(join(agentsDir(runDir), name), 'utf8')));
    } catch {
      continue;
    }
    if (!parsed.success || parsed.data.session === undefined) continue;
    const { pgid, startTime, session } = parsed.data;
    const leaderStart = processStartTime(pgid);
    if (leaderStart === null || (startTime !== null && leaderStart !== startTime)) continue;
    const pids = bySession.get(session);
    if (pids) pids.push(pgid);
    else bySession.set(session, [pgid]);
  }
  return bySession;
}

// A confined agent's private temporary folder is named after the Grove process
// that made it: grove-agent-<pid>-<start tag>-XXXXXX in the system's temporary
// folder. Its Grove removes it when the agent ends; a Grove killed with -9
// cannot, and the start-up sweep removes the folders of Grove processes that
// are gone (by pid and start time: a pid reused by another process counts as
// gone), never one of a Grove still running.

const AGENT_TMP = /^grove-agent-(\d+)-([0-9a-f]{12}|x)-[A-Za-z0-9]+$/;

/** A short tag of when process `pid` started ("x" when the OS does not say). */
function startTag(pid: number): string {
  const start = processStartTime(pid);
  return start === null ? 'x' : createHash('sha256').update(start).digest('hex').slice(0, 12);
}

let ownTag: string | null = null;

/** Makes a confined agent's private temporary folder (mode 0700), named after this process. */
export function makeAgentTmp(root: string = tmpdir()): string {
  ownTag ??= startTag(process.pid);
  return realpathSync(mkdtempSync(join(root, `grove-agent-${process.pid}-${ownTag}-`)));
}

/** Whether a process with this pid exists (another user's counts too). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes the agents' temporary folders of Grove processes that are gone;
 * the number removed. Folders of this process, of a live Grove, of another
 * user, and folders named the old way (no owner in the name) stay.
 */
export function sweepAgentTmpFolders(root: string = tmpdir()): number {
  let names: string[];
  try {
    names = readdirSync(root);
  } catch {
    return 0;
  }
  const uid = process.getuid?.();
  let removed = 0;
  for (const name of names) {
    const match = AGENT_TMP.exec(name);
    if (!match) continue;
    const pid = Number(match[1]);
    const tag = match[2] ?? 'x';
    if (pid === process.pid) continue;
    if (pidAlive(pid)) {
      // A pid now used by a process that started at another time is not that Grove.
      const now = startTag(pid);
      if (tag === 'x' || now === 'x' || now === tag) continue;
    }
    const path = join(root, name);
    try {
      const info = lstatSync(path);
      if (!info.isDirectory() || (uid !== undefined && info.uid !== uid)) continue;
      rmSync(path, { recursive: true, force: true });
      removed += 1;
    } catch {
      // Gone meanwhile, or not ours to remove.
    }
  }
  return removed;
}
