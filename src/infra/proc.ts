// Reading the process table and the machine's memory and load from /proc
// (Linux). One reading is one readdir of /proc and one read of each
// process's stat file. The stat files are read synchronously in small
// slices, yielding to the event loop between slices: a read of /proc is a
// few microseconds of kernel work, and an asynchronous read costs four
// thread-pool round trips (open, fstat, read, close) per file, which was
// most of the sampler's CPU. A slice never holds the loop for more than a
// few reads, so keys and frames do not wait on it.
// The trees and figures built from it are domain/resources.ts.
import { closeSync, openSync, readSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ProcessEntry, ProcessTable } from '../domain/resources.js';
import { runTool } from './exec.js';

/**
 * One /proc/PID/stat line, or null when it is not one. The command name
 * (field 2, in parentheses) is whatever the process named itself: it may
 * hold spaces, parentheses and anything that looks like the fields after
 * it (`) R 1 1`), so the fields are read after the LAST `)`, and the name
 * itself is never kept.
 */
export function parseProcStat(pid: number, text: string): ProcessEntry | null {
  const close = text.lastIndexOf(')');
  if (close < 0 || !text.slice(0, close).includes('(')) return null;
  // Fields 3 onwards: state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime
  // cutime cstime priority nice threads itrealvalue starttime vsize rss …
  const fields = text
    .slice(close + 1)
    .trim()
    .split(/\s+/);
  if (fields.length < 22) return null;
  const state = fields[0] ?? '';
  const num = (i: number): number => Number(fields[i]);
  const entry: ProcessEntry = {
    pid,
    ppid: num(1),
    pgrp: num(2),
    state,
    cpuTicks: num(11) + num(12),
    rssPages: Math.max(0, num(21)),
    startTicks: num(19),
  };
  const numbers = [entry.ppid, entry.pgrp, entry.cpuTicks, entry.rssPages, entry.startTicks];
  if (!/^[A-Za-z]$/.test(state) || numbers.some((n) => !Number.isFinite(n))) return null;
  return entry;
}

/** MemAvailable and MemTotal of /proc/meminfo, in bytes (null when absent). */
export function parseMeminfo(text: string): {
  readonly availableBytes: number | null;
  readonly totalBytes: number | null;
} {
  const field = (name: string): number | null => {
    const match = new RegExp(`^${name}:\\s+(\\d+) kB$`, 'm').exec(text);
    return match?.[1] === undefined ? null : Number(match[1]) * 1024;
  };
  return { availableBytes: field('MemAvailable'), totalBytes: field('MemTotal') };
}

/** The three load averages of /proc/loadavg, or null. */
export function parseLoadavg(text: string): readonly [number, number, number] | null {
  const [one, five, fifteen] = text.trim().split(/\s+/).map(Number);
  if (one === undefined || five === undefined || fifteen === undefined) return null;
  return [one, five, fifteen].every(Number.isFinite) ? [one, five, fifteen] : null;
}

/** Clock ticks per second and page size, asked of getconf once (Linux's usual values if it fails). */
let constants: Promise<{ ticksPerSecond: number; pageBytes: number }> | null = null;

function machineConstants(): Promise<{ ticksPerSecond: number; pageBytes: number }> {
  const ask = async (name: string, fallback: number): Promise<number> => {
    const run = await runTool('getconf', [name], { timeoutMs: 5000 });
    const value = Number(run.stdout.trim());
    return run.code === 0 && Number.isInteger(value) && value > 0 ? value : fallback;
  };
  constants ??= Promise.all([ask('CLK_TCK', 100), ask('PAGESIZE', 4096)]).then(
    ([ticksPerSecond, pageBytes]) => ({ ticksPerSecond, pageBytes }),
  );
  return constants;
}

async function readOrNull(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'latin1');
  } catch {
    // The process ended between the readdir and the read, or the file is not there.
    return null;
  }
}

/** Stat files read between two yields to the event loop. */
const STAT_SLICE = 16;
/** A stat line is a few hundred bytes; a command name is at most 64. */
const statBuffer = Buffer.alloc(4096);

/** One stat file's text, read at once; null when the process ended since the listing. */
function readStat(path: string): string | null {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return null;
  }
  try {
    const length = readSync(fd, statBuffer, 0, statBuffer.length, 0);
    return statBuffer.toString('latin1', 0, length);
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/** Reads the process table; null where there is no /proc (macOS). */
export async function readProcessTable(
  root = '/proc',
  now: () => number = Date.now,
): Promise<ProcessTable | null> {
  let names: string[];
  try {
    names = await readdir(root);
  } catch {
    return null;
  }
  const [{ ticksPerSecond, pageBytes }, uptime, meminfo, loadavg] = await Promise.all([
    machineConstants(),
    readOrNull(join(root, 'uptime')),
    readOrNull(join(root, 'meminfo')),
    readOrNull(join(root, 'loadavg')),
  ]);
  const pids = names.filter((name) => /^\d+$/.test(name)).map(Number);
  const processes = new Map<number, ProcessEntry>();
  for (let from = 0; from < pids.length; from += STAT_SLICE) {
    if (from > 0) await new Promise<void>((resolve) => setImmediate(resolve));
    for (const pid of pids.slice(from, from + STAT_SLICE)) {
      const text = readStat(join(root, String(pid), 'stat'));
      const entry = text ? parseProcStat(pid, text) : null;
      if (entry) processes.set(pid, entry);
    }
  }
  const at = now();
  const memory = meminfo ? parseMeminfo(meminfo) : null;
  return {
    at,
    uptimeSeconds: Number(uptime?.split(/\s+/)[0] ?? 0) || 0,
    processes,
    ticksPerSecond,
    pageBytes,
    memoryAvailableBytes: memory?.availableBytes ?? null,
    memoryTotalBytes: memory?.totalBytes ?? null,
    load: loadavg ? parseLoadavg(loadavg) : null,
  };
}
