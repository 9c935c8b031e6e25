// Placement (issue 24, item 6): where a session started with the host `auto`
// runs. This machine or a host with room, judged by each place's turns
// running against its maximum and its free memory against the floor every
// turn needs; a host's figures are one reading of its /proc over the open
// connection. Pure rules: the readings, the counts and the settings are
// passed in (app/services/admission.ts, app/services/host-loads.ts).
import { defaultMaxTurns, gigabytes } from './admission.js';

/** The host name that asks Grove to choose: `grove run --host auto`, Default host `auto`. */
export const AUTO_HOST_NAME = 'auto';

/** Whether a host choice (a flag, the Default host setting) asks Grove to place the session. */
export function isAutoHost(value: string | null | undefined): boolean {
  return (value ?? '').trim() === AUTO_HOST_NAME;
}

/** A host's figures as one reading of its /proc gives them. */
export interface HostLoad {
  /** Logical cores online. */
  readonly cores: number;
  /** MemTotal, bytes. */
  readonly totalBytes: number;
  /** MemAvailable, bytes. */
  readonly availableBytes: number;
  /** The 1-minute load average. */
  readonly load1: number;
  /** When it was read (ms since the epoch). */
  readonly readAt: number;
}

/** The most bytes of a reading Grove looks at: /proc/meminfo is about 1.5 kB. */
export const HOST_LOAD_MAX_BYTES = 16 * 1024;

const KB_LINE = (name: string): RegExp => new RegExp(`^${name}:[ \\t]+(\\d{1,15})[ \\t]+kB$`, 'm');
const LOADAVG = /^(\d{1,6}\.\d{2}) \d{1,6}\.\d{2} \d{1,6}\.\d{2} \d{1,9}\/\d{1,9} \d{1,10}$/m;
const CORES = /^cores (\d{1,5})$/m;

/**
 * The figures in what the host printed (HOST_LOAD_SCRIPT of
 * infra/hosts/host-load.ts: /proc/meminfo, /proc/loadavg, then `cores N`),
 * or null when any is missing or out of range. The text is only matched
 * line by line against fixed shapes: nothing of it is run or kept.
 */
export function parseHostLoad(text: string, readAt: number): HostLoad | null {
  if (text.length > HOST_LOAD_MAX_BYTES) return null;
  const total = KB_LINE('MemTotal').exec(text);
  const available = KB_LINE('MemAvailable').exec(text);
  const load = LOADAVG.exec(text);
  const cores = CORES.exec(text);
  if (!total || !available || !load || !cores) return null;
  const figures = {
    cores: Number(cores[1]),
    totalBytes: Number(total[1]) * 1024,
    availableBytes: Number(available[1]) * 1024,
    load1: Number(load[1]),
    readAt,
  };
  if (figures.cores < 1 || figures.availableBytes > figures.totalBytes) return null;
  return figures;
}

/** A host's maximum of turns at once: its own, else (null, auto) the same default as this machine's from its cores and memory. */
export function hostMaxTurns(max: number | null, load: HostLoad): number {
  return max ?? defaultMaxTurns(load);
}

/** `--max N`: a number from 0 (never placed there by `auto`, nor run there) to 1000, or auto; null when it is not one. */
export function parseHostMax(value: string): { readonly max: number | null } | null {
  const text = value.trim();
  if (text === 'auto') return { max: null };
  if (/^\d{1,4}$/.test(text) && Number(text) <= 1000) return { max: Number(text) };
  return null;
}

/** A place as the placement sees it: this machine (host null) or a host. */
export interface PlaceFigures {
  /** null: this machine. */
  readonly host: string | null;
  /** Turns running there now (every Grove process of this GROVE_HOME). */
  readonly running: number;
  /** Its maximum of turns at once (hosts: hostMaxTurns; null when unknown, for a host that could not be read). */
  readonly max: number | null;
  /** Its free memory (MemAvailable), bytes; null: unknown. */
  readonly freeBytes: number | null;
  /** The 1-minute load per core; null: unknown. */
  readonly loadPerCore: number | null;
  /** Why it could not be read (a host away), in words; null: read. */
  readonly problem: string | null;
}

/** Why one place has no room, in words ("build: 2 of 2 running"). */
export function placeFull(place: PlaceFigures, floorBytes: number): string | null {
  const name = place.host ?? 'this machine';
  if (place.problem !== null) return `${name}: ${place.problem}`;
  if (place.max === null) return `${name}: no reading`;
  if (place.running >= place.max) return `${name}: ${place.running} of ${place.max} running`;
  if (floorBytes > 0 && place.freeBytes !== null && place.freeBytes < floorBytes)
    return `${name}: ${gigabytes(place.freeBytes)} free, needs ${gigabytes(floorBytes)}`;
  return null;
}

export type Placement =
  | { readonly kind: 'place'; readonly host: string | null }
  | { readonly kind: 'wait'; readonly reasons: readonly string[] };

/**
 * Where a new turn of an `auto` session goes: this machine when it has room
 * (no ssh round trip, nothing to push), else the host with room and the
 * lowest load per core, then the most free memory, then the fewest turns
 * running, then by name; nowhere (wait, with each place's reason) when none
 * has room. `hostsAllowed` false (an agent that cannot run on hosts): this
 * machine only.
 */
export function choosePlace(
  places: readonly PlaceFigures[],
  floorBytes: number,
  hostsAllowed: boolean,
): Placement {
  const local = places.find((p) => p.host === null);
  if (local && placeFull(local, floorBytes) === null) return { kind: 'place', host: null };
  const hosts = hostsAllowed ? places.filter((p) => p.host !== null) : [];
  const roomy = hosts
    .filter((p) => placeFull(p, floorBytes) === null)
    .sort(
      (a, b) =>
        (a.loadPerCore ?? 0) - (b.loadPerCore ?? 0) ||
        (b.freeBytes ?? 0) - (a.freeBytes ?? 0) ||
        a.running - b.running ||
        (a.host ?? '').localeCompare(b.host ?? ''),
    );
  const best = roomy[0];
  if (best) return { kind: 'place', host: best.host };
  const reasons = [local, ...hosts].flatMap((p) => {
    const why = p ? placeFull(p, floorBytes) : null;
    return why === null ? [] : [why];
  });
  if (!hostsAllowed && places.some((p) => p.host !== null))
    reasons.push('this agent runs on this machine only');
  return { kind: 'wait', reasons };
}

/** A host's figures as the header and `grove host ls` show them: "load 0.42  3.1 GB free  1/4". */
export function hostLoadText(load: HostLoad | null, running: number, max: number | null): string {
  const slots = `${running}/${max === null ? (load ? defaultMaxTurns(load) : '?') : max}`;
  if (!load) return `? ${slots}`;
  return `load ${load.load1.toFixed(2)}  ${gigabytes(load.availableBytes)} free  ${slots}`;
}

/** A reading as the database keeps it (JSON), checked field by field; null when it is not one. */
export function parseStoredLoad(text: string | null): HostLoad | null {
  if (text === null) return null;
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== 'object' || value === null) return null;
    const v = value as Record<string, unknown>;
    const num = (key: string): number | null =>
      typeof v[key] === 'number' && Number.isFinite(v[key]) ? v[key] : null;
    const [cores, totalBytes, availableBytes, load1, readAt] = [
      num('cores'),
      num('totalBytes'),
      num('availableBytes'),
      num('load1'),
      num('readAt'),
    ];
    if (
      cores === null ||
      totalBytes === null ||
      availableBytes === null ||
      load1 === null ||
      readAt === null
    )
      return null;
    return { cores, totalBytes, availableBytes, load1, readAt };
  } catch {
    return null;
  }
}

/** A host's figures in words for the transcript: "load 0.42, 3.1 GB free, 4 turns at most". */
export function hostFiguresText(load: HostLoad | null, max: number | null): string {
  const most = max ?? (load ? defaultMaxTurns(load) : null);
  return [
    ...(load ? [`load ${load.load1.toFixed(2)}`, `${gigabytes(load.availableBytes)} free`] : []),
    ...(most === null ? [] : [`${most} turns at most`]),
  ].join(', ');
}

/** A host as the TUI's header shows it: its last reading, its turns running and its maximum. */
export interface HostFigures {
  readonly name: string;
  /** null: not read (yet), or it could not be read (`away`). */
  readonly load: HostLoad | null;
  /** The last try failed (the host cannot be reached, or gave no figures). */
  readonly away: boolean;
  readonly running: number;
  /** Its maximum (null: auto, from the reading). */
  readonly max: number | null;
}
