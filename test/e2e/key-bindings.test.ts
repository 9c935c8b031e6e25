import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeRepo, makeWorld, startGrove, type GroveWorld } from '../helpers/grove-env.js';
import type { TmuxTerminal } from '../helpers/tmux.js';

// The person's own keys in GROVE_HOME/keys.json, in the built binary: the
// keys answer, the help and the footer say them; a file with a mistake is
// said on the first screen and changes nothing.

let world: GroveWorld;
let term: TmuxTerminal | null = null;

beforeEach(() => {
  world = makeWorld();
});

afterEach(async () => {
  await term?.kill();
  term = null;
  world.cleanup();
});

function keysFile(content: string): void {
  mkdirSync(world.groveHome, { recursive: true });
  writeFileSync(join(world.groveHome, 'keys.json'), content);
}

describe("the person's own keys (GROVE_HOME/keys.json)", () => {
  it('answer in place of the shipped ones, and the help and footer show them', async () => {
    keysFile(JSON.stringify({ sessions: { help: 'f1', quit: 'Q' } }));
    const repo = makeRepo(world);
    term = await startGrove(world, repo);
    await term.waitFor('No sessions yet.');
    const footer = await term.waitFor('f1 help');
    expect(footer).toContain('Q quit');
    // The shipped keys no longer do it: had q asked to quit, F1 would go to that question.
    await term.keys('q', 'F1');
    const help = await term.waitFor('Show this help');
    expect(help).toMatch(/f1\s+Show this help/);
    expect(help).not.toContain('Quit Grove?');
    await term.keys('Escape');
    await term.waitForGone('Show this help');
    // Had ? opened the help, Q would go to the help.
    await term.keys('?', 'Q');
    expect(await term.waitFor('Quit Grove?')).not.toContain('Show this help');
    await term.keys('y');
    expect(await term.waitForExit()).toBe(0);
  });

  it('with a mistake are refused whole: the first screen says why, and the shipped keys work', async () => {
    keysFile(JSON.stringify({ sessions: { help: 'f1', new: 'c' } }));
    const repo = makeRepo(world);
    term = await startGrove(world, repo);
    await term.waitFor(/c would be both "new" and "cancel" in sessions/);
    await term.keys('?');
    await term.waitFor('Show this help');
  });
});
