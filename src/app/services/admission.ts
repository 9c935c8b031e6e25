// The one admission gate for agent turns (issue 27): every turn a session's
// worker starts (a prompt, a reply, each best-of-N variant) asks it first,
// so the rules live here and nowhere else. The rules themselves are pure
// (domain/admission.ts).
import {
  MAX_TURNS_KEY,
  MEMORY_FLOOR_KEY,
  admissionWait,
  maxTurns,
  memoryFloor,
  type AdmissionWait,
  type MachineFigures,
} from '../../domain/admission.js';
import type { Host } from '../../domain/host.js';
import { choosePlace, hostMaxTurns, placeFull, type PlaceFigures } from '../../domain/placement.js';
import type { Logger } from '../../infra/log.js';
import type { HostReading } from './host-loads.js';

/** Where a session's next turn runs, as the gate needs to know it. */
export interface SessionPlace {
  /** Its host (null: this machine). */
  readonly host: string | null;
  /** Started with the host `auto` and not placed yet: this turn chooses. */
  readonly auto: boolean;
  /** Whether its agent can run on a host (only those are placed on one). */
  readonly hostsAllowed: boolean;
}

export interface AdmissionDeps {
  /** Cores and memory now (infra/machine-figures.ts; tests pass their own). */
  readonly machine: () => Promise<MachineFigures>;
  /** The global settings (capacity.maxTurns, capacity.memoryFloor). */
  readonly settings: () => Promise<Readonly<Record<string, string | undefined>>>;
  /** Turns other Grove processes run now with a live lease, by place (a host's name, '' here). */
  readonly runningElsewhere: () => Promise<Readonly<Record<string, number>>>;
  /** Where the session's turn runs; absent: this machine. */
  readonly placeOf?: (sessionId: string) => Promise<SessionPlace>;
  /** The hosts there are (their maximums). */
  readonly hosts?: () => Promise<readonly Host[]>;
  /** A host's free memory and load, kept a few seconds (services/host-loads.ts). */
  readonly hostLoad?: (host: Host) => Promise<HostReading>;
  /**
   * Records where an `auto` session goes (null: this machine) on the session;
   * `why` says what each other place lacked, in words.
   */
  readonly place?: (
    sessionId: string,
    host: string | null,
    why: readonly string[],
  ) => Promise<void>;
  /** Wakes a session's worker: its turn may now be admitted. */
  readonly wake: (sessionId: string) => void;
  /** A session's turn waits (and why), or no longer waits (null). */
  readonly onWait: (sessionId: string, wait: AdmissionWait | null) => void;
  readonly logger: Logger;
  /** How often waiting turns look again (free memory rises, another process's turn ends). */
  readonly pollMs?: number;
}

const POLL_MS = 2_000;

/** A place with room for the turn: re-counted against `max` just before the slot is taken. */
interface Room {
  /** null: this machine. */
  readonly place: string | null;
  /** What each other place lacked (an `auto` session placed on a host), in words. */
  readonly why: readonly string[];
  /** The place's most turns at once; null: not held to one. */
  readonly max: number | null;
  /** Its turns in other processes, as read. */
  readonly elsewhere?: number;
  /** The session was started with the host `auto`: where it goes is recorded on it. */
  readonly auto?: boolean;
}

/** This machine's key among the places. */
const HERE = '';

/**
 * Turn slots, by place: this machine (capacity.maxTurns and the free-memory
 * floor) and each host (its own maximum). A session asks `admit` before its
 * worker claims a turn: true takes a slot of its place (given back by
 * `release` however the turn ends), false puts the session in the queue,
 * and its worker is woken when it may have room (a slot given back, or the
 * next look every 2 s). A session started with the host `auto` is placed by
 * its first turn (domain/placement.ts): this machine when it has room, else
 * the host with room and the least load, read over the host's shared
 * connection; it waits when none has room.
 *
 * First come, first served among the turns that wait for the same place
 * (this machine, one host, or any place for `auto`). Slots are counted
 * across processes: this process's own, plus the turns other Grove
 * processes on this GROVE_HOME run with a live lease. Between processes,
 * whichever looks first when there is room goes first.
 */
export class Admission {
  /** Sessions whose turn waits, in the order they asked, with the class of places they wait for. */
  private readonly queue: { readonly id: string; kind: string }[] = [];
  /** Sessions of this process holding a slot, and the place (a host's name, '' here). */
  private readonly holding = new Map<string, string>();
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly deps: AdmissionDeps) {}

  /** Sessions holding a slot in this process. */
  get running(): number {
    return this.holding.size;
  }

  /** Whether the session's turn may start now; on true it holds a slot until `release`. */
  async admit(sessionId: string): Promise<boolean> {
    if (this.holding.has(sessionId)) return true;
    let entry = this.queue.find((e) => e.id === sessionId);
    if (!entry) {
      entry = { id: sessionId, kind: '?' };
      this.queue.push(entry);
    }
    let decision: Room | AdmissionWait;
    try {
      decision = await this.decide(sessionId, entry);
    } catch (error) {
      // The figures could not be read: a turn is not kept waiting for a check that cannot run.
      this.deps.logger.log('warn', 'the admission check could not read its figures', error);
      decision = { place: null, why: [], max: null };
    }
    // From here on nothing awaits until the slot is taken: the count and the reservation are one step.
    if ('place' in decision && decision.max !== null) {
      const key = decision.place ?? HERE;
      const now = this.count(key, decision.elsewhere ?? 0);
      if (now >= decision.max)
        decision =
          decision.place === null
            ? { kind: 'slots', running: now, max: decision.max }
            : { kind: 'host', host: decision.place, running: now, max: decision.max };
    }
    const older = this.queue.find((e) => e.kind === entry.kind || e.kind === '?');
    if ('place' in decision && older !== undefined && older.id !== sessionId) {
      // There is room, but an older turn waiting for the same places goes first.
      this.deps.wake(older.id);
      this.deps.onWait(sessionId, { kind: 'behind' });
      this.schedule();
      return false;
    }
    if (!('place' in decision)) {
      this.deps.onWait(sessionId, decision);
      this.schedule();
      return false;
    }
    this.queue.splice(this.queue.indexOf(entry), 1);
    this.holding.set(sessionId, decision.place ?? HERE);
    if (decision.auto && this.deps.place) {
      try {
        await this.deps.place(sessionId, decision.place, decision.why);
      } catch (error) {
        this.deps.logger.log('error', `recording where ${sessionId} runs failed`, error);
        this.holding.delete(sessionId);
        this.queue.unshift(entry);
        this.schedule();
        return false;
      }
    }
    this.deps.onWait(sessionId, null);
    this.schedule();
    // The next in line may fit too (another free slot).
    this.wakeHeads();
    return true;
  }

  /**
   * Where the turn may run now ({place}, null: here), or why it waits. Sets
   * the entry's class: '' (this machine), a host's name, or 'auto'.
   */
  private async decide(sessionId: string, entry: { kind: string }): Promise<Room | AdmissionWait> {
    const { deps } = this;
    const [figures, settings, elsewhere, where] = await Promise.all([
      deps.machine(),
      deps.settings(),
      deps.runningElsewhere(),
      deps.placeOf?.(sessionId) ?? { host: null, auto: false, hostsAllowed: false },
    ]);
    const auto = where.auto && where.hostsAllowed && deps.hosts && deps.hostLoad;
    entry.kind = where.auto ? (auto ? 'auto' : HERE) : (where.host ?? HERE);
    const floorBytes = memoryFloor(settings[MEMORY_FLOOR_KEY]);
    const localMax = maxTurns(settings[MAX_TURNS_KEY], figures);
    const running = (place: string): number => this.count(place, elsewhere[place] ?? 0);
    const room = (place: string | null, max: number | null, why: readonly string[] = []): Room => ({
      place,
      why,
      max,
      elsewhere: elsewhere[place ?? HERE] ?? 0,
      auto: where.auto,
    });
    const localWait = (): AdmissionWait | null =>
      admissionWait({
        running: running(HERE),
        max: localMax,
        freeBytes: figures.availableBytes,
        floorBytes,
      });
    if (where.host !== null && !where.auto) {
      const host = (await deps.hosts?.())?.find((h) => h.name === where.host);
      // A host removed since, or no reading for an auto maximum: the turn is not held for it.
      if (!host) return room(where.host, null);
      const max =
        host.maxSessions ??
        (await deps.hostLoad?.(host).then((r) => (r.load ? hostMaxTurns(null, r.load) : null))) ??
        null;
      return room(host.name, max);
    }
    if (!auto) return localWait() ?? room(null, localMax);
    // `auto`: this machine when it has room, with no ssh at all.
    if (localWait() === null) return room(null, localMax);
    const hosts = (await deps.hosts?.()) ?? [];
    const read = deps.hostLoad;
    const readings: (HostReading | undefined)[] = read
      ? await Promise.all(hosts.map((h) => read(h)))
      : [];
    const places: PlaceFigures[] = [
      {
        host: null,
        running: running(HERE),
        max: localMax,
        freeBytes: figures.availableBytes,
        loadPerCore: null,
        problem: null,
      },
      ...hosts.map((h, i): PlaceFigures => {
        const load = readings[i]?.load ?? null;
        return {
          host: h.name,
          running: running(h.name),
          max: h.maxSessions ?? (load ? hostMaxTurns(null, load) : null),
          freeBytes: load?.availableBytes ?? null,
          loadPerCore: load ? load.load1 / load.cores : null,
          problem: load ? null : (readings[i]?.problem ?? 'not read'),
        };
      }),
    ];
    const placement = choosePlace(places, floorBytes, true);
    if (placement.kind === 'wait') return { kind: 'place', reasons: placement.reasons };
    const why = places.flatMap((p) => {
      if (p.host === placement.host) return [];
      const full = placeFull(p, floorBytes);
      return full === null ? [] : [full];
    });
    const chosen = places.find((p) => p.host === placement.host);
    return room(placement.host, chosen?.max ?? null, why);
  }

  /** Turns at a place now: this process's holding it, and `elsewhere` of other processes. */
  private count(place: string, elsewhere: number): number {
    let mine = 0;
    for (const p of this.holding.values()) if (p === place) mine += 1;
    return mine + elsewhere;
  }

  /** The session's turn ended (done, failed, canceled, or its process crashed): its slot is free. */
  release(sessionId: string): void {
    if (!this.holding.delete(sessionId)) return;
    this.wakeHeads();
  }

  /** The session no longer has a turn waiting (canceled, removed): it leaves the queue. */
  withdraw(sessionId: string): void {
    const at = this.queue.findIndex((e) => e.id === sessionId);
    if (at < 0) return;
    this.queue.splice(at, 1);
    this.deps.onWait(sessionId, null);
    this.wakeHeads();
    this.schedule();
  }

  /** Whether the session's turn waits in the queue. */
  waiting(sessionId: string): boolean {
    return this.queue.some((e) => e.id === sessionId);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Wakes the oldest waiting turn of each class of places (each may now have room). */
  private wakeHeads(): void {
    const seen = new Set<string>();
    for (const entry of this.queue) {
      if (seen.has(entry.kind)) continue;
      seen.add(entry.kind);
      this.deps.wake(entry.id);
    }
  }

  /** While turns wait, the heads look again every few seconds (nothing polls when none waits). */
  private schedule(): void {
    if (this.queue.length === 0) {
      this.stop();
      return;
    }
    if (this.timer) return;
    this.timer = setInterval(() => {
      if (this.queue.length === 0) this.stop();
      else this.wakeHeads();
    }, this.deps.pollMs ?? POLL_MS);
    this.timer.unref();
  }
}
