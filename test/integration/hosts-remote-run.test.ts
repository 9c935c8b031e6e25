import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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
/** The boot id the host-side scripts read (GROVE_HOST_BOOT_ID_FILE, set by the sshd: root's file, not the host user's). */
let bootDir: string;
const bootFile = (): string => join(bootDir, 'boot_id');
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
  bootDir = mkdtempSync(join(tmpdir(), 'grove-remote-run-boot-'));
  chmodSync(bootDir, 0o755);
  writeFileSync(bootFile(), '6f1c2a4e-0000-4000-8000-000000000001\n', { mode: 0o644 });
  if (sshdProblem() !== null) return;
  sshd = await startSshd({ env: { GROVE_HOST_BOOT_ID_FILE: bootFile() } });
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
  rmSync(bootDir, { recursive: true, force: true });
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

  it('tells a host that restarted from a process killed there by the boot id the run started under', async () => {
    // Killed on the host with no exit file, the boot id unchanged: the process was killed.
    const killed = await startRun(runner, 'echo before; sleep 307');
    started.push(killed.runId);
    await waitUntil('it sleeps', () => groupOnHost(killed.pgid).length >= 2, 20_000);
    h().ssh(`kill -KILL -${String(killed.pgid)}`);
    await expect(
      followRun(runner, killed.runId, { offset: 0, pgid: killed.pgid, onData: () => undefined }),
    ).rejects.toThrow(
      /process on test is gone and left no exit code \(something on test killed it; the host did not restart/,
    );

    // The same, and the boot id changed (a reboot): said so, and the output before it still read.
    const rebooted = await startRun(runner, 'echo before; sleep 308');
    started.push(rebooted.runId);
    await waitUntil('it sleeps', () => groupOnHost(rebooted.pgid).length >= 2, 20_000);
    h().ssh(`kill -KILL -${String(rebooted.pgid)}`);
    writeFileSync(bootFile(), '6f1c2a4e-0000-4000-8000-000000000002\n');
    const chunks: Buffer[] = [];
    await expect(
      followRun(runner, rebooted.runId, {
        offset: 0,
        pgid: rebooted.pgid,
        onData: (c) => chunks.push(c),
      }),
    ).rejects.toThrow(
      'test restarted during the turn (its boot id changed); the agent was stopped by the restart. What it wrote is kept.',
    );
    expect(Buffer.concat(chunks).toString()).toBe('before\n');
  });

  it('a boot file the agent rewrote changes only the words: nothing in it runs, and a live run is followed to its end', async () => {
    const run = await startRun(runner, 'echo one; sleep 3; echo two');
    started.push(run.runId);
    const dir = runDir(run.runId);
    h().ssh(`printf '%s' '$(touch pwned)\`touch pwned2\`; touch pwned3' > ${dir}/boot`);
    const chunks: Buffer[] = [];
    const end = await followRun(runner, run.runId, {
      offset: 0,
      pgid: run.pgid,
      onData: (c) => chunks.push(c),
    });
    expect(Buffer.concat(chunks).toString()).toBe('one\ntwo\n');
    expect(end.exitCode).toBe(0);

    const held = await startRun(runner, 'sleep 309');
    started.push(held.runId);
    h().ssh(`printf '%s' '$(touch pwned)' > ${runDir(held.runId)}/boot`);
    h().ssh(`kill -KILL -${String(held.pgid)}`);
    await expect(
      followRun(runner, held.runId, { offset: 0, pgid: held.pgid, onData: () => undefined }),
    ).rejects.toThrow(/restarted during the turn/);
    for (const folder of [dir, runDir(held.runId), h().home])
      expect(h().ssh(`ls -a ${shellCommand([folder])}`)).not.toMatch(/pwned/);
  });

  it('refuses a run id that is not one of its own', async () => {
    await expect(runStatus(runner, '../../etc')).rejects.toThrow(/is not a run id/);
    await expect(
      followRun(runner, 'r-000000000000000000000000', { offset: 0, onData: () => undefined }),
    ).rejects.toThrow(/run r-0+ is no longer on test \(its folder is gone/);
  });
});
