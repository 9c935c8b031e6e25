import { readFile } from 'node:fs/promises';
import { availableParallelism, freemem, totalmem } from 'node:os';
import type { MachineFigures } from '../domain/admission.js';

/** MemAvailable of /proc/meminfo in bytes, or null where there is none (not Linux, an old kernel). */
export function memAvailable(meminfo: string): number | null {
  const match = /^MemAvailable:\s+(\d+)\s*kB/m.exec(meminfo);
  return match ? Number(match[1]) * 1024 : null;
}

/**
 * The figures the admission check reads: cores, total memory and memory
 * available to new processes. On Linux the kernel's MemAvailable (what can
 * be had without swapping, page cache included); elsewhere Node's free
 * memory, which counts no cache and so errs on the side of waiting.
 */
export async function readMachineFigures(): Promise<MachineFigures> {
  const meminfo =
    process.platform === 'linux' ? await readFile('/proc/meminfo', 'utf8').catch(() => '') : '';
  return {
    cores: availableParallelism(),
    totalBytes: totalmem(),
    availableBytes: memAvailable(meminfo) ?? freemem(),
  };
}
