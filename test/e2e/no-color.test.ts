import { describe, expect, it } from 'vitest';
import { agentEnv } from '../helpers/agent-env.js';
import { agentWorldEnv, makeRepo, newSession, startGrove } from '../helpers/grove-env.js';
import { setUpE2eWorld } from '../helpers/e2e-world.js';
import { replyWith } from '../helpers/fake-model/reply.js';

// NO_COLOR in the built Grove, in a terminal that has colours (tmux,
// xterm-256color): the screen tmux holds has no colour at all, the agent's
// markdown answer included (marked-terminal colours it with chalk, which does
// not read NO_COLOR), while bold stays. Without NO_COLOR the same answer is
// coloured, so the check is not empty.

const ESC = '\u001b';
/** A foreground or background colour (SGR 30–38, 40–48, 90–97, 100–107). */
const COLOUR = new RegExp(`${ESC}\\[(?:[0-9;]*;)?(?:3[0-8]|4[0-8]|9[0-7]|10[0-7])[;m]`);

const ANSWER = '## Colours checked\n\nThe file `notes.md` is **done**.';

const reply = replyWith({ turn: 'notes', session: 'notes' });

const e2e = setUpE2eWorld();

/** Runs one turn whose answer is ANSWER and returns the session view's screen with its escapes. */
async function answeredScreen(env: Record<string, string>): Promise<string> {
  e2e.server.script('anthropic', [
    { when: 'Write a title for a coding task', text: reply('Write the notes') },
    { when: 'Write the git commit message for the changes', text: reply('Notes') },
    { when: 'write the notes', text: reply(ANSWER) },
  ]);
  const repo = makeRepo(e2e.world);
  e2e.term = await startGrove(e2e.world, repo, {
    env: { ...agentWorldEnv(e2e.world, agentEnv(e2e.server, e2e.world.home)), ...env },
    columns: 100,
    rows: 30,
  });
  await e2e.term.waitFor('No sessions yet.');
  await newSession(e2e.term, 'please write the notes');
  await e2e.term.waitFor('is done.', 30_000);
  return e2e.term.styledScreen();
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
