import { formatBytes } from '../domain/gc.js';
import { formatCpu, type MachineResources, type TreeResources } from '../domain/resources.js';

/**
 * The words of the resource figures (issue 27, "See it"): the list's CPU and
 * memory cells, the session view's line and the header's machine figures.
 */

/** The CPU and memory cells of a session whose agent runs ("" each while none runs). */
export function resourceCells(
  figures: Pick<TreeResources, 'cpuPercent' | 'rssBytes'> | undefined,
): { readonly cpu: string; readonly memory: string } {
  if (!figures) return { cpu: '', memory: '' };
  return { cpu: formatCpu(figures.cpuPercent), memory: formatBytes(figures.rssBytes) };
}

/** The session view's figures: `CPU 12%  340 MB  7 processes` ("" while no agent runs). */
export function sessionResourcesText(figures: TreeResources | undefined): string {
  if (!figures) return '';
  const { cpu, memory } = resourceCells(figures);
  return `CPU ${cpu}  ${memory}  ${figures.processes} process${figures.processes === 1 ? '' : 'es'}`;
}

/** The header's figures: `5.2 GB free  load 1.20  Grove 812 MB` (the parts the OS gave). */
export function machineText(machine: MachineResources): string {
  const parts: string[] = [];
  if (machine.memoryAvailableBytes !== null)
    parts.push(`${formatBytes(machine.memoryAvailableBytes)} free`);
  if (machine.load !== null) parts.push(`load ${machine.load[0].toFixed(2)}`);
  parts.push(`Grove ${formatBytes(machine.grove.rssBytes)}`);
  return parts.join('  ');
}
