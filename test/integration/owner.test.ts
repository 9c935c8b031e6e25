import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sweepLeftoverAgents } from '../../src/infra/agent/confine/leftovers.js';
import { isOwnerAlive, ownerOf, processOwner, processStartTime } from '../../src/infra/owner.js';
import { liveGroupMembers } from '../helpers/processes.js';
import { until } from './headless-harness.js';

// A process id the OS gave to another process after its owner ended must not
// pass for that owner: owner ids carry the process's start time, and a live
// pid whose start time differs counts as gone. Real processes throughout.

const children: ChildProcess[] = [];
let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'grove-owner-'));
});

afterEach(() => {
  for (const child of children.splice(0)) {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    } catch {
      child.kill('SIGKILL');
    }
  }
  rmSync(dir, { recursive: true, force: true });
});

/** A live process (its own process group) and its pid. */
function liveProcess(): number {
  const child = spawn('sh', ['-c', 'sleep 300 & sleep 300'], { detached: true, stdio: 'ignore' });
  children.push(child);
  if (child.pid === undefined) throw new Error('no pid');
  return child.pid;
}

/** The same pid, as a record made for a process that started at another time would name it. */
function reusedOwner(pid: number): string {
  const start = processStartTime(pid);
  expect(start).not.toBeNull();
  return `${hostname()}:${pid}@${String(Number(start) + 1)}`;
}

describe('owner ids with start times', () => {
  it('name this process with its start time', () => {
    expect(processOwner()).toBe(`${hostname()}:${process.pid}@${processStartTime(process.pid)}`);
  });

  it('count a live process recorded with its real start time as alive', () => {
    const pid = liveProcess();

    expect(isOwnerAlive(ownerOf(pid), processOwner())).toBe(true);
  });

  it('count the same live pid recorded with another start time as gone', () => {
    const pid = liveProcess();

    expect(isOwnerAlive(reusedOwner(pid), processOwner())).toBe(false);
  });

  it('still read an id written without a start time by the pid alone', () => {
    const pid = liveProcess();

    expect(isOwnerAlive(`${hostname()}:${pid}`, processOwner())).toBe(true);
  });

  it('count a process that has ended but was not reaped yet (a zombie) as gone', async () => {
    // The background child ends at once; its parent (now `sleep`) never reaps it.
    const parent = spawn('sh', ['-c', 'sleep 0 & echo $!; exec sleep 300'], {
      detached: true,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    children.push(parent);
    const pid = await new Promise<number>((resolve) =>
      parent.stdout?.once('data', (d: Buffer) => resolve(Number(d.toString().trim()))),
    );
    await until(
      'the child to be a zombie',
      () => /\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8')),
      5000,
    );

    expect(isOwnerAlive(ownerOf(pid), processOwner())).toBe(false);
  });

  it('count a process that has ended as gone', async () => {
    const child = spawn('true');
    const owner = await new Promise<string>((resolve) =>
      child.once('spawn', () => resolve(ownerOf(child.pid ?? 0))),
    );
    await new Promise((resolve) => child.once('exit', resolve));
    await until('the process to be reaped', () => !existsSync(`/proc/${child.pid}`), 5000);

    expect(isOwnerAlive(owner, processOwner())).toBe(false);
  });
});

describe('the leftover-agent sweep', () => {
  /** Records a live process group as an agent started by `owner`. */
  function recordAgent(owner: string): { pgid: number; runDir: string } {
    const pgid = liveProcess();
    const runDir = join(dir, 'run');
    mkdirSync(join(runDir, 'agents'), { recursive: true });
    writeFileSync(
      join(runDir, 'agents', `${pgid}.json`),
      JSON.stringify({
        pgid,
        startTime: processStartTime(pgid),
        owner,
        provider: 'claude',
        startedAt: Date.now(),
      }),
    );
    return { pgid, runDir };
  }

  it('ends the agents of an owner whose pid now belongs to another process', async () => {
    // The test runner's parent is alive, but not the process that started at this other time.
    const { pgid, runDir } = recordAgent(reusedOwner(process.ppid));
    await until('the agent to run', () => liveGroupMembers(pgid).length >= 2, 5000);

    const ended = await sweepLeftoverAgents(runDir, processOwner());

    expect(ended).toBe(1);
    expect(liveGroupMembers(pgid)).toEqual([]);
  });

  it('leaves the agents of a live owner running', async () => {
    const { pgid, runDir } = recordAgent(ownerOf(process.ppid));
    await until('the agent to run', () => liveGroupMembers(pgid).length >= 2, 5000);

    const ended = await sweepLeftoverAgents(runDir, processOwner());

    expect(ended).toBe(0);
    expect(liveGroupMembers(pgid).length).toBeGreaterThanOrEqual(2);
  });
});
