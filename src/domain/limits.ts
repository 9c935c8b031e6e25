// Session limits (issue 27, item 3): the most memory and the most processes
// an agent's whole process tree may use, enforced by the operating system
// (infra/agent/confine/limits.ts). Pure rules: the settings, their checks and
// the words a session shows.

import { parseSize } from './admission.js';

/** The default memory limit of each session's agent (project setting; empty: none). */
export const MEMORY_MAX_KEY = 'capacity.memoryMax';
/** The default process-count limit of each session's agent (project setting; empty: none). */
export const TASKS_MAX_KEY = 'capacity.tasksMax';

const MIB = 1024 ** 2;
/** Below this an agent CLI cannot even start (Node alone takes about 40 MB). */
const MIN_MEMORY = 32 * MIB;
const MAX_MEMORY = 1024 ** 5;
/** A Node CLI counts its threads too (about ten). */
const MIN_TASKS = 8;
const MAX_TASKS = 4_194_304;

/** The limits one agent runs under; null: that one is not limited. */
export interface SessionLimits {
  readonly memoryBytes: number | null;
  readonly tasks: number | null;
}

export const NO_LIMITS: SessionLimits = { memoryBytes: null, tasks: null };

export function hasLimits(limits: SessionLimits): boolean {
  return limits.memoryBytes !== null || limits.tasks !== null;
}

function noLimit(text: string): boolean {
  return text === '' || text === 'none' || text === 'off';
}

export function validateMemoryMax(value: string): string | null {
  const text = value.trim();
  if (noLimit(text)) return null;
  const bytes = parseSize(text);
  if (bytes !== null && bytes >= MIN_MEMORY && bytes <= MAX_MEMORY) return null;
  return `Memory limit: give a size from 32M to 1P such as 4G or 512M, or none (got '${text}').`;
}

export function validateTasksMax(value: string): string | null {
  const text = value.trim();
  if (noLimit(text)) return null;
  if (/^\d+$/.test(text) && Number(text) >= MIN_TASKS && Number(text) <= MAX_TASKS) return null;
  return `Process limit: give a number of processes from ${MIN_TASKS} to ${MAX_TASKS}, or none (got '${text}').`;
}

/** The stored or given values as limits; a value that does not pass its check counts as none. */
export function sessionLimits(
  memory: string | null | undefined,
  tasks: string | null | undefined,
): SessionLimits {
  const m = (memory ?? '').trim();
  const t = (tasks ?? '').trim();
  return {
    memoryBytes: noLimit(m) || validateMemoryMax(m) !== null ? null : parseSize(m),
    tasks: noLimit(t) || validateTasksMax(t) !== null ? null : Number(t),
  };
}

/**
 * A session's own value (`grove run --memory-max`) over the project's: an
 * absent or empty session value takes the project's, `none` turns it off.
 */
export function effectiveLimit(
  own: string | null | undefined,
  project: string | undefined,
): string {
  const mine = (own ?? '').trim();
  return mine === '' ? (project ?? '').trim() : mine;
}

/** A size as a limit is said: "4 GB", "1.5 GB", "64 MB". */
export function sizeWords(bytes: number): string {
  const units: readonly [number, string][] = [
    [1024 ** 4, 'TB'],
    [1024 ** 3, 'GB'],
    [MIB, 'MB'],
    [1024, 'KB'],
  ];
  for (const [scale, unit] of units)
    if (bytes >= scale) {
      const n = bytes / scale;
      return `${Number.isInteger(n) ? n : Number(n.toFixed(1))} ${unit}`;
    }
  return `${bytes} bytes`;
}

/** Which limit an agent's tree met. */
export type LimitHit =
  | { readonly kind: 'memory'; readonly bytes: number }
  | { readonly kind: 'tasks'; readonly tasks: number };

/** The words of a turn that met its limit: "the agent's process tree was stopped at its 4 GB memory limit". */
export function limitHitText(hit: LimitHit): string {
  return hit.kind === 'memory'
    ? `the agent's process tree was stopped at its ${sizeWords(hit.bytes)} memory limit`
    : `the agent's process tree was stopped at its ${hit.tasks}-process limit`;
}

/** The limits in a few words ("4 GB memory, 512 processes"), for the transcript and doctor. */
export function limitsWords(limits: SessionLimits): string {
  const parts = [
    ...(limits.memoryBytes === null ? [] : [`${sizeWords(limits.memoryBytes)} memory`]),
    ...(limits.tasks === null ? [] : [`${limits.tasks} processes`]),
  ];
  return parts.join(', ');
}

/**
 * The one transcript line of a turn whose limits cannot be enforced: the
 * turn runs without them (the documented behaviour, docs/usage/capacity.md).
 */
export function limitsUnavailableText(limits: SessionLimits, reason: string): string {
  return `[Limits Warning] This session's limits (${limitsWords(limits)}) are not enforced on this machine: ${reason}. The agent runs without them.`;
}
