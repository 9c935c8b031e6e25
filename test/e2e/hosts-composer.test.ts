import { describe, expect } from 'vitest';
import { git, startGrove } from '../helpers/grove-env.js';
import { setUpE2eWorld } from '../helpers/e2e-world.js';
import { reply } from '../helpers/fake-model/reply.js';
import { installAcpAgent } from '../helpers/acp-agent.js';
import { withClaudeHost } from '../helpers/host-e2e.js';
import { sshdIt, type TestHost } from '../helpers/sshd.js';
import type { TmuxTerminal } from '../helpers/tmux.js';

// Where a new session runs, chosen in the TUI (issue 24): the project's
// Default host on the Settings tab (an unknown name refused in words), the
// composer's /host picker with it preselected, the refusal of another agent
// on a host, and a turn that then runs on the host: the test sshd of
// test/helpers/sshd.ts (a second unix user) with the real Claude Code there.

const it = sshdIt();
const e2e = setUpE2eWorld();
const ROOT = `.grove-test-composer-${process.pid}`;
/** The Default host row: after the three roles' agent, model and reasoning and the worktree folder. */
const DEFAULT_HOST_ROW = 10;

async function withHost(
  test: (t: TmuxTerminal, sshd: TestHost, repo: string) => Promise<void>,
): Promise<void> {
  await withClaudeHost(e2e, ROOT, async ({ host, repo, env }) => {
    // An agent of agents.json (the small ACP agent of the fixtures): it does not run on hosts.
    installAcpAgent(e2e.world);
    const t = e2e.track(await startGrove(e2e.world, repo, { env, columns: 120, rows: 34 }));
    await test(t, host.sshd, repo);
  });
}

/** Enters `value` in the Default host row's editor on the Settings tab (selected first from the top when `select`). */
async function enterDefaultHost(t: TmuxTerminal, value: string, select: boolean): Promise<void> {
  if (select) for (let i = 0; i < DEFAULT_HOST_ROW; i++) await t.keys('j');
  await t.waitFor(/▶ Default host/);
  await t.keys('Enter');
  await t.waitFor(/Default host[\s\S]*local/);
  await t.keys('C-u');
  await t.type(value);
  await t.keys('Enter');
}

describe('choosing the host of a new session in the TUI', () => {
  it('refuses an unknown default host, preselects the one set, switches with /host, refuses an agent of agents.json there, and runs the turn on the host', async () => {
    await withHost(async (t, sshd, repo) => {
      await t.waitFor('No sessions yet.');
      await t.keys('Tab');
      await t.waitFor('Worktree folder');
      await enterDefaultHost(t, 'nope', true);
      await t.waitFor(
        "No host is named 'nope' (hosts: build; local is this machine). Nothing was changed.",
      );
      // The row still says this machine.
      expect(await t.screen()).toMatch(/Default host\s+local/);

      await enterDefaultHost(t, 'build', false);
      await t.waitFor(/Default host\s+build/);

      // A new session starts on the default host.
      await t.keys('Tab', 'Tab');
      await t.waitFor('No sessions yet.');
      await t.keys('a');
      await t.waitFor('Task for the agent · on build (/host)');
      await t.waitFor(/claude\/\S+ \[\w+\] on build/);

      // The picker: this machine and the host.
      await t.type('/host ');
      await t.waitFor(/local\s+this machine[\s\S]*build\s+SSH host/);
      await t.keys('Enter', 'Enter');
      await t.waitFor('Task for the agent · on this machine (/host)');
      await t.waitFor('[Host] This machine.');
      await t.type('/host build');
      await t.keys('Enter');
      await t.waitFor('Task for the agent · on build (/host)');
      await t.waitFor(`[Host] build (ssh ${sshd.alias})`);

      // An agent of agents.json cannot run there: said in words, the session stays Claude Code's.
      await t.type('/agent tiny');
      await t.keys('Enter');
      await t.waitFor(
        'Only Claude Code, Codex and Gemini CLI run on hosts yet: /host local first to run tiny here.',
      );
      expect(await t.screen()).toMatch(/claude\/\S+ \[\w+\] on build/);

      // The turn runs on the host; its work comes back to the local branch.
      await t.keys('C-u');
      e2e.server.script('anthropic', [
        { when: 'Write a title for a coding task', text: reply('Note from the host') },
        { when: 'Write the git commit message for the changes', text: reply('Add the note') },
        {
          when: 'You are reviewing the work of a coding agent',
          text: reply('## Review\nFine.'),
        },
        {
          when: 'leave a note on the host',
          toolCall: { kind: 'shell', command: 'hostname > note.txt; whoami >> note.txt' },
        },
        { when: 'leave a note on the host', text: reply('The note is written.') },
      ]);
      await t.type('leave a note on the host');
      await t.keys('Enter');
      await t.waitFor('The note is written.', 120_000);
      await t.waitFor(/ Review /, 60_000);
      await t.keys('Escape');
      await t.waitFor('[@build]');
      const branch = git(repo, 'branch', '--list', 'grove/*').replace(/^[*+ ]+/, '');
      expect(git(repo, 'show', `${branch}:note.txt`).split('\n').at(-1)).toBe(sshd.user);
    });
  }, 240_000);
});
