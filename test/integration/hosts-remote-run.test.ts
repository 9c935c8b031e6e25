import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import type { Host } from '../../src/domain/host.js';
import { shellCommand } from '../../src/infra/hosts/quote.js';
import {
  cancelRun,
  followRun,
  runStatus,
  startRun,
  type RemoteRunner,
} from '../../src/infra/hosts/remote-run.js';
import { controlDir, createSsh } from '../../src/infra/hosts/ssh.js';
import { killIfAlive, liveProcesses } from '../helpers/processes.js';
import { sshdIt, sshdProblem, startSshd, type TestHost } from '../helpers/sshd.js';
import { waitUntil } from '../helpers/wait.js';

// A detached command on a host, read by byte offset (issue 24), against the
// private sshd that logs in as a second unix user (test/helpers/sshd.ts). The
// link is dropped by killing, by pid, the ssh processes this file's Grove
// started (their command lines name its own GROVE_HOME's socket folder).

const it = sshdIt();
const ROOT = `.grove-test-run-${process.pid}`;
let sshd: TestHost | undefined;
let groveHome: string;
let sockets: string;
let runner: RemoteRunner;
/** Every run this file started, cancelled at the end if still running. */
const started: string[] = [];

function h(): TestHost {
  if (!sshd) throw new Error('no test sshd');
  return sshd;
}

function runDir(runId: string): string {
  return `${h().home}/${ROOT}/runs/${runId}`;
}

/** The live processes of a process group on the host, as its `ps` sees them. */
function groupOnHost(pgid: number): string[] {
  return h()
    .ssh('ps -eo pgid=,stat=,args=')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.split(/\s+/)[0] === String(pgid) && !/^\S+\s+Z/.test(line));
}

beforeAll(async () => {
  groveHome = mkdtempSync(join(tmpdir(), 'grove-remote-run-home-'));
  if (sshdProblem() !== null) return;
  sshd = await startSshd();
  const dir = controlDir(groveHome);
  if (dir === null) throw new Error('no control folder');
  sockets = dir;
  const host: Host = { name: 'test', destination: sshd.alias, root: ROOT, createdAt: 0 };
  runner = {
    host,
    ssh: createSsh({ env: process.env, controlDir: sockets, configFile: sshd.config }),
  };
}, 30_000);

afterAll(async () => {
  if (sshd) {
    for (const runId of started)
      if ((await runStatus(runner, runId)) === null) await cancelRun(runner, runId);
    h().ssh(shellCommand(['rm', '-rf', '--', `${h().home}/${ROOT}`]));
    await runner.ssh.close(h().alias);
    await sshd.stop();
  }
  rmSync(groveHome, { recursive: true, force: true });
});

/** Prints `line 1`…`line N` slowly, waits for a `release` file in its folder, then prints the rest. */
function numbered(first: number, held: number, total: number): string {
  return (
    `i=1; while [ $i -le ${total} ]; do echo "line $i"; ` +
    `if [ $i -eq ${held} ]; then while [ ! -e release ]; do sleep 0.05; done; fi; ` +
    `i=$((i + 1)); [ $i -gt ${first} ] && sleep 0.02; done`
  );
}

describe('a detached run on a host', () => {
  it('keeps running through a dropped link, and its output comes back once, in order, from the last offset', async () => {
    const total = 60;
    const run = await startRun(runner, numbered(5, 20, total));
    started.push(run.runId);
    const chunks: Buffer[] = [];
    let dropped = false;
    const reconnects: number[] = [];
    let received = 0;

    const following = followRun(runner, run.runId, {
      offset: 0,
      onData: (chunk) => {
        chunks.push(chunk);
        received += chunk.length;
      },
      onReconnect: (_attempt, offset) => reconnects.push(offset),
    });
    // Mid-stream: some lines are here, the rest are held on the host.
    await waitUntil(
      'the first lines arrive',
      () => Buffer.concat(chunks).toString().includes('line 5\n'),
      20_000,
    );
    const ours = liveProcesses().filter(
      (p) => p.cmdline.startsWith('ssh') && p.cmdline.includes(sockets),
    );
    expect(ours.some((p) => p.cmdline.startsWith('ssh: '))).toBe(true); // the shared connection
    for (const p of ours) killIfAlive(p.pid); // the shared connection's end may end the others first
    dropped = true;
    const atDrop = received;

    // The run did not go with the link: its process group is alive on the host.
    expect(groupOnHost(run.pgid).length).toBeGreaterThan(0);
    h().ssh(shellCommand(['touch', '--', `${runDir(run.runId)}/release`]));
    const end = await following;

    const text = Buffer.concat(chunks).toString();
    const expected = Array.from({ length: total }, (_, i) => `line ${i + 1}\n`).join('');
    expect(dropped).toBe(true);
    expect(reconnects.length).toBeGreaterThan(0);
    expect(reconnects[0]).toBeGreaterThanOrEqual(atDrop);
    expect(text).toBe(expected);
    expect(end).toEqual({ offset: Buffer.byteLength(expected), exitCode: 0 });
    expect(await runStatus(runner, run.runId)).toBe(0);
  });

  it('reads the output from any byte offset, stdout and stderr apart, once the run is over', async () => {
    const run = await startRun(runner, 'printf "héllo\\nwörld\\n"; echo oops >&2; exit 7');
    started.push(run.runId);
    const read = async (offset: number, stream: 'out' | 'err'): Promise<string> => {
      const chunks: Buffer[] = [];
      const end = await followRun(runner, run.runId, {
        offset,
        stream,
        onData: (c) => chunks.push(c),
      });
      expect(end.exitCode).toBe(7);
      return Buffer.concat(chunks).toString();
    };

    expect(await read(0, 'out')).toBe('héllo\nwörld\n');
    expect(await read(Buffer.byteLength('héllo\n'), 'out')).toBe('wörld\n');
    expect(await read(0, 'err')).toBe('oops\n');
  });

  it('passes its command as one quoted string, and never runs the words of an argument', async () => {
    const words = ['printf', '%s|', 'it\'s "quoted"', '$HOME', '`id`', '; touch pwned'];
    const run = await startRun(runner, shellCommand(words));
    started.push(run.runId);
    const chunks: Buffer[] = [];
    await followRun(runner, run.runId, { offset: 0, onData: (c) => chunks.push(c) });

    expect(Buffer.concat(chunks).toString()).toBe('it\'s "quoted"|$HOME|`id`|; touch pwned|');
    expect(
      h().ssh(`test -e ${shellCommand([`${runDir(run.runId)}/pwned`])} && echo yes || echo no`),
    ).toBe('no\n');
  });

  it('is cancelled as a whole: no process of its group remains on the host', async () => {
    const run = await startRun(runner, 'sleep 300 & sleep 301 & (sleep 302; echo never) & wait');
    started.push(run.runId);
    await waitUntil('its children start', () => groupOnHost(run.pgid).length >= 4, 20_000);

    await cancelRun(runner, run.runId);

    expect(groupOnHost(run.pgid)).toEqual([]);
    expect(await runStatus(runner, run.runId)).toBe(143);
    const end = await followRun(runner, run.runId, { offset: 0, onData: () => undefined });
    expect(end.exitCode).toBe(143);
  });

  it('believes none of the run files the agent can write: an early exit file, a pid file naming another process, an offset past the output', async () => {
    const run = await startRun(runner, 'echo one; sleep 4; echo two; exit 3');
    started.push(run.runId);
    const dir = runDir(run.runId);
    // Another process of the host user, in a group of its own.
    const decoy = Number(
      h().ssh(`setsid sh -c 'exec sleep 305' </dev/null >/dev/null 2>&1 & echo $!`).trim(),
    );
    h().ssh(`echo 0 > ${dir}/exit; echo ${String(decoy)} > ${dir}/pid`);
    // The run goes on: its leader lives, whatever the exit file says.
    expect(await runStatus(runner, run.runId, undefined, run.pgid)).toBeNull();
    const chunks: Buffer[] = [];
    const end = await followRun(runner, run.runId, {
      offset: 0,
      pgid: run.pgid,
      onData: (c) => chunks.push(c),
    });
    expect(Buffer.concat(chunks).toString()).toBe('one\ntwo\n');
    expect(end.exitCode).toBe(3);
    await expect(
      followRun(runner, run.runId, { offset: 100, pgid: run.pgid, onData: () => undefined }),
    ).rejects.toThrow(/shorter than the 100 bytes/);

    const held = await startRun(runner, 'sleep 306');
    started.push(held.runId);
    h().ssh(`echo ${String(decoy)} > ${runDir(held.runId)}/pid`);
    await cancelRun(runner, held.runId, undefined, held.pgid);
    expect(groupOnHost(held.pgid)).toEqual([]);
    // The process the pid file named was left alone.
    expect(groupOnHost(decoy)).toHaveLength(1);
    h().ssh(`kill ${String(decoy)}; true`);
  });

  it('refuses a run id that is not one of its own', async () => {
    await expect(runStatus(runner, '../../etc')).rejects.toThrow(/is not a run id/);
    await expect(
      followRun(runner, 'r-000000000000000000000000', { offset: 0, onData: () => undefined }),
    ).rejects.toThrow(/run r-0+ is no longer on test \(its folder is gone/);
  });
});
