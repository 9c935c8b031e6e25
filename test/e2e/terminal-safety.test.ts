import { beforeEach, describe, expect, it } from 'vitest';
import { agentEnv } from '../helpers/agent-env.js';
import { agentWorldEnv, makeRepo, newSession, startGrove } from '../helpers/grove-env.js';
import type { TmuxTerminal } from '../helpers/tmux.js';
import { setUpE2eWorld } from '../helpers/e2e-world.js';
import { replyWith } from '../helpers/fake-model/reply.js';

// An agent whose answer, summary, file name and file content carry escape
// sequences, seen in a real terminal: the placeholders are on the screen,
// the window title is Grove's, and nothing reached the clipboard.

const ESC = '\x1b';
const BEL = '\x07';
/** OSC 52: put "rm -rf ~" (base64) on the clipboard. */
const OSC52 = `${ESC}]52;c;cm0gLXJmIH4=${BEL}`;
/** OSC 0: rename the terminal window. */
const OSC0 = `${ESC}]0;pwned${BEL}`;

const reply = replyWith({ turn: 'Wrote it.', session: 'Wrote it.' });

const e2e = setUpE2eWorld();
let repo: string;

beforeEach(() => {
  repo = makeRepo(e2e.world);
  e2e.server.script('anthropic', [
    { when: 'Write a title for a coding task', text: reply(`Hostile ${OSC0}task`) },
    { when: 'Write the git commit message for the changes', text: reply(`Add the file ${OSC0}`) },
  ]);
});

/** Grove in tmux, with tmux accepting clipboard writes from the program (so an OSC 52 that got through would land in a buffer). */
async function start(): Promise<{ t: TmuxTerminal; title: string }> {
  const t = await startGrove(e2e.world, repo, {
    env: agentWorldEnv(e2e.world, agentEnv(e2e.server, e2e.world.home)),
    columns: 120,
    rows: 34,
  });
  e2e.term = t;
  await t.tmux(['set-option', '-g', 'set-clipboard', 'on']);
  await t.waitFor('No sessions yet.');
  return { t, title: await t.format('pane_title') };
}

async function clipboardBuffers(t: TmuxTerminal): Promise<string> {
  return t.tmux(['list-buffers', '-F', '#{buffer_sample}']).catch(() => '');
}

async function hostileSession(t: TmuxTerminal): Promise<void> {
  e2e.server.script('anthropic', [
    {
      when: 'Write the hostile file',
      toolCall: { kind: 'write_file', path: `evil${OSC0}.txt`, content: `line ${OSC52}\nplain\n` },
    },
    {
      when: 'Write the hostile file',
      text: reply(`Answer ${OSC52}${OSC0}\rOVERWRITE${ESC}[2A${ESC}[2K end`, {
        summary: { turn: `turn ${OSC0}`, session: `session ${OSC52}` },
      }),
    },
  ]);
  await newSession(t, 'Write the hostile file');
  await t.waitFor('[Commit] Add the file', 30_000);
  await t.waitFor(/ Review /, 15_000);
}

describe('hostile agent output in the TUI', () => {
  it('shows the answer and summary with placeholders and leaves the window title and clipboard alone', async () => {
    const { t, title } = await start();

    await hostileSession(t);

    const screen = await t.waitFor('Answer ␛]52;c;cm0gLXJmIH4=␇␛]0;pwned␇␍OVERWRITE␛[2A␛[2K end');
    expect(screen).toContain('This turn: turn ␛]0;pwned␇');
    expect(screen).toContain('Session: session ␛]52;c;cm0gLXJmIH4=␇');
    expect(screen).toContain('[Commit] Add the file ␛]0;pwned␇');
    expect(await t.format('pane_title')).toBe(title);
    expect(await clipboardBuffers(t)).not.toContain('rm -rf');
  });

  it('shows a hostile file name and content in the diff view as placeholders', async () => {
    const { t, title } = await start();
    await hostileSession(t);

    await t.keys('d');

    // The transcript names the file too: wait for the diff's own line.
    const screen = await t.waitFor('+line ␛]52;c;cm0gLXJmIH4=␇');
    expect(screen).toContain('evil␛]0;pwned␇.txt');
    expect(await t.format('pane_title')).toBe(title);
    expect(await clipboardBuffers(t)).not.toContain('rm -rf');
  });

  it('shows escape sequences pasted into the composer as placeholders', async () => {
    const { t, title } = await start();
    await t.keys('a');
    await t.waitFor('Task for the agent');

    await t.paste(`fix this ${OSC0}${OSC52}`);

    await t.waitFor('fix this ␛]0;pwned␇␛]52;c;cm0gLXJmIH4=␇');
    expect(await t.format('pane_title')).toBe(title);
    expect(await clipboardBuffers(t)).not.toContain('rm -rf');
  });
});
