import type { App } from '../app/app.js';
import { isWorking } from '../domain/session-status.js';
import type { AppState } from '../app/state.js';
import type { TerminalEvent } from '../domain/keys.js';
import { KeyDecoder } from './key-decoder.js';
import { dispatchTerminalEvent } from './dispatch.js';
import type { KeyContext } from './modes/context.js';
import type { Renderer } from './renderer.js';
import type { Terminal } from './terminal.js';

const TICK_MS = 50;
/**
 * Frames caused by app events alone (agents streaming, pollers) are drawn at
 * most this often; a frame a key asked for is drawn at once. Twenty sessions
 * streaming send hundreds of events a second, and a frame for each would
 * spend the whole core on drawing what nobody can read that fast.
 */
export const BACKGROUND_FRAME_MS = 40;
/** A lone Esc byte waits this long for the rest of an Alt/escape sequence. */
const ESCAPE_WAIT_MS = 30;

/** Something on screen moves with time (spinners, timers): tick while it does. */
export function needsTick(state: AppState): boolean {
  if (state.popup?.kind === 'info' && state.popup.busy) return true;
  if (state.mode.kind === 'diff' && state.diff?.loading) return true;
  // A notice goes after a few seconds: the tick's clock runs while one is shown.
  if (state.notice) return true;
  return state.sessions.some((s) => isWorking(s.status) || s.activeSince !== null);
}

export interface LoopOptions {
  readonly app: App;
  readonly terminal: Terminal;
  readonly renderer: Renderer;
  readonly now: () => number;
  /** Called after each drawn frame with its duration (for the log and benchmarks). */
  readonly onFrame?: (ms: number) => void;
  /** A monotonic clock in ms for frame pacing (performance.now by default; tests pass their own). */
  readonly monotonic?: () => number;
}

/**
 * The three-channel loop: terminal events, app events and a 50 ms tick.
 * All queued app events are reduced before drawing; all queued terminal
 * events are handled in one pass; a frame is drawn only when the snapshot
 * changed. With nothing animating the tick is off and the loop sleeps.
 */
export async function runLoop(options: LoopOptions): Promise<void> {
  const { app, terminal, renderer } = options;
  const decoder = new KeyDecoder();
  const terminalQueue: TerminalEvent[] = [];
  let wakeUp: (() => void) | null = null;
  let woken = false;
  let tickDue = false;
  let tickTimer: NodeJS.Timeout | null = null;
  let escapeTimer: NodeJS.Timeout | null = null;
  let paceTimer: NodeJS.Timeout | null = null;
  const monotonic = options.monotonic ?? (() => performance.now());
  let lastFrameAt = -Infinity;

  const wake = (): void => {
    woken = true;
    const resolve = wakeUp;
    wakeUp = null;
    resolve?.();
  };
  const sleep = (): Promise<void> => {
    if (woken) return Promise.resolve();
    return new Promise((resolve) => {
      wakeUp = resolve;
    });
  };

  app.onWake(wake);
  terminal.onData((chunk) => {
    terminalQueue.push(...decoder.feed(chunk));
    if (escapeTimer) clearTimeout(escapeTimer);
    if (decoder.hasPending) {
      escapeTimer = setTimeout(() => {
        escapeTimer = null;
        terminalQueue.push(...decoder.flushPending());
        wake();
      }, ESCAPE_WAIT_MS);
    }
    wake();
  });
  terminal.onResize((columns, rows) => {
    renderer.invalidate();
    app.emit({ type: 'resize', columns, rows });
  });

  const ctx: KeyContext = {
    get state() {
      return app.state;
    },
    apply: (event) => app.apply(event),
    intents: app.intents,
  };

  const armTick = (on: boolean): void => {
    if (on && !tickTimer) {
      tickTimer = setInterval(() => {
        tickDue = true;
        wake();
      }, TICK_MS);
    } else if (!on && tickTimer) {
      clearInterval(tickTimer);
      tickTimer = null;
    }
  };

  let drawn: AppState | null = null;
  try {
    for (;;) {
      // Cleared before the work, so a wake during the work is not lost.
      woken = false;
      app.drain();
      const keyed = terminalQueue.length > 0;
      while (terminalQueue.length > 0) {
        const event = terminalQueue.shift();
        if (event) dispatchTerminalEvent(ctx, event);
        app.drain();
      }
      if (tickDue) {
        tickDue = false;
        // Round to a tenth of a second: spinners move at 10 fps, timers per second.
        app.apply({ type: 'tick', now: Math.floor(options.now() / 100) * 100 });
      }
      if (app.state.exiting) break;
      if (app.state !== drawn) {
        const wait = keyed || drawn === null ? 0 : lastFrameAt + BACKGROUND_FRAME_MS - monotonic();
        if (wait <= 0) {
          if (paceTimer) clearTimeout(paceTimer);
          paceTimer = null;
          const started = performance.now();
          renderer.draw(app.state);
          drawn = app.state;
          lastFrameAt = monotonic();
          options.onFrame?.(performance.now() - started);
        } else if (!paceTimer) {
          // The events that came meanwhile are drawn together in one frame.
          paceTimer = setTimeout(() => {
            paceTimer = null;
            wake();
          }, wait);
        }
      }
      armTick(needsTick(app.state));
      await sleep();
    }
  } finally {
    armTick(false);
    if (escapeTimer) clearTimeout(escapeTimer);
    if (paceTimer) clearTimeout(paceTimer);
  }
}
