import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_HOST_KEY } from '../../src/domain/host.js';
import { runGrove } from '../helpers/grove-env.js';
import { makeReviewWorld, waitFor, type ReviewWorld } from '../helpers/review-world.js';

// The TUI's side of a project's default host (issue 24), on the real
// controller, SQLite and git, with hosts added and removed by `grove host` in
// another process as a person does beside a running TUI: the Default host
// setting refuses a name that is no host and takes one added since the TUI
// started, `a` makes the session there, and a default whose host was removed
// makes no session and says why. No connection is needed: adding a host and
// choosing it do not log in.

let w: ReviewWorld;

beforeEach(async () => {
  w = await makeReviewWorld();
});

afterEach(async () => {
  await w.close();
});

async function host(...args: string[]): Promise<string> {
  const run = await runGrove(w.env, w.repo, ['host', ...args]);
  expect(run.code, run.out).toBe(0);
  return run.stderr;
}

function notices(): string[] {
  return w.events.flatMap((e) => (e.type === 'notice' && e.notice ? [e.notice.text] : []));
}

async function stored(): Promise<string | null | undefined> {
  return w.infra.store.settings.getProject(w.projectId, DEFAULT_HOST_KEY);
}

describe('the default host in the TUI', () => {
  it('refuses a name that is no host, and takes a host added in another terminal since', async () => {
    w.controller.setSetting(DEFAULT_HOST_KEY, 'build');
    await waitFor('the refusal', () => notices().some((n) => n.includes("'build'")));
    expect(notices().at(-1)).toBe(
      "No host is named 'build' (there are none yet: grove host add NAME DEST; local is this machine). Nothing was changed.",
    );
    expect(await stored()).toBeUndefined();

    // Added after the TUI read its hosts: asked again before refusing.
    await host('add', 'build', 'me@build.invalid');
    w.controller.setSetting(DEFAULT_HOST_KEY, 'build');
    await waitFor('the setting to be stored', async () => (await stored()) === 'build');
    // The TUI's state takes it from the event sent after the write (a moment later on a loaded machine).
    await waitFor(
      'the setting to be shown',
      () => w.app.state.settings[DEFAULT_HOST_KEY] === 'build',
    );
  });

  it('makes a new session on the default host, and none when that host was removed since', async () => {
    await host('add', 'build', 'me@build.invalid');
    await host('add', 'old', 'me@old.invalid');
    w.controller.setSetting(DEFAULT_HOST_KEY, 'build');
    await waitFor('the setting to be stored', async () => (await stored()) === 'build');

    w.controller.createSession();
    await waitFor('the new session', () => w.app.state.sessions.length === 1);
    const [made] = w.app.state.sessions;
    expect((await w.get(made?.id ?? '')).host).toBe('build');

    w.controller.setSetting(DEFAULT_HOST_KEY, 'old');
    await waitFor('the setting to be stored', async () => (await stored()) === 'old');
    // Removed all the same, with a word about the project that named it.
    expect(await host('rm', 'old')).toBe(
      `grove: old was the default host of ${w.repo}: its new sessions are refused until another is chosen in Settings (Default host), or started with --host local.\n`,
    );
    const before = notices().length;
    w.controller.createSession();
    await waitFor('the refusal', () => notices().length > before);
    expect(notices().at(-1)).toBe(
      "Creating the session: this project's default host is old, and no host has that name (hosts: build). Choose another in Settings (Default host, host.default), or local for this machine.",
    );
    expect((await w.infra.store.sessions.listByProject(w.projectId)).length).toBe(1);
  });
});
