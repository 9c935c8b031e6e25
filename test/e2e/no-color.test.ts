import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { agentEnv } from '../helpers/agent-env.js';
import { startFakeModelServer, type FakeModelServer } from '../helpers/fake-model/server.js';
import {
  agentWorldEnv,
  makeRepo,
  makeWorld,
  newSession,
  startGrove,
  type GroveWorld,
} from '../helpers/grove-env.js';
import type { TmuxTerminal } from '../helpers/tmux.js';

// NO_COLOR in the built Grove, in a terminal that has colours (tmux,
// xterm-256color): the screen tmux holds has no colour at all, the agent's
// markdown answer included (marked-terminal colours it with chalk, which does
// not read NO_COLOR), while bold stays. Without NO_COLOR the same answer is
// coloured, so the check is not empty.

const ESC = '\u001b';
/** A foreground or background colour (SGR 30–38, 40–48, 90–97, 100–107). */
const COLOUR = new RegExp(`${ESC}\\[(?:[0-9;]*;)?(?:3[0-8]|4[0-8]|9[0-7]|10[0-7])[;m]`);

const ANSWER = '## Colours checked\n\nThe file `notes.md` is **done**.';

const reply = (answer: string) =>
  JSON.stringify({ answer, questions: [], summary: { turn: 'notes', session: 'notes' } });

let world: GroveWorld;
let server: FakeModelServer;
let term: TmuxTerminal | null = null;

beforeEach(async () => {
  world = makeWorld();
  server = await startFakeModelServer();
});

afterEach(async () => {
  await term?.kill();
  term = null;
  await server.close();
  world.cleanup();
});

/** Runs one turn whose answer is ANSWER and returns the session view's screen with its escapes. */
async function answeredScreen(env: Record<string, string>): Promise<string> {
  server.script('anthropic', [
    { when: 'Write a title for a coding task', text: reply('Write the notes') },
    { when: 'Write the git commit message for the changes', text: reply('Notes') },
    { when: 'write the notes', text: reply(ANSWER) },
  ]);
  const repo = makeRepo(world);
  term = await startGrove(world, repo, {
    env: { ...agentWorldEnv(world, agentEnv(server, world.home)), ...env },
    columns: 100,
    rows: 30,
  });
  await term.waitFor('No sessions yet.');
  await newSession(term, 'please write the notes');
  await term.waitFor('is done.', 30_000);
  return term.styledScreen();
}

describe('NO_COLOR', () => {
  it('leaves no colour on the screen, in the answer either, and keeps bold', async () => {
    const screen = await answeredScreen({ NO_COLOR: '1' });
    const answerLines = screen.split('\n').filter((line) => /Colours checked|notes\.md/.test(line));
    expect(answerLines.length).toBeGreaterThan(0);
    expect(screen).not.toMatch(COLOUR);
    expect(screen).toMatch(new RegExp(`${ESC}\\[1m`));
  });

  it('is what takes the colours away: without it the answer is coloured', async () => {
    const screen = await answeredScreen({});
    const heading = screen.split('\n').find((line) => line.includes('Colours checked')) ?? '';
    expect(heading).toMatch(COLOUR);
  });
});
