import { sampleResources, type ProcessTable, type ResourceSample } from '../../domain/resources.js';
import type { App } from '../app.js';

/** How often the process table is read while an agent runs: once a second for all sessions together. */
export const SAMPLE_INTERVAL_MS = 1000;

export interface ResourceSamplerDeps {
  readonly app: App;
  /** The process groups of the running agents, by session (the launcher's; no I/O). */
  readonly roots: () => ReadonlyMap<string, readonly number[]>;
  /** Reads the process table (infra/proc.ts); null where the OS has none. */
  readonly read: () => Promise<ProcessTable | null>;
  /** Grove's own pid: its tree and every agent's make Grove's total. */
  readonly self: number;
  readonly intervalMs?: number;
  /** Samplers that follow this one's watched state and stop with it (the hosts' figures). */
  readonly followers?: readonly { pause(): void; resume(): void; stop(): void }[];
}

/**
 * Samples what each session's agent process tree uses, for the list, the
 * session view and the header. It reads the process table once per interval
 * for all sessions together, only while an agent runs and the screen is
 * watched; it wakes on the first app event after an agent starts (a turn's
 * events) and stops by itself, clearing the figures, when the last agent
 * has ended. The reading is asynchronous and its result enters the state as
 * one `resourcesSampled` event, so nothing of it is on the key or render path.
 */
export class ResourceSampler {
  private timer: NodeJS.Timeout | null = null;
  private reading = false;
  private previous: ProcessTable | null = null;
  private shown = false;
  private paused = false;
  private stopped = false;

  /** A reading is scheduled or under way. */
  get sampling(): boolean {
    return this.timer !== null || this.reading;
  }

  constructor(private readonly deps: ResourceSamplerDeps) {
    deps.app.subscribe((event) => {
      if (event.type !== 'resourcesSampled') this.wake();
    });
  }

  /** Starts sampling if an agent runs and none is scheduled; cheap enough for every event. */
  wake(): void {
    if (this.timer || this.reading || this.paused || this.stopped) return;
    if (this.deps.roots().size === 0) return;
    this.schedule(0);
  }

  /** The screen is not watched (the terminal lost focus): no reading until resume(). */
  pause(): void {
    for (const follower of this.deps.followers ?? []) follower.pause();
    this.paused = true;
    this.cancel();
    // The next reading after a pause counts CPU from then, not across the pause.
    this.previous = null;
  }

  resume(): void {
    for (const follower of this.deps.followers ?? []) follower.resume();
    this.paused = false;
    this.wake();
  }

  /** Stops for good (Grove is quitting). */
  stop(): void {
    for (const follower of this.deps.followers ?? []) follower.stop();
    this.stopped = true;
    this.cancel();
  }

  private cancel(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private schedule(delay: number): void {
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.cycle();
    }, delay);
    this.timer.unref();
  }

  private async cycle(): Promise<void> {
    if (this.paused || this.stopped) return;
    const roots = this.deps.roots();
    if (roots.size === 0) {
      this.previous = null;
      if (this.shown) {
        this.shown = false;
        this.deps.app.emit({ type: 'resourcesSampled', sample: null });
      }
      return;
    }
    this.reading = true;
    let table: ProcessTable | null = null;
    try {
      table = await this.deps.read();
    } catch {
      table = null;
    } finally {
      this.reading = false;
    }
    if (this.paused || this.stopped) return;
    // No process table on this OS (macOS): nothing to show, and no point asking again.
    if (!table) {
      this.stopped = true;
      return;
    }
    const sample = sampleResources(table, this.previous, roots, this.deps.self);
    this.previous = table;
    this.shown = true;
    this.deps.app.emit({ type: 'resourcesSampled', sample });
    this.schedule(this.deps.intervalMs ?? SAMPLE_INTERVAL_MS);
  }
}

/** One sample on demand (headless commands): CPU is each tree's average since it started. */
export async function sampleOnce(
  roots: ReadonlyMap<string, readonly number[]>,
  read: () => Promise<ProcessTable | null>,
  self: number,
): Promise<ResourceSample | null> {
  if (roots.size === 0) return null;
  const table = await read();
  return table ? sampleResources(table, null, roots, self) : null;
}
