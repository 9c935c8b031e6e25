import type { AppIntents } from './intents.js';
import type { AppEvent } from './events.js';
import { reduce } from './reducer.js';
import type { AppState } from './state.js';

export interface TaskReporter {
  log(level: 'debug' | 'info' | 'warn' | 'error', message: string, detail?: unknown): void;
}

/**
 * Holds the snapshot and the app-event queue. Workers and tasks `emit`
 * (queued, reduced by the loop before the next frame); key handlers `apply`
 * (reduced at once, so the next key sees the change).
 */
export class App {
  private current: AppState;
  private readonly queue: AppEvent[] = [];
  private wake: () => void = () => {};
  private intentSet: AppIntents | null = null;
  private readonly listeners: ((event: AppEvent) => void)[] = [];

  constructor(
    initial: AppState,
    private readonly reporter: TaskReporter,
  ) {
    this.current = initial;
  }

  get state(): AppState {
    return this.current;
  }

  get intents(): AppIntents {
    if (!this.intentSet) throw new Error('App intents are not set');
    return this.intentSet;
  }

  setIntents(intents: AppIntents): void {
    this.intentSet = intents;
  }

  onWake(listener: () => void): void {
    this.wake = listener;
  }

  /** Queue an event from async work; the loop reduces it before drawing. */
  emit(event: AppEvent): void {
    this.queue.push(event);
    for (const listener of this.listeners) listener(event);
    this.wake();
  }

  /** Sees every emitted event (headless commands print progress from them). */
  subscribe(listener: (event: AppEvent) => void): void {
    this.listeners.push(listener);
  }

  /** Reduce an event now (key handlers). */
  apply(event: AppEvent): void {
    this.current = reduce(this.current, event);
  }

  /** Reduce every queued event. */
  drain(): void {
    if (this.queue.length === 0) return;
    let state = this.current;
    for (const event of this.queue.splice(0)) state = reduce(state, event);
    this.current = state;
  }

  /**
   * Run async work off the key path. Failures become a notice on screen and
   * a line in the log, never a crash.
   */
  task(label: string, work: () => Promise<void>): void {
    setImmediate(() => {
      work().catch((error: unknown) => {
        this.reporter.log('error', `${label} failed`, error);
        const message = error instanceof Error ? error.message : String(error);
        this.emit({ type: 'notice', notice: { level: 'error', text: `${label}: ${message}` } });
      });
    });
  }
}
