import { spawn } from 'node:child_process';
import { describe, expect } from 'vitest';
import { GROVE_BIN, git, startGrove } from '../helpers/grove-env.js';
import { setUpE2eWorld } from '../helpers/e2e-world.js';
import { reply } from '../helpers/fake-model/reply.js';
import { heldTurn, turnRequests, withClaudeHost } from '../helpers/host-e2e.js';
import { sshdIt } from '../helpers/sshd.js';
import { waitUntil } from '../helpers/wait.js';

// A `grove run --host` killed (SIGKILL) mid-turn, then the TUI started
// (issue 24, item 4): it re-attaches to the agent still working on the host,
// the turn ends there as any other, each line of it once in the transcript,
// and the branch comes back with the agent's file.

const it = sshdIt();
const e2e = setUpE2eWorld();
const ROOT = `.grove-test-tui-reattach-${process.pid}`;
const PROMPT = 'reattach from the tui';

describe('the TUI after a Grove killed mid-turn on a host', () => {
  it('re-attaches to the turn still running on the host and finishes it', async () => {
    await withClaudeHost(e2e, ROOT, async ({ repo, env, transcript }) => {
      e2e.server.script('anthropic', [
        { when: 'Write a title for a coding task', text: reply('Reattach from the TUI') },
        { when: 'Write the git commit message for the changes', text: reply('Add tui.txt') },
        { when: 'You are reviewing the work of a coding agent', text: reply('## Review\nFine.') },
      ]);
      const resume = heldTurn(e2e.server, {
        when: PROMPT,
        step: 'tui-step-one',
        file: 'tui.txt',
        text: 'tui',
        answer: 'Finished after the TUI re-attached.',
      });
      const run = spawn(process.execPath, [GROVE_BIN, 'run', '--host', 'build', PROMPT], {
        cwd: repo,
        env: e2e.world.env(env),
        stdio: 'ignore',
      });
      const ended = new Promise((resolve) => run.once('exit', resolve));
      await waitUntil(
        'the agent waits for its next step',
        () => turnRequests(e2e.server, PROMPT) >= 2,
        120_000,
      );
      await waitUntil(
        'the first step is in the transcript',
        async () => (await transcript()).some((l) => l.includes('tui-step-one')),
        60_000,
      );
      run.kill('SIGKILL');
      await ended;

      const t = e2e.track(await startGrove(e2e.world, repo, { env, columns: 120, rows: 34 }));
      await waitUntil(
        'the TUI re-attached',
        async () => (await transcript()).some((l) => l.includes('[Re-attached]')),
        120_000,
      );
      resume.open();
      await t.waitFor(/ Review /, 180_000);
      const lines = await transcript();
      expect(
        lines.filter((l) => l.includes('tui-step-one')),
        lines.join('\n'),
      ).toHaveLength(1);
      // The tool line once (the session's commit, whose message names the file too, is not a line of the turn).
      expect(
        lines.filter((l) => l.includes('tui.txt') && !l.includes('[Commit]')),
        lines.join('\n'),
      ).toHaveLength(1);
      expect(lines.filter((l) => l.startsWith('assistant_answer'))).toEqual([
        'assistant_answer: Finished after the TUI re-attached.',
      ]);
      const branch = git(repo, 'branch', '--list', 'grove/*').replace(/^[*+ ]+/, '');
      await waitUntil(
        'the branch came back with the file',
        () => git(repo, 'ls-tree', '--name-only', branch).includes('tui.txt'),
        60_000,
      );
    });
  }, 400_000);
});
