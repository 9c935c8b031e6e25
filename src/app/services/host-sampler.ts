// The hosts' figures for the TUI's header (issue 24, item 6): every few
// seconds, while the TUI is open and watched, each host's reading (through
// HostLoads: one short command over its shared connection, shared with the
// placement's) and its turns running, entered as one `hostsSampled` event.
// Nothing of it is on the key or render path; with no hosts nothing is read
// but the host list.
import type { HostFigures } from '../../domain/placement.js';
import type { App } from '../app.js';
import type { Store } from '../ports.js';
import { HOST_LOAD_FRESH_MS, type HostLoads } from './host-loads.js';

export interface HostSamplerDeps {
  readonly app: App;
  readonly store: Store;
  readonly loads: HostLoads;
  readonly now: () => number;
  readonly intervalMs?: number;
}

export class HostSampler {
  private timer: NodeJS.Timeout | null = null;
  private paused = false;
  private stopped = false;
  private last = '';

  constructor(private readonly deps: HostSamplerDeps) {}

  /** Reads now, then every few seconds. */
  start(): void {
    if (this.timer || this.stopped || this.paused) return;
    this.schedule(0);
  }

  /** The screen is not watched (the terminal lost focus): no reading until resume(). */
  pause(): void {
    this.paused = true;
    this.cancel();
  }

  resume(): void {
    this.paused = false;
    this.start();
  }

  stop(): void {
    this.stopped = true;
    this.cancel();
  }

  private cancel(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private schedule(delay: number): void {
    this.timer = setTimeout(() => void this.cycle(), delay);
    this.timer.unref();
  }

  private async cycle(): Promise<void> {
    const { store, loads, app } = this.deps;
    let hosts: HostFigures[] = [];
    try {
      const [list, running] = await Promise.all([
        store.hosts.list(),
        // Every process's turns (no owner is ''), this one's included.
        store.operations.runningTurnsElsewhere('', this.deps.now()),
      ]);
      const readings = await Promise.all(list.map((h) => loads.get(h)));
      hosts = list.map((h, i) => ({
        name: h.name,
        load: readings[i]?.load ?? null,
        away: readings[i]?.problem != null,
        running: running[h.name] ?? 0,
        max: h.maxSessions ?? null,
      }));
    } catch {
      hosts = [];
    }
    this.timer = null;
    if (this.stopped || this.paused) return;
    // One event only when what the header shows changed.
    const shown = JSON.stringify(
      hosts.map((h) => ({ ...h, load: h.load && { ...h.load, readAt: 0 } })),
    );
    if (shown !== this.last) {
      this.last = shown;
      app.emit({ type: 'hostsSampled', hosts });
    }
    this.schedule(this.deps.intervalMs ?? HOST_LOAD_FRESH_MS);
  }
}
