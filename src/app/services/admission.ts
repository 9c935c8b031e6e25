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
import type { Logger } from '../../infra/log.js';

export interface AdmissionDeps {
  /** Cores and memory now (infra/machine-figures.ts; tests pass their own). */
  readonly machine: () => Promise<MachineFigures>;
  /** The global settings (capacity.maxTurns, capacity.memoryFloor). */
  readonly settings: () => Promise<Readonly<Record<string, string | undefined>>>;
  /** Turns other Grove processes run now with a live lease (the database's count). */
  readonly runningElsewhere: () => Promise<number>;
  /** Wakes a session's worker: its turn may now be admitted. */
  readonly wake: (sessionId: string) => void;
  /** A session's turn waits (and why), or no longer waits (null). */
  readonly onWait: (sessionId: string, wait: AdmissionWait | null) => void;
  readonly logger: Logger;
  /** How often waiting turns look again (free memory rises, another process's turn ends). */
  readonly pollMs?: number;
}

const POLL_MS = 2_000;

/**
 * Turn slots, first come first served across sessions. A session asks
 * `admit` before its worker claims a turn: true takes a slot (given back by
 * `release` however the turn ends), false puts the session in the queue in
 * the order it asked, and its worker is woken when it is at the head and
 * there may be room (a slot given back, or the next look every 2 s).
 *
 * Slots are counted across processes: this process's own, plus the turns
 * other Grove processes on this GROVE_HOME run with a live lease (`grove
 * run` beside the TUI). The order is kept within a process; between
 * processes, whichever looks first when there is room goes first.
 */
export class Admission {
  /** Sessions whose turn waits, in the order they asked. */
  private readonly queue: string[] = [];
  /** Sessions of this process holding a slot. */
  private readonly holding = new Set<string>();
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly deps: AdmissionDeps) {}

  /** Sessions holding a slot in this process. */
  get running(): number {
    return this.holding.size;
  }

  /** Whether the session's turn may start now; on true it holds a slot until `release`. */
  async admit(sessionId: string): Promise<boolean> {
    if (this.holding.has(sessionId)) return true;
    if (!this.queue.includes(sessionId)) this.queue.push(sessionId);
    let wait: AdmissionWait | null;
    let running = this.holding.size;
    let max = running;
    try {
      const [figures, settings, elsewhere] = await Promise.all([
        this.deps.machine(),
        this.deps.settings(),
        this.deps.runningElsewhere(),
      ]);
      // From here on nothing awaits: the count and the reservation are one step.
      running = this.holding.size + elsewhere;
      max = maxTurns(settings[MAX_TURNS_KEY], figures);
      wait = admissionWait({
        running,
        max,
        freeBytes: figures.availableBytes,
        floorBytes: memoryFloor(settings[MEMORY_FLOOR_KEY]),
      });
    } catch (error) {
      // The figures could not be read: a turn is not kept waiting for a check that cannot run.
      this.deps.logger.log('warn', 'the admission check could not read its figures', error);
      wait = null;
    }
    const head = this.queue[0];
    if (wait === null && head === sessionId) {
      this.queue.shift();
      this.holding.add(sessionId);
      this.deps.onWait(sessionId, null);
      this.schedule();
      // The next in line may fit too (another free slot).
      const next = this.queue[0];
      if (next !== undefined) this.deps.wake(next);
      return true;
    }
    // There is room, but an older turn goes first: it is woken, this one waits its turn.
    if (wait === null && head !== undefined) this.deps.wake(head);
    this.deps.onWait(sessionId, wait ?? { kind: 'slots', running, max });
    this.schedule();
    return false;
  }

  /** The session's turn ended (done, failed, canceled, or its process crashed): its slot is free. */
  release(sessionId: string): void {
    if (!this.holding.delete(sessionId)) return;
    const next = this.queue[0];
    if (next !== undefined) this.deps.wake(next);
  }

  /** The session no longer has a turn waiting (canceled, removed): it leaves the queue. */
  withdraw(sessionId: string): void {
    const at = this.queue.indexOf(sessionId);
    if (at < 0) return;
    this.queue.splice(at, 1);
    this.deps.onWait(sessionId, null);
    if (at === 0 && this.queue[0] !== undefined) this.deps.wake(this.queue[0]);
    this.schedule();
  }

  /** Whether the session's turn waits in the queue. */
  waiting(sessionId: string): boolean {
    return this.queue.includes(sessionId);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** While turns wait, the head looks again every few seconds (nothing polls when none waits). */
  private schedule(): void {
    if (this.queue.length === 0) {
      this.stop();
      return;
    }
    if (this.timer) return;
    this.timer = setInterval(() => {
      const head = this.queue[0];
      if (head === undefined) this.stop();
      else this.deps.wake(head);
    }, this.deps.pollMs ?? POLL_MS);
    this.timer.unref();
  }
}
