import { describe, expect, it } from 'vitest';
import {
  sampleResources,
  treeMembers,
  treeResources,
  type ProcessEntry,
  type ProcessTable,
} from '../../src/domain/resources.js';
import { parseLoadavg, parseMeminfo, parseProcStat } from '../../src/infra/proc.js';
import { headerLine, listColumns } from '../../src/ui/list-row.js';
import type { AppState } from '../../src/app/state.js';
import { appState, renderFrame } from '../helpers/render.js';
import {
  headerMachineText,
  machineText,
  resourceCells,
  sessionFiguresText,
  sessionResourcesText,
} from '../../src/ui/resources-layout.js';

/** A stat line as the kernel writes it: pid (comm) state ppid pgrp session … utime stime … starttime vsize rss … */
function statLine(
  pid: number,
  comm: string,
  f: {
    state?: string;
    ppid: number;
    pgrp: number;
    utime: number;
    stime: number;
    start: number;
    rss: number;
  },
): string {
  const after = [
    f.state ?? 'S',
    f.ppid,
    f.pgrp,
    f.pgrp, // session
    0, // tty
    -1, // tpgid
    4194560, // flags
    10,
    0,
    0,
    0, // faults
    f.utime,
    f.stime,
    0,
    0, // cutime cstime
    20,
    0, // priority nice
    1, // threads
    0, // itrealvalue
    f.start,
    123456789, // vsize
    f.rss,
    '18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0',
  ];
  return `${pid} (${comm}) ${after.join(' ')}\n`;
}

describe('parseProcStat', () => {
  it('reads the fields after the command name', () => {
    const text = statLine(42, 'node', {
      ppid: 7,
      pgrp: 42,
      utime: 150,
      stime: 50,
      start: 9000,
      rss: 2560,
    });
    expect(parseProcStat(42, text)).toEqual({
      pid: 42,
      ppid: 7,
      pgrp: 42,
      state: 'S',
      cpuTicks: 200,
      rssPages: 2560,
      startTicks: 9000,
    });
  });

  it.each([
    ['spaces', 'my agent'],
    ['parentheses', 'a (b) c'],
    ['a fake field list', ') R 1 1 1'],
    ['a closing parenthesis at the end', 'x) Z 1 1)'],
    ['a newline', 'a\nb) R 1'],
  ])('is not fooled by a command name with %s', (_, comm) => {
    const text = statLine(99, comm, { ppid: 5, pgrp: 99, utime: 3, stime: 4, start: 77, rss: 10 });
    expect(parseProcStat(99, text)).toMatchObject({
      ppid: 5,
      pgrp: 99,
      state: 'S',
      cpuTicks: 7,
      rssPages: 10,
    });
  });

  it.each([[''], ['42 node S 1 1'], ['42 (node) S 1 2 3'], ['42 (node) ? x y z']])(
    'refuses %j',
    (text) => {
      expect(parseProcStat(42, text)).toBeNull();
    },
  );
});

describe('machine figures', () => {
  it('reads MemAvailable and MemTotal in bytes', () => {
    expect(
      parseMeminfo('MemTotal:       16318412 kB\nMemFree: 1 kB\nMemAvailable:    8159206 kB\n'),
    ).toEqual({
      totalBytes: 16318412 * 1024,
      availableBytes: 8159206 * 1024,
    });
    expect(parseMeminfo('nothing')).toEqual({ totalBytes: null, availableBytes: null });
  });

  it('reads the load averages', () => {
    expect(parseLoadavg('0.52 0.58 0.59 1/467 12345\n')).toEqual([0.52, 0.58, 0.59]);
    expect(parseLoadavg('garbage')).toBeNull();
  });
});

function entry(
  pid: number,
  ppid: number,
  pgrp: number,
  extra: Partial<ProcessEntry> = {},
): ProcessEntry {
  return { pid, ppid, pgrp, state: 'S', cpuTicks: 0, rssPages: 1, startTicks: 100, ...extra };
}

function table(entries: readonly ProcessEntry[], at = 10_000): ProcessTable {
  return {
    at,
    uptimeSeconds: 100,
    processes: new Map(entries.map((e) => [e.pid, e])),
    ticksPerSecond: 100,
    pageBytes: 4096,
    memoryAvailableBytes: 1 << 30,
    memoryTotalBytes: 2 << 30,
    load: [1, 2, 3],
  };
}

// Grove (10) started agent 20 (its own group); 20 started 21, which started 22;
// 23 double-forked out of 21 (adopted by init 1) but kept group 20; 24 also called setsid (gone);
// 30 is another agent; 40 is unrelated; 25 is a zombie in the tree.
const procs = [
  entry(1, 0, 1),
  entry(10, 1, 10),
  entry(20, 10, 20),
  entry(21, 20, 20),
  entry(22, 21, 20),
  entry(23, 1, 20),
  entry(24, 1, 24),
  entry(25, 21, 20, { state: 'Z' }),
  entry(30, 10, 30),
  entry(31, 30, 31),
  entry(40, 1, 40),
];

describe('treeMembers', () => {
  it('takes the root, its descendants and its process group', () => {
    expect([...treeMembers(table(procs), [20])].sort((a, b) => a - b)).toEqual([
      20, 21, 22, 23, 25,
    ]);
  });

  it('follows parent links out of the group (a child that called setsid under the agent)', () => {
    expect([...treeMembers(table(procs), [30])].sort((a, b) => a - b)).toEqual([30, 31]);
  });

  it('finds nothing for a root that is gone', () => {
    expect(treeMembers(table(procs), [999]).size).toBe(0);
  });

  it('does not take the group of a root that does not lead it', () => {
    expect([...treeMembers(table(procs), [22])]).toEqual([22]);
  });
});

describe('treeResources', () => {
  it('sums memory, counts live processes and takes CPU from the difference of two readings', () => {
    const before = table(
      procs.map((e) => (e.pid === 21 ? { ...e, cpuTicks: 100 } : e)),
      10_000,
    );
    const after = table(
      procs.map((e) =>
        e.pid === 21
          ? { ...e, cpuTicks: 300, rssPages: 1000 }
          : e.pid === 22
            ? { ...e, cpuTicks: 50 }
            : e,
      ),
      12_000,
    );
    const members = treeMembers(after, [20]);
    const figures = treeResources(after, members, before);
    // 200 ticks of 21 and 50 of 22 in 2 s at 100 ticks a second: 125 % of a core.
    expect(figures.cpuPercent).toBe(125);
    expect(figures.rssBytes).toBe((1 + 1000 + 1 + 1) * 4096);
    expect(figures.processes).toBe(4);
    expect(figures.sampledAt).toBe(12_000);
  });

  it('counts a pid reused by a new process from its start, not against the old one', () => {
    const before = table([entry(20, 10, 20, { cpuTicks: 500, startTicks: 100 })], 10_000);
    const after = table([entry(20, 10, 20, { cpuTicks: 20, startTicks: 5000 })], 11_000);
    expect(treeResources(after, new Set([20]), before).cpuPercent).toBe(20);
  });

  it('with one reading, gives the average since the tree started', () => {
    // Started at tick 5000 (50 s after boot), read at 100 s: 50 s, 25 s of CPU.
    const once = table([entry(20, 10, 20, { cpuTicks: 2500, startTicks: 5000 })]);
    expect(treeResources(once, new Set([20]), null).cpuPercent).toBe(50);
  });
});

describe('sampleResources', () => {
  it('gives each session its tree and Grove every tree and its own', () => {
    const sample = sampleResources(
      table(procs),
      null,
      new Map([
        ['a', [20]],
        ['b', [30]],
        ['gone', [999]],
      ]),
      10,
    );
    expect(Object.keys(sample.sessions).sort()).toEqual(['a', 'b']);
    expect(sample.sessions['a']?.processes).toBe(4);
    expect(sample.sessions['b']?.processes).toBe(2);
    // Grove 10, its children 20, 21, 22, 30, 31, and 23 (group 20): 7 live processes.
    expect(sample.machine.grove.processes).toBe(7);
    expect(sample.machine.memoryAvailableBytes).toBe(1 << 30);
    expect(sample.machine.load).toEqual([1, 2, 3]);
  });
});

describe('the list columns', () => {
  it('shows CPU and memory at 120 columns while an agent runs, and leaves them out at 60 or when none runs', () => {
    expect(listColumns(120, true).shown.has('cpu')).toBe(true);
    expect(listColumns(120, true).shown.has('memory')).toBe(true);
    expect(listColumns(60, true).shown.has('cpu')).toBe(false);
    expect(listColumns(60, true).shown.has('memory')).toBe(false);
    expect(headerLine(120, true)).toMatch(/Timer\s+CPU\s+Mem\s*$/);
    // No agent runs: their cells go to the titles.
    expect(listColumns(120).shown.has('cpu')).toBe(false);
    expect(listColumns(120).titleWidth).toBe(listColumns(120, true).titleWidth + 12);
    expect(headerLine(120)).not.toMatch(/CPU|Mem/);
  });

  it('fits the figures in their cells', () => {
    expect(resourceCells({ cpuPercent: 250, rssBytes: 1023 * 1024 * 1024 })).toEqual({
      cpu: '250%',
      memory: '1023M',
    });
    expect(resourceCells({ cpuPercent: 0.4, rssBytes: 1.5 * 1024 ** 3 })).toEqual({
      cpu: '0.4%',
      memory: '1.5G',
    });
    expect(resourceCells(undefined)).toEqual({ cpu: '', memory: '' });
  });
});

describe('the session view and header words', () => {
  it('say the tree figures and the machine figures', () => {
    const tree = { cpuPercent: 12, rssBytes: 340 * 1024 ** 2, processes: 7, sampledAt: 0 };
    expect(sessionResourcesText(tree)).toBe('CPU 12%  340 MB  7 processes');
    expect(sessionResourcesText(undefined)).toBe('');
    expect(sessionFiguresText(tree, { allocated: 1.2 * 1024 ** 3 })).toBe(
      'CPU 12%  340 MB  7 processes  disk 1.2 GB',
    );
    expect(sessionFiguresText(undefined, { allocated: 340 * 1024 ** 2 })).toBe('disk 340 MB');
    expect(sessionFiguresText(undefined, undefined)).toBe('');
    const machine = {
      memoryAvailableBytes: 5.2 * 1024 ** 3,
      memoryTotalBytes: null,
      load: [1.2, 1, 1] as const,
      grove: tree,
    };
    expect(machineText(machine, 120)).toBe('5.2 GB free  load 1.20  Grove 340 MB');
    expect(machineText(machine, 60)).toBe('5.2 GB free');
    // In the header they take only the room its left part (project, inbox count) leaves.
    expect(headerMachineText(machine, 120, 60)).toBe(' 5.2 GB free  load 1.20  Grove 340 MB  ');
    expect(headerMachineText(machine, 120, 20)).toBe(' 5.2 GB free  ');
    expect(headerMachineText(machine, 120, 5)).toBe('');
  });

  it('leave the inbox count in the header when the line is full', () => {
    const tree = { cpuPercent: 12, rssBytes: 340 * 1024 ** 2, processes: 7, sampledAt: 0 };
    const state = appState({ columns: 110, rows: 24 });
    const project = state.projects[0];
    if (!project) throw new Error('no project');
    const full: AppState = {
      ...state,
      projects: [{ ...project, displayName: 'a-project-with-a-rather-long-name-of-its-own' }],
      inbox: [{ id: 'question:a' } as unknown as AppState['inbox'][number]],
      resources: {
        sampledAt: 0,
        sessions: {},
        machine: {
          memoryAvailableBytes: 22 * 1024 ** 3,
          memoryTotalBytes: null,
          load: [4.66, 1, 1] as const,
          grove: tree,
        },
      } as unknown as AppState['resources'],
    };
    const header = renderFrame(full).lines[0] ?? '';
    expect(header).toContain('1 in the inbox');
  });
});
