import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { agentEnv } from '../helpers/agent-env.js';
import { agentWorldEnv, makeRepo, newSession, startGrove } from '../helpers/grove-env.js';
import type { TmuxTerminal } from '../helpers/tmux.js';
import { waitUntil } from '../helpers/wait.js';
import { setUpE2eWorld } from '../helpers/e2e-world.js';
import { reply } from '../helpers/fake-model/reply.js';

// Working around a session: a notification when it needs you, a shell in
// its worktree (`o`), and forking it (`F`). The real Claude Code talks to
// the fake model server.

const e2e = setUpE2eWorld();
let repo: string;

beforeEach(() => {
  repo = makeRepo(e2e.world);
  e2e.server.script('anthropic', [
    { when: 'Write a title for a coding task', text: reply('Greet the team') },
    {
      when: 'Write the git commit message for the changes',
      text: reply('Add a note\n\nAdds a note.'),
    },
    { when: 'You are reviewing the work of a coding agent', text: reply('## Review\nFine.') },
    { when: 'Say hello to the team', text: reply('Hello, team.') },
  ]);
});

/** Grove with one session whose turn has ended (in Review), its view open. */
async function sessionInReview(env: Record<string, string> = {}): Promise<TmuxTerminal> {
  e2e.term = await startGrove(e2e.world, repo, {
    env: { ...agentWorldEnv(e2e.world, agentEnv(e2e.server, e2e.world.home)), ...env },
    columns: 120,
    rows: 34,
  });
  await e2e.term.waitFor('No sessions yet.');
  await newSession(e2e.term, 'Say hello to the team');
  await e2e.term.waitFor('Hello, team.', 30_000);
  await e2e.term.waitFor(/ Review /, 20_000);
  return e2e.term;
}

describe('session tools in the TUI', () => {
  it('sends an OSC 9 and an OSC 777 notification when a turn ends in Review', async () => {
    const raw = join(e2e.world.dir, 'pane-output');
    e2e.term = await startGrove(e2e.world, repo, {
      env: agentWorldEnv(e2e.world, agentEnv(e2e.server, e2e.world.home)),
      columns: 120,
      rows: 34,
    });
    await e2e.term.tmux(['pipe-pane', '-t', 'main', '-o', `cat >> '${raw}'`]);
    await e2e.term.waitFor('No sessions yet.');

    await newSession(e2e.term, 'Say hello to the team');

    await waitUntil(
      'an OSC 9 notification reaches the pane',
      () => existsSync(raw) && readFileSync(raw, 'latin1').includes('\x1b]9;'),
      40_000,
    );
    const output = readFileSync(raw, 'latin1');
    // eslint-disable-next-line no-control-regex -- the OSC 9 sequence itself: ESC ] 9 ; text BEL
    expect(output).toMatch(/\x1b\]9;"?[^\x07]*ready for review\x07/);
    expect(output).toContain('\x1b]777;notify;Grove;');
  });

  it('opens $SHELL in the worktree with o, and shows its changes in the diff after it exits', async () => {
    const shell = join(e2e.world.bin, 'fake-shell');
    writeFileSync(shell, '#!/bin/sh\necho "from the shell" > from-shell.txt\nexit 0\n');
    chmodSync(shell, 0o755);
    const t = await sessionInReview({ SHELL: shell });

    await t.keys('o');

    await t.waitFor('Back from', 15_000);
    await t.waitFor('+1/-0', 15_000);
    expect(await t.screen()).toContain('Hello, team.');
  });

  it('opens $VISUAL rather than $EDITOR in the worktree with e', async () => {
    const editor = (name: string): string => {
      const path = join(e2e.world.bin, name);
      writeFileSync(path, `#!/bin/sh\necho "${name}" > "${name}.txt"\nexit 0\n`);
      chmodSync(path, 0o755);
      return path;
    };
    const t = await sessionInReview({ VISUAL: editor('visual'), EDITOR: editor('editor') });

    await t.keys('e');

    await t.waitFor(/Back from \S*\/visual /, 15_000);
    await t.waitFor('+1/-0', 15_000);
  });

  it('says with e that no editor is set and how to set one, and opens none (no vi)', async () => {
    const t = await sessionInReview();

    await t.keys('e');

    await t.waitFor(/no editor is set: set VISUAL or EDITOR \(export EDITOR=nano\)/, 15_000);
    const screen = await t.screen();
    expect(screen).toContain('Hello, team.');
    expect(screen).not.toContain('Back from');
  });

  it('forks a session with F into a new session linked to its parent', async () => {
    const t = await sessionInReview();

    await t.keys('F');

    await t.waitFor('forked from "Greet the team"', 20_000);
    // The fork's first prompt gets a title too; its request also holds the prompt text.
    e2e.server.script('anthropic', [
      { when: 'Write a title for a coding task', text: reply('Say goodbye') },
      { when: 'Now say goodbye', text: reply('Goodbye, team.') },
    ]);
    await t.type('Now say goodbye');
    await t.keys('Enter');
    await t.waitFor('Goodbye, team.', 30_000);
    const forkTurn = e2e.server.requests
      .map((r) => JSON.stringify(r.body))
      .find(
        (body) =>
          body.includes('Now say goodbye') && !body.includes('Write a title for a coding task'),
      );
    expect(forkTurn).toContain('session: Hello, team.');
  });
});
