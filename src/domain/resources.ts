/**
 * What the processes of each session's agent use (issue 27, "See it"): the
 * process tree of every agent, found from one reading of the process table
 * by parent links and process group (never by name), and its CPU and
 * resident memory. Pure: the reading itself is infra/proc.ts.
 */

/** One process as the process table says (Linux: /proc/PID/stat). */
export interface ProcessEntry {
  readonly pid: number;
  readonly ppid: number;
  /** Its process group: an agent's group is its leader's pid (the launcher starts it so). */
  readonly pgrp: number;
  /** R, S, D, Z, … — a zombie (Z) or dead (X) process is not counted. */
  readonly state: string;
  /** User plus system CPU time, in clock ticks. */
  readonly cpuTicks: number;
  /** Resident memory, in pages. */
  readonly rssPages: number;
  /** When it started, in clock ticks after boot (tells a reused pid from the one before). */
  readonly startTicks: number;
}

/** One reading of the whole process table, with the machine's figures. */
export interface ProcessTable {
  /** Wall-clock time of the reading (ms). */
  readonly at: number;
  /** Seconds since boot at the reading (a process's age is this less its start). */
  readonly uptimeSeconds: number;
  readonly processes: ReadonlyMap<number, ProcessEntry>;
  /** Clock ticks per second and bytes per page of this machine. */
  readonly ticksPerSecond: number;
  readonly pageBytes: number;
  /** MemAvailable and MemTotal (bytes), null when unknown. */
  readonly memoryAvailableBytes: number | null;
  readonly memoryTotalBytes: number | null;
  /** The 1, 5 and 15 minute load averages, null when unknown. */
  readonly load: readonly [number, number, number] | null;
}

/** What one process tree uses. */
export interface TreeResources {
  /** CPU over the last interval, percent of one core (a tree busy on two cores shows 200). */
  readonly cpuPercent: number;
  /** Resident memory summed over its processes (shared pages count once per process). */
  readonly rssBytes: number;
  /** Live processes in the tree (zombies left out). */
  readonly processes: number;
  /** When the figures were read (ms). */
  readonly sampledAt: number;
}

/** The machine and Grove as the header shows them. */
export interface MachineResources {
  readonly memoryAvailableBytes: number | null;
  readonly memoryTotalBytes: number | null;
  readonly load: readonly [number, number, number] | null;
  /** Grove's own process, everything it started and every agent tree. */
  readonly grove: TreeResources;
}

/** One sample: each session whose agent runs, and the machine. */
export interface ResourceSample {
  readonly sessions: Readonly<Record<string, TreeResources>>;
  readonly machine: MachineResources;
}

function childrenOf(table: ProcessTable): Map<number, number[]> {
  const children = new Map<number, number[]>();
  for (const entry of table.processes.values()) {
    const list = children.get(entry.ppid);
    if (list) list.push(entry.pid);
    else children.set(entry.ppid, [entry.pid]);
  }
  return children;
}

function groupsOf(table: ProcessTable): Map<number, number[]> {
  const groups = new Map<number, number[]>();
  for (const entry of table.processes.values()) {
    const list = groups.get(entry.pgrp);
    if (list) list.push(entry.pid);
    else groups.set(entry.pgrp, [entry.pid]);
  }
  return groups;
}

/**
 * The processes of the trees started at `roots`: each root, every process
 * descended from one by parent links, and every process in a root's process
 * group (with its descendants). A child that double-forks stays in the group;
 * one that also calls setsid stays a descendant when it lives in a bubblewrap
 * sandbox's pid namespace, whose orphans are adopted by the sandbox's own
 * init (a descendant of the root). A root no longer in the table adds nothing.
 */
export function treeMembers(
  table: ProcessTable,
  roots: readonly number[],
  index: { children: Map<number, number[]>; groups: Map<number, number[]> } = {
    children: childrenOf(table),
    groups: groupsOf(table),
  },
): Set<number> {
  const members = new Set<number>();
  const stack: number[] = [];
  for (const root of roots) {
    if (!table.processes.has(root)) continue;
    stack.push(root);
    // The group is the root's only when the root leads it (the launcher's agents do).
    if (table.processes.get(root)?.pgrp === root) stack.push(...(index.groups.get(root) ?? []));
  }
  while (stack.length > 0) {
    const pid = stack.pop();
    if (pid === undefined || members.has(pid)) continue;
    members.add(pid);
    stack.push(...(index.children.get(pid) ?? []));
  }
  return members;
}

const live = (entry: ProcessEntry): boolean => entry.state !== 'Z' && entry.state !== 'X';

/**
 * What the processes `members` use. CPU is the time they ran since `previous`
 * (a process that is new since then counts from its start); with no previous
 * reading, it is each tree's average since its processes started.
 */
export function treeResources(
  table: ProcessTable,
  members: ReadonlySet<number>,
  previous: ProcessTable | null,
): TreeResources {
  let ticks = 0;
  let rssPages = 0;
  let processes = 0;
  let lifetimeTicks = 0;
  const elapsedSeconds = previous ? (table.at - previous.at) / 1000 : 0;
  for (const pid of members) {
    const entry = table.processes.get(pid);
    if (!entry || !live(entry)) continue;
    processes += 1;
    rssPages += entry.rssPages;
    if (previous) {
      const before = previous.processes.get(pid);
      // The same process (not a reused pid) counts what it ran since; a new one all it ran.
      ticks +=
        before && before.startTicks === entry.startTicks
          ? Math.max(0, entry.cpuTicks - before.cpuTicks)
          : entry.cpuTicks;
    } else {
      ticks += entry.cpuTicks;
      const age = table.uptimeSeconds * table.ticksPerSecond - entry.startTicks;
      lifetimeTicks = Math.max(lifetimeTicks, age);
    }
  }
  const seconds = previous ? elapsedSeconds : lifetimeTicks / table.ticksPerSecond;
  const cpuPercent = seconds > 0 ? (ticks / table.ticksPerSecond / seconds) * 100 : 0;
  return {
    cpuPercent: Math.round(cpuPercent * 10) / 10,
    rssBytes: rssPages * table.pageBytes,
    processes,
    sampledAt: table.at,
  };
}

/**
 * One sample for every session at once from one reading: `roots` maps each
 * session to the process groups its agent runs in; `self` is Grove's pid.
 * Sessions whose agent is gone from the table are left out.
 */
export function sampleResources(
  table: ProcessTable,
  previous: ProcessTable | null,
  roots: ReadonlyMap<string, readonly number[]>,
  self: number,
): ResourceSample {
  const index = { children: childrenOf(table), groups: groupsOf(table) };
  const sessions: Record<string, TreeResources> = {};
  const everyone = treeMembers(table, [self], index);
  for (const [sessionId, pids] of roots) {
    const members = treeMembers(table, pids, index);
    if (members.size === 0) continue;
    for (const pid of members) everyone.add(pid);
    const figures = treeResources(table, members, previous);
    if (figures.processes > 0) sessions[sessionId] = figures;
  }
  return {
    sessions,
    machine: {
      memoryAvailableBytes: table.memoryAvailableBytes,
      memoryTotalBytes: table.memoryTotalBytes,
      load: table.load,
      grove: treeResources(table, everyone, previous),
    },
  };
}

/** `12%`, `0.4%`, `250%`: the CPU column. */
export function formatCpu(percent: number): string {
  return percent < 10 && percent > 0 ? `${percent.toFixed(1)}%` : `${Math.round(percent)}%`;
}
