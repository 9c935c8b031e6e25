// The event loop's frame pacing (src/runtime/loop.ts): frames that only app
// events ask for are drawn at most once per BACKGROUND_FRAME_MS, all pending
// events together; a key's frame is drawn at once. The loop runs for real
// with the real App and reducer; the terminal and the renderer are recorders,
// and the pacing clock is the test's (it never moves unless the test moves it).
import { afterEach, describe, expect, it } from 'vitest';
import { App } from '../../src/app/app.js';
import type { AppIntents } from '../../src/app/intents.js';
import type { AppState } from '../../src/app/state.js';
import { BACKGROUND_FRAME_MS, runLoop } from '../../src/runtime/loop.js';
import type { Renderer } from '../../src/runtime/renderer.js';
import type { Terminal } from '../../src/runtime/terminal.js';
import { makeSession } from '../helpers/session-factory.js';
import { bareState } from '../helpers/state.js';

interface World {
  app: App;
  frames: AppState[];
  type(chunk: string): void;
  clock: { now: number };
  done: Promise<void>;
}

let running: World | null = null;

function start(): World {
  const app = new App(bareState(), { log: () => {} });
  // The keys used here (?) only change the snapshot; no command is called.
  app.setIntents({} as AppIntents);
  const frames: AppState[] = [];
  let onData: (chunk: string) => void = () => {};
  const terminal: Terminal = {
    columns: 100,
    rows: 30,
    write: () => {},
    onData: (listener) => {
      onData = listener;
    },
    onResize: () => {},
    restore: () => {},
    suspend: () => {},
    resume: () => {},
    suspended: false,
  };
  const renderer: Renderer = {
    draw: (state) => frames.push(state),
    invalidate: () => {},
    unmount: () => {},
  };
  const clock = { now: 1_000 };
  const done = runLoop({
    app,
    terminal,
    renderer,
    now: () => 0,
    monotonic: () => clock.now,
  });
  running = { app, frames, type: (chunk) => onData(chunk), clock, done };
  return running;
}

async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

afterEach(async () => {
  running?.app.emit({ type: 'exit' });
  await running?.done;
  running = null;
});

describe('frame pacing', () => {
  it('draws the first frame at once', async () => {
    const w = start();
    await until(() => w.frames.length === 1, 'the first frame');
  });

  it('draws a burst of agent events that comes right after a frame as one later frame holding all of them', async () => {
    const w = start();
    await until(() => w.frames.length === 1, 'the first frame');

    for (let i = 0; i < 30; i++) {
      w.app.emit({ type: 'sessionUpdated', session: makeSession('Review', { id: `burst-${i}` }) });
      await settle();
    }
    expect(w.frames).toHaveLength(1);
    w.clock.now += BACKGROUND_FRAME_MS;

    await until(() => w.frames.length === 2, 'the paced frame');
    expect(w.frames[1]?.sessions.filter((s) => s.id.startsWith('burst-'))).toHaveLength(30);
  });

  it('draws a key at once, even right after a frame, with the events that came before it', async () => {
    const w = start();
    await until(() => w.frames.length === 1, 'the first frame');
    w.app.emit({ type: 'sessionUpdated', session: makeSession('Review', { id: 'waiting' }) });
    await settle();
    expect(w.frames).toHaveLength(1);

    w.type('?');

    await until(() => w.frames.length === 2, 'the key frame');
    expect(w.frames[1]?.popup).toEqual({ kind: 'help' });
    expect(w.frames[1]?.sessions.map((s) => s.id)).toContain('waiting');
  });
});
