// The hosts' free memory and load (issue 24, item 6), read over each host's
// shared ssh connection and kept a few seconds: the placement of `auto`
// sessions and the header's host figures ask here, so a burst of decisions
// (or a decision and a frame) costs one reading per host, and two askers at
// once share the one in flight. The last good reading is kept in the store
// (`grove host ls --json` shows it).
import type { Host } from '../../domain/host.js';
import type { HostLoad } from '../../domain/placement.js';
import type { Logger } from '../../infra/log.js';

/** A host's reading as the placement and the header take it. */
export interface HostReading {
  /** The figures; null when the host could not be read. */
  readonly load: HostLoad | null;
  /** Why it could not be read, in words; null when it was. */
  readonly problem: string | null;
  /** When this was read or tried (ms since the epoch). */
  readonly at: number;
}

export interface HostLoadsDeps {
  /** Reads the host now (runtime.hostLoad); throws in words when it cannot. */
  readonly read: (host: Host) => Promise<HostLoad>;
  /** Keeps a good reading (store.hosts.saveLoad). */
  readonly save: (name: string, load: HostLoad) => Promise<void>;
  readonly now: () => number;
  readonly logger: Logger;
  /** How long a reading (or a failed try) stands. */
  readonly freshMs?: number;
}

/** A reading stands this long: a host's load changes over seconds, a decision must not wait on ssh each time. */
export const HOST_LOAD_FRESH_MS = 5_000;

export class HostLoads {
  private readonly readings = new Map<string, HostReading>();
  private readonly inFlight = new Map<string, Promise<HostReading>>();

  constructor(private readonly deps: HostLoadsDeps) {}

  /** The host's reading, read again only when the last is older than a few seconds. */
  get(host: Host): Promise<HostReading> {
    const last = this.readings.get(host.name);
    if (last && this.deps.now() - last.at < (this.deps.freshMs ?? HOST_LOAD_FRESH_MS))
      return Promise.resolve(last);
    const pending = this.inFlight.get(host.name);
    if (pending) return pending;
    const reading = this.read(host).finally(() => this.inFlight.delete(host.name));
    this.inFlight.set(host.name, reading);
    return reading;
  }

  /** The readings there are, without reading. */
  last(): ReadonlyMap<string, HostReading> {
    return this.readings;
  }

  private async read(host: Host): Promise<HostReading> {
    let reading: HostReading;
    try {
      const load = await this.deps.read(host);
      reading = { load, problem: null, at: this.deps.now() };
      await this.deps
        .save(host.name, load)
        .catch((error: unknown) =>
          this.deps.logger.log('warn', `keeping the reading of ${host.name} failed`, error),
        );
    } catch (error) {
      const problem = error instanceof Error ? error.message : String(error);
      if (this.readings.get(host.name)?.problem !== problem)
        this.deps.logger.log('warn', `${host.name} could not be read for placement: ${problem}`);
      reading = { load: null, problem, at: this.deps.now() };
    }
    this.readings.set(host.name, reading);
    return reading;
  }
}
