// Admission (issue 27): how many agent turns may run at once and how much
// free memory a new one needs. Pure rules: the figures (cores, memory, turns
// running) are read by app/services/admission.ts and passed in.

/** The most agent turns running at once across Grove (global setting; `auto` or a number). */
export const MAX_TURNS_KEY = 'capacity.maxTurns';
/** Free memory (MemAvailable) a new turn needs before it starts (global setting; `off` or a size). */
export const MEMORY_FLOOR_KEY = 'capacity.memoryFloor';

/** The floor a new turn needs when the person has not set one. */
export const DEFAULT_MEMORY_FLOOR = '1G';

const GIB = 1024 ** 3;

/** The machine as the admission check reads it. */
export interface MachineFigures {
  /** Logical cores. */
  readonly cores: number;
  /** Total memory, bytes. */
  readonly totalBytes: number;
  /** Memory available to new processes without swapping (Linux MemAvailable), bytes. */
  readonly availableBytes: number;
}

/**
 * The default most turns at once: two per core (a turn mostly waits on the
 * model, so cores are not what runs out first), at most one per 2 GB of
 * memory (an agent CLI with its language servers and test runs), at least
 * two. A 2-core 24 GB machine gets 4; a 16-core 16 GB one gets 8.
 */
export function defaultMaxTurns(figures: Pick<MachineFigures, 'cores' | 'totalBytes'>): number {
  return Math.max(
    2,
    Math.min(2 * Math.max(1, figures.cores), Math.floor(figures.totalBytes / (2 * GIB))),
  );
}

/**
 * The setting's value as a number of turns (`auto` or empty: the default
 * from the machine). 0: no turn runs on this machine (sessions placed with
 * the host `auto` go to hosts; the others wait).
 */
export function maxTurns(value: string | undefined, figures: MachineFigures): number {
  const text = (value ?? '').trim();
  if (/^\d+$/.test(text)) return Number(text);
  return defaultMaxTurns(figures);
}

export function validateMaxTurns(value: string): string | null {
  const text = value.trim();
  if (text === '' || text === 'auto') return null;
  if (/^\d+$/.test(text) && Number(text) <= 1000) return null;
  return 'Most turns at once: give a number from 0 (none on this machine: auto places sessions on hosts) to 1000, or auto (from cores and memory).';
}

const SIZE = /^(\d+(?:\.\d+)?)\s*([kKmMgGtT])?[bB]?$/;

/** A size such as 2G, 512M, 1.5GB in bytes (binary units), or null when it is not one. */
export function parseSize(value: string): number | null {
  const match = SIZE.exec(value.trim());
  if (!match) return null;
  const scale = { k: 1024, m: 1024 ** 2, g: GIB, t: 1024 ** 4 }[
    (match[2] ?? '').toLowerCase() as 'k' | 'm' | 'g' | 't'
  ];
  return Math.round(Number(match[1]) * (scale ?? 1));
}

/** The floor in bytes (0: off). An unreadable value counts as the default. */
export function memoryFloor(value: string | undefined): number {
  const text = (value ?? '').trim();
  if (text === 'off' || text === '0') return 0;
  return (
    parseSize(text === '' ? DEFAULT_MEMORY_FLOOR : text) ?? parseSize(DEFAULT_MEMORY_FLOOR) ?? 0
  );
}

export function validateMemoryFloor(value: string): string | null {
  const text = value.trim();
  if (text === '' || text === 'off' || parseSize(text) !== null) return null;
  return 'Free memory a turn needs: give a size such as 2G or 512M, or off.';
}

/**
 * Why a turn waits: every turn slot of this machine is taken, or its free
 * memory is below the floor; every slot of the session's host is taken; or
 * (a session placed with the host `auto`) no place has room, each place's
 * reason in words (domain/placement.ts).
 */
export type AdmissionWait =
  | { readonly kind: 'slots'; readonly running: number; readonly max: number }
  | { readonly kind: 'memory'; readonly freeBytes: number; readonly floorBytes: number }
  | { readonly kind: 'host'; readonly host: string; readonly running: number; readonly max: number }
  | { readonly kind: 'place'; readonly reasons: readonly string[] }
  /** There is room, but an older turn for the same place goes first. */
  | { readonly kind: 'behind' };

/**
 * Whether one more turn may start now: null when it may, else why it waits.
 * Slots are checked first (a full house says so even when memory is short).
 */
export function admissionWait(input: {
  readonly running: number;
  readonly max: number;
  readonly freeBytes: number;
  readonly floorBytes: number;
}): AdmissionWait | null {
  if (input.running >= input.max) return { kind: 'slots', running: input.running, max: input.max };
  if (input.floorBytes > 0 && input.freeBytes < input.floorBytes)
    return { kind: 'memory', freeBytes: input.freeBytes, floorBytes: input.floorBytes };
  return null;
}

/** A size in GB with one decimal ("1.2 GB"), as the wait is shown. */
export function gigabytes(bytes: number): string {
  return `${(Math.max(0, bytes) / GIB).toFixed(1)} GB`;
}

/** The wait in words: "waiting for memory: 1.2 GB free, needs 2.0 GB". */
export function admissionText(wait: AdmissionWait): string {
  switch (wait.kind) {
    case 'slots':
      return `waiting for a turn slot: ${wait.running} of ${wait.max} running`;
    case 'memory':
      return `waiting for memory: ${gigabytes(wait.freeBytes)} free, needs ${gigabytes(wait.floorBytes)}`;
    case 'host':
      return `waiting for a turn slot on ${wait.host}: ${wait.running} of ${wait.max} running`;
    case 'place':
      return `waiting for a place with room: ${wait.reasons.length === 0 ? 'none has room' : wait.reasons.join('; ')}`;
    case 'behind':
      return 'waiting for an older turn to start first';
  }
}

/** The list's short badge for a wait. */
export function admissionBadge(wait: AdmissionWait): string {
  switch (wait.kind) {
    case 'slots':
    case 'host':
    case 'behind':
      return 'waiting for a slot';
    case 'memory':
      return 'waiting for memory';
    case 'place':
      return 'waiting for a place';
  }
}
