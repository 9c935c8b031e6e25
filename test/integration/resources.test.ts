import { execFileSync } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLauncher, type AgentLauncher } from '../../src/infra/agent/confine/launcher.js';
import type { AgentProcess } from '../../src/infra/agent/confine/process.js';
import { recordedAgents } from '../../src/infra/agent/confine/leftovers.js';
import { readProcessTable } from '../../src/infra/proc.js';
import { sampleResources, treeMembers } from '../../src/domain/resources.js';
import { until } from './headless-harness.js';

// What a session's agent tree uses, against real processes: a fake agent
// that starts a child allocating 50 MB and busy-looping, a sleeper, and a
// child that escapes with setsid and a double fork. The figures are checked
// against /proc read another way (each process's children file and VmRSS).

const MB = 1024 * 1024;
let dir: string;
let worktree: string;
let runDir: string;
const started: AgentProcess[] = [];

beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'grove-resources-')));
  worktree = join(dir, 'wt');
  runDir = join(dir, 'run');
  mkdirSync(worktree);
  execFileSync('git', ['init', '-q', '-b', 'main', worktree]);
  writeFileSync(
    join(worktree, 'hog.js'),
    // Touches every page of 50 MB, says so, then spins.
    "const b = Buffer.alloc(50 * 1024 * 1024, 1); process.stdout.write('allocated ' + b.length + '\\n'); for (;;) {}\n",
  );
});

afterEach(() => {
  for (const proc of started.splice(0)) proc.kill(0);
  rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
});

/** The agent script: the hog, a sleeper, and `sleep MARK` escaping by setsid and a double fork. */
function agentScript(mark: number, setsid: boolean): string {
  const escape = setsid ? `(setsid sleep ${mark} &)` : `(sleep ${mark} &)`;
  return `node hog.js & sleep 3000 & ${escape}; echo started; wait`;
}

async function launch(
  launcher: AgentLauncher,
  script: string,
): Promise<{ proc: AgentProcess; out: string[] }> {
  const proc = await launcher.launch({
    provider: 'claude',
    sessionId: 'session-1',
    command: 'sh',
    args: ['-c', script],
    cwd: worktree,
    env: {
      PATH: `${dirname(process.execPath)}:${process.env['PATH'] ?? '/usr/bin:/bin'}`,
      HOME: join(dir, 'home'),
    },
  });
  started.push(proc);
  proc.child.stdin.end();
  const out: string[] = [];
  proc.child.stdout.setEncoding('utf8');
  proc.child.stdout.on('data', (chunk: string) => out.push(...chunk.split('\n').filter(Boolean)));
  return { proc, out };
}

/** The root's descendants as the kernel lists each process's children (/proc/PID/task/TID/children). */
function descendants(root: number): Set<number> {
  const found = new Set<number>();
  const walk = (pid: number): void => {
    if (found.has(pid)) return;
    let state = '';
    try {
      state = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ').at(-1)?.split(' ')[0] ?? '';
    } catch {
      return;
    }
    if (state !== 'Z') found.add(pid);
    let tasks: string[] = [];
    try {
      tasks = readdirSync(`/proc/${pid}/task`);
    } catch {
      return;
    }
    for (const tid of tasks) {
      let children = '';
      try {
        children = readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8');
      } catch {
        continue;
      }
      for (const child of children.trim().split(/\s+/).filter(Boolean)) walk(Number(child));
    }
  };
  walk(root);
  return found;
}

function vmRssBytes(pid: number): number {
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(match?.[1] ?? 0) * 1024;
}

/** The pid (as this machine sees it) of the process running `sleep MARK`. */
function pidOf(mark: number): number | null {
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, 'utf8') === `sleep\0${mark}\0`) return Number(name);
    } catch {
      // Gone.
    }
  }
  return null;
}

describe('the resource figures of an agent tree', () => {
  it('count every process of a confined agent, the one that escaped by setsid and a double fork too', async () => {
    const launcher = createLauncher({ runDir, allowUnconfined: () => Promise.resolve(false) });
    const { proc, out } = await launch(launcher, agentScript(3101, true));
    await until('the hog allocated its memory', () => out.some((l) => l.startsWith('allocated')));
    await until('the escaped sleeper runs', () => pidOf(3101) !== null);

    expect(launcher.running()).toEqual(new Map([['session-1', [proc.pid]]]));
    const first = await readProcessTable();
    expect(first).not.toBeNull();
    if (!first) return;
    const escaped = pidOf(3101) ?? -1;
    // It left the agent's group and session: only the sandbox's pid namespace keeps it in the tree.
    expect(first.processes.get(escaped)?.pgrp).not.toBe(proc.pid);
    await until('the busy loop has run a while', async () => {
      const again = await readProcessTable();
      return again !== null && again.at - first.at >= 300;
    });
    const second = await readProcessTable();
    if (!second) throw new Error('no process table');
    const sample = sampleResources(second, first, launcher.running(), process.pid);
    const figures = sample.sessions['session-1'];
    const expected = descendants(proc.pid);

    expect(expected.has(escaped)).toBe(true);
    expect(treeMembers(second, [proc.pid]).has(escaped)).toBe(true);
    expect(figures?.processes).toBe(expected.size);
    expect(figures?.rssBytes).toBeGreaterThanOrEqual(50 * MB);
    // Within what /proc says of the same processes (a few pages move between readings).
    const vmRss = [...expected].reduce((sum, pid) => sum + vmRssBytes(pid), 0);
    expect(Math.abs((figures?.rssBytes ?? 0) - vmRss)).toBeLessThan(8 * MB);
    expect(figures?.cpuPercent).toBeGreaterThan(0);
    expect(sample.machine.grove.processes).toBeGreaterThan(expected.size);
    expect(sample.machine.memoryAvailableBytes).toBeGreaterThan(0);
    // A headless command finds the same agent from the launcher's record.
    expect(recordedAgents(runDir)).toEqual(new Map([['session-1', [proc.pid]]]));

    proc.kill(0);
    await proc.exited;
    expect(launcher.running().size).toBe(0);
    expect(recordedAgents(runDir).size).toBe(0);
  });

  it('count an unconfined agent child that double-forked out of its parent by its process group', async () => {
    const launcher = createLauncher({
      runDir: null,
      allowUnconfined: () => Promise.resolve(true),
      probe: () => Promise.resolve({ ok: false, reason: 'test', fix: 'none' }),
    });
    const { proc, out } = await launch(launcher, agentScript(3102, false));
    await until('the agent started its children', () => out.includes('started'));
    await until('the orphan runs', () => pidOf(3102) !== null);
    const table = await readProcessTable();
    if (!table) throw new Error('no process table');
    const orphan = pidOf(3102) ?? -1;
    const members = treeMembers(table, [proc.pid]);

    // Adopted by init (or a subreaper), not a descendant of the agent any more, but in its group.
    expect(descendants(proc.pid).has(orphan)).toBe(false);
    expect(table.processes.get(orphan)?.pgrp).toBe(proc.pid);
    expect(members.has(orphan)).toBe(true);
  });
});
