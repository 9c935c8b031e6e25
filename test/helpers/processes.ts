import { readdirSync, readFileSync } from 'node:fs';

// Looks at the machine's processes through /proc (Linux), to check that
// agent processes are gone. Zombies (exited, not yet reaped by their parent)
// count as gone: they can no longer run or write.

export interface ProcessInfo {
  readonly pid: number;
  readonly ppid: number;
  readonly pgid: number;
  readonly state: string;
  readonly cmdline: string;
}

function info(pid: number): ProcessInfo | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
    return {
      pid,
      state: fields[0] ?? '?',
      ppid: Number(fields[1]),
      pgid: Number(fields[2]),
      cmdline,
    };
  } catch {
    return null;
  }
}

/** Whether a process with this pid exists (a zombie counts: it has not been reaped yet). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** SIGKILL, unless the process ended since the listing (a child of the tree exits by itself). */
export function killIfAlive(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

/** Live (not zombie) processes on this machine. */
export function liveProcesses(): ProcessInfo[] {
  const out: ProcessInfo[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const p = info(Number(name));
    if (p && p.state !== 'Z' && p.state !== 'X') out.push(p);
  }
  return out;
}

/** Live processes whose command line contains `marker`. */
export function processesWith(marker: string): ProcessInfo[] {
  return liveProcesses().filter((p) => p.cmdline.includes(marker) && p.pid !== process.pid);
}

/** Live members of process group `pgid`. */
export function liveGroupMembers(pgid: number): ProcessInfo[] {
  return liveProcesses().filter((p) => p.pgid === pgid);
}

/** Live processes whose environment holds `entry` (`NAME=value`). */
export function processesWithEnv(entry: string): ProcessInfo[] {
  return liveProcesses().filter((p) => {
    if (p.pid === process.pid) return false;
    try {
      return readFileSync(`/proc/${p.pid}/environ`, 'utf8').split('\0').includes(entry);
    } catch {
      return false;
    }
  });
}
