import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import type { Host, HostPlace } from '../../src/domain/host.js';
import type { RemoteServerProcess } from '../../src/infra/agent/channel.js';
import { shellCommand } from '../../src/infra/hosts/quote.js';
import { startRemoteServer } from '../../src/infra/hosts/remote-server.js';
import { controlDir, createSsh, type Ssh } from '../../src/infra/hosts/ssh.js';
import { killIfAlive, liveProcesses } from '../helpers/processes.js';
import { sshdIt, sshdProblem, startSshd, type TestHost } from '../helpers/sshd.js';
import { waitUntil } from '../helpers/wait.js';

// A long-lived two-way process on a host (issue 24, item 4: Codex's
// app-server), against the private sshd that logs in as a second unix user.
// The process here is `cat`: what reaches its stdin comes back on its stdout,
// so a line lost or doubled on the way in shows. The link is dropped by
// killing, by pid, the ssh processes this file's Grove started while they
// carry lines to the host, so some die mid-transfer and are sent again.

const it = sshdIt();
const ROOT = `.grove-test-server-${process.pid}`;
let sshd: TestHost | undefined;
let groveHome: string;
let sockets: string;
let ssh: Ssh;
let place: HostPlace;

function h(): TestHost {
  if (!sshd) throw new Error('no test sshd');
  return sshd;
}

beforeAll(async () => {
  groveHome = mkdtempSync(join(tmpdir(), 'grove-remote-server-home-'));
  if (sshdProblem() !== null) return;
  sshd = await startSshd();
  const dir = controlDir(groveHome);
  if (dir === null) throw new Error('no control folder');
  sockets = dir;
  ssh = createSsh({ env: process.env, controlDir: sockets, configFile: sshd.config });
  const host: Host = { name: 'test', destination: sshd.alias, root: ROOT, createdAt: 0 };
  const root = `${sshd.home}/${ROOT}`;
  const worktree = `${root}/worktrees/wt`;
  sshd.ssh(shellCommand(['mkdir', '-p', '--', worktree]));
  place = { host, root, mirror: `${root}/repos/none.git`, worktree, branch: 'b', confined: false };
}, 30_000);

afterAll(async () => {
  if (sshd) {
    h().ssh(shellCommand(['rm', '-rf', '--', `${h().home}/${ROOT}`]));
    await ssh.close(h().alias);
    await sshd.stop();
  }
  rmSync(groveHome, { recursive: true, force: true });
});

/** This file's ssh processes that carry lines to the host (their command lines name the input log's lock). */
function appending(): number[] {
  return liveProcesses()
    .filter((p) => p.cmdline.startsWith('ssh') && p.cmdline.includes(sockets))
    .filter((p) => p.cmdline.includes('in.lock'))
    .map((p) => p.pid);
}

/** Every ssh process of this file's Grove, the shared connection included. */
function allSsh(): number[] {
  return liveProcesses()
    .filter((p) => p.cmdline.startsWith('ssh') && p.cmdline.includes(sockets))
    .map((p) => p.pid);
}

function start(): Promise<RemoteServerProcess> {
  return startRemoteServer(ssh, place, {
    command: 'cat',
    args: [],
    stateDir: { variable: 'GROVE_TEST_STATE', fallback: '.grove-test-state' },
  });
}

describe('a long-lived process on a host', () => {
  it('gets every line written to its stdin once and in order, through links dropped mid-transfer', async () => {
    const proc = await start();
    let out = '';
    proc.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    // Long lines, so a transfer lasts long enough to be cut.
    const pad = 'x'.repeat(200_000);
    const lines = Array.from({ length: 24 }, (_, i) => `{"id":${String(i + 1)},"pad":"${pad}"}`);
    let drops = 0;
    for (const [i, line] of lines.entries()) {
      proc.stdin.write(`${line}\n`);
      if (i % 4 === 3) {
        // A transfer is on its way: the link drops under it (the shared connection too).
        await waitUntil('a transfer is under way', () => appending().length > 0, 30_000);
        for (const pid of allSsh()) killIfAlive(pid);
        drops++;
      }
    }
    await waitUntil('every line came back', () => out.split('\n').length > lines.length, 120_000);
    const got = out.split('\n').slice(0, -1);
    expect(drops).toBe(6);
    expect(got.length).toBe(lines.length);
    expect(got.map((l) => (JSON.parse(l) as { id: number }).id)).toEqual(
      lines.map((_, i) => i + 1),
    );
    expect(got).toEqual(lines);
    await proc.stop();
    expect((await proc.exited).code).not.toBe(0);
  }, 240_000);

  it('ends its whole process group on the host when stopped, the feeding tail included', async () => {
    const proc = await start();
    let out = '';
    proc.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    proc.stdin.write('hello\n');
    await waitUntil('the line came back', () => out === 'hello\n', 60_000);
    const ours = (): string =>
      h()
        .ssh('ps -u "$(id -u)" -o args=')
        .split('\n')
        .filter((l) => l.includes(ROOT))
        .join('\n');
    expect(ours()).toContain('tail -c +1 -f');
    await proc.stop();
    await waitUntil('nothing of the run is left', () => ours() === '', 30_000);
  }, 120_000);
});
