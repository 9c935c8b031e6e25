import { afterEach, beforeEach } from 'vitest';
import { startFakeModelServer, type FakeModelServer } from './fake-model/server.js';
import { makeWorld, type GroveWorld } from './grove-env.js';
import type { TmuxTerminal } from './tmux.js';

/** One e2e test's world, fake model server and Grove terminal. */
export interface E2eWorld {
  readonly world: GroveWorld;
  readonly server: FakeModelServer;
  /** The Grove in tmux this test started; killed after the test. */
  term: TmuxTerminal | null;
  /** Kills `term` after the test (as setting `term` does); returns it. */
  track(term: TmuxTerminal): TmuxTerminal;
}

/**
 * Gives each test of the file a fresh world and fake model server, and after
 * it kills the terminal, closes the server and removes the world, in that
 * order. Call it at the top of the file, before the file's own `beforeEach`
 * (which then sees the world and server: vitest runs them in order).
 */
export function setUpE2eWorld(): E2eWorld {
  let world: GroveWorld | null = null;
  let server: FakeModelServer | null = null;
  const e2e: E2eWorld = {
    get world(): GroveWorld {
      if (!world) throw new Error('setUpE2eWorld: no world outside a test');
      return world;
    },
    get server(): FakeModelServer {
      if (!server) throw new Error('setUpE2eWorld: no model server outside a test');
      return server;
    },
    term: null,
    track(term: TmuxTerminal): TmuxTerminal {
      e2e.term = term;
      return term;
    },
  };
  beforeEach(async () => {
    world = makeWorld();
    server = await startFakeModelServer();
  });
  afterEach(async () => {
    await e2e.term?.kill();
    e2e.term = null;
    await server?.close();
    server = null;
    world?.cleanup();
    world = null;
  });
  return e2e;
}
