import type { DiskMeasure } from '../domain/disk.js';
import { formatBytes } from '../domain/gc.js';
import { formatCpu, type MachineResources, type TreeResources } from '../domain/resources.js';
import { defaultMaxTurns } from '../domain/admission.js';
import type { HostFigures } from '../domain/placement.js';
import { cellWidth } from './text.js';

/**
 * The words of the resource figures (issue 27, "See it"): the list's CPU and
 * memory cells, the session view's line and the header's machine figures.
 */

/** `340M`, `1.2G`, `12K`: memory in at most five cells (powers of 1024, as `top`). */
export function compactBytes(bytes: number): string {
  return formatBytes(bytes).replace(/^([\d.]+) ([kMGT]?)B$/, (_, n: string, unit: string) =>
    unit === '' ? `${n}B` : `${n}${unit.toUpperCase()}`,
  );
}

/** The list's CPU and memory cells of a session whose agent runs ("" each while none runs). */
export function resourceCells(
  figures: Pick<TreeResources, 'cpuPercent' | 'rssBytes'> | undefined,
): { readonly cpu: string; readonly memory: string } {
  if (!figures) return { cpu: '', memory: '' };
  return { cpu: formatCpu(figures.cpuPercent), memory: compactBytes(figures.rssBytes) };
}

/** The session view's figures: `CPU 12%  340 MB  7 processes` ("" while no agent runs). */
export function sessionResourcesText(figures: TreeResources | undefined): string {
  if (!figures) return '';
  const memory = formatBytes(figures.rssBytes);
  return `CPU ${formatCpu(figures.cpuPercent)}  ${memory}  ${figures.processes} process${figures.processes === 1 ? '' : 'es'}`;
}

/**
 * The session view's figures with its worktree's disk use once walked:
 * `CPU 12%  340 MB  7 processes  disk 1.2 GB` ("" while neither is known).
 */
export function sessionFiguresText(
  figures: TreeResources | undefined,
  disk: Pick<DiskMeasure, 'allocated'> | undefined,
): string {
  const parts = [sessionResourcesText(figures), disk ? `disk ${formatBytes(disk.allocated)}` : ''];
  return parts.filter((part) => part !== '').join('  ');
}

/** Below this width the header says only the free memory (the project's name needs the room). */
const FULL_HEADER_COLUMNS = 100;

/**
 * The header's figures: `5.2 GB free  load 1.20  Grove 812 MB` (the parts the
 * OS gave); on a screen narrower than FULL_HEADER_COLUMNS, `5.2 GB free`.
 */
export function machineText(machine: MachineResources, columns: number): string {
  if (columns < FULL_HEADER_COLUMNS && machine.memoryAvailableBytes !== null)
    return `${formatBytes(machine.memoryAvailableBytes)} free`;
  const parts: string[] = [];
  if (machine.memoryAvailableBytes !== null)
    parts.push(`${formatBytes(machine.memoryAvailableBytes)} free`);
  if (machine.load !== null) parts.push(`load ${machine.load[0].toFixed(2)}`);
  parts.push(`Grove ${formatBytes(machine.grove.rssBytes)}`);
  return parts.join('  ');
}

/**
 * The header's machine figures in `room` cells (with a space before and two
 * after): the full words, else the free memory alone, else nothing. What the
 * header's left part says (the project, the inbox count, budget holds) keeps
 * its room: the figures give way.
 */
export function headerMachineText(
  machine: MachineResources,
  columns: number,
  room: number,
): string {
  const full = ` ${machineText(machine, columns)}  `;
  if (cellWidth(full) <= room) return full;
  const free =
    machine.memoryAvailableBytes === null
      ? ''
      : ` ${formatBytes(machine.memoryAvailableBytes)} free  `;
  return free !== '' && cellWidth(free) <= room ? free : '';
}

/** One host in the header: `build 0.42 7.8G 1/4` (load, free memory, turns running/most), `build away 0/4`. */
export function hostHeaderPart(host: HostFigures): string {
  const max = host.max ?? (host.load ? String(defaultMaxTurns(host.load)) : '?');
  const slots = `${host.running}/${max}`;
  if (host.away) return `${host.name} away ${slots}`;
  if (!host.load) return `${host.name} ${slots}`;
  return `${host.name} ${host.load.load1.toFixed(2)} ${compactBytes(host.load.availableBytes)} ${slots}`;
}

/**
 * The header's host figures in `room` cells (a space before, two after): as
 * many hosts as fit, in their order, and `+N` for the rest; nothing on a
 * screen narrower than FULL_HEADER_COLUMNS (the project's name needs it).
 */
export function headerHostsText(
  hosts: readonly HostFigures[],
  columns: number,
  room: number,
): string {
  if (columns < FULL_HEADER_COLUMNS || hosts.length === 0) return '';
  for (let shown = hosts.length; shown > 0; shown--) {
    const rest = hosts.length - shown;
    const parts = hosts.slice(0, shown).map(hostHeaderPart);
    const text = ` ${parts.join('  ')}${rest > 0 ? `  +${rest}` : ''}  `;
    if (cellWidth(text) <= room) return text;
  }
  return '';
}
