import type { AppIntents } from '../../src/app/intents.js';
import type { AppEvent } from '../../src/app/events.js';
import { reduce } from '../../src/app/reducer.js';
import type { AppState } from '../../src/app/state.js';
import type { Key, TerminalEvent } from '../../src/domain/keys.js';
import { parseKeyId } from '../../src/domain/keys.js';
import { KEYMAP, type ModeName } from '../../src/domain/keymap.js';
import { dispatchTerminalEvent } from '../../src/runtime/dispatch.js';
import { KeyDecoder } from '../../src/runtime/key-decoder.js';
import type { KeyContext } from '../../src/runtime/modes/context.js';

// Key handlers turn keys into intents: reducer events they apply and app
// intents they call. Here the app's intent surface is a recording fake (the
// thing under test is the key → intent mapping, not the app) and the events
// go through the real reducer, so a sequence of keys sees its own changes.

/** One call a handler made on the app's intent surface (`AppIntents`). */
export interface IntentCall {
  readonly method: keyof AppIntents;
  readonly args: readonly unknown[];
}

export interface KeyRun {
  /** The snapshot after every key. */
  readonly state: AppState;
  /** Reducer events the handlers applied, in order. */
  readonly events: readonly AppEvent[];
  /** Intent calls the handlers made, in order. */
  readonly calls: readonly IntentCall[];
}

/** An AppIntents whose every method records its call (methods added later included). */
export function recordingIntents(calls: IntentCall[]): AppIntents {
  return new Proxy({} as AppIntents, {
    get(_target, method) {
      if (typeof method !== 'string') return undefined;
      return (...args: unknown[]) => {
        calls.push({ method: method as keyof AppIntents, args });
      };
    },
  });
}

function runEvents(state: AppState, events: readonly TerminalEvent[]): KeyRun {
  const applied: AppEvent[] = [];
  const calls: IntentCall[] = [];
  let current = state;
  const ctx: KeyContext = {
    get state() {
      return current;
    },
    apply(event) {
      applied.push(event);
      current = reduce(current, event);
    },
    intents: recordingIntents(calls),
  };
  for (const event of events) dispatchTerminalEvent(ctx, event);
  return { state: current, events: applied, calls };
}

/** Feeds keys (binding ids such as `j`, `ctrl+c`, `shift+tab`, or decoded Keys) to the current mode's handler. */
export function pressKeys(state: AppState, keys: readonly (string | Key)[]): KeyRun {
  return runEvents(
    state,
    keys.map((key) => ({ type: 'key', key: typeof key === 'string' ? parseKeyId(key) : key })),
  );
}

/** Decodes raw terminal input (as a terminal sends it) and feeds the events to the handlers. */
export function typeInput(state: AppState, raw: string): KeyRun {
  const decoder = new KeyDecoder();
  return runEvents(state, [...decoder.feed(raw), ...decoder.flushPending()]);
}

/** Every (key, action) pair of a mode's key-binding table, for table tests. */
export function bindingRows(mode: ModeName): [key: string, action: string][] {
  const rows: readonly { keys: readonly string[]; action: string }[] = KEYMAP[mode];
  return rows.flatMap((row) => row.keys.map((key): [string, string] => [key, row.action]));
}

/** Keys from `candidates` that no row of `mode` binds (nor the inbox key, which answers in every mode). */
export function unboundKeys(mode: ModeName, candidates: readonly string[]): string[] {
  const inbox = bindingRows('inbox').filter(([, action]) => action === 'open');
  const bound = new Set([...bindingRows(mode), ...inbox].map(([key]) => key));
  return candidates.filter((key) => !bound.has(key));
}

/** Keys that are rarely bound anywhere; each mode's table filters out its own. */
export const SPARE_KEYS = [
  'x',
  'z',
  'Z',
  '1',
  '!',
  'ctrl+x',
  'ctrl+o',
  'alt+q',
  'f5',
  'insert',
  'delete',
  'space',
] as const;
