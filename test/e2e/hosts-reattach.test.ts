import { spawn } from 'node:child_process';
import { chmodSync, chownSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { agentEnv } from '../helpers/agent-env.js';
import {
  GROVE_BIN,
  agentWorldEnv,
  git,
  makeRepo,
  runGrove,
  startGrove,
} from '../helpers/grove-env.js';
import { setUpE2eWorld } from '../helpers/e2e-world.js';
import { gate } from '../helpers/fake-model/server.js';
import { reply } from '../helpers/fake-model/reply.js';
import { REAL_CLI_BIN } from '../helpers/real-clis.js';
import { ensureHostUser, sshdIt, startSshd } from '../helpers/sshd.js';
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
    const user = ensureHostUser();
    const claudeDir = mkdtempSync(join(tmpdir(), 'grove-host-claude-'));
    chownSync(claudeDir, user.uid, user.gid);
    chmodSync(claudeDir, 0o755);
    const sshd = await startSshd({
      path: [REAL_CLI_BIN],
      env: {
        ANTHROPIC_BASE_URL: e2e.server.url,
        ANTHROPIC_API_KEY: 'sk-host-own',
        CLAUDE_CONFIG_DIR: claudeDir,
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        CLAUDE_CODE_MAX_RETRIES: '0',
        DISABLE_AUTOUPDATER: '1',
      },
    });
    try {
      const repo = makeRepo(e2e.world);
      const env = {
        ...agentWorldEnv(e2e.world, agentEnv(e2e.server, e2e.world.home)),
        GROVE_SSH_CONFIG: sshd.config,
      };
      const grove = (args: readonly string[]) => runGrove(e2e.world.env(env), repo, args);
      const added = await grove(['host', 'add', 'build', sshd.alias, '--root', ROOT]);
      expect(added.code, added.out).toBe(0);
      const resume = gate();
      e2e.server.script('anthropic', [
        { when: 'Write a title for a coding task', text: reply('Reattach from the TUI') },
        { when: 'Write the git commit message for the changes', text: reply('Add tui.txt') },
        { when: 'You are reviewing the work of a coding agent', text: reply('## Review\nFine.') },
        { when: PROMPT, toolCall: { kind: 'shell', command: 'echo tui-step-one' } },
        {
          when: PROMPT,
          until: resume.opened,
          then: { toolCall: { kind: 'shell', command: "printf 'tui\\n' > tui.txt" } },
        },
        { when: PROMPT, text: reply('Finished after the TUI re-attached.') },
      ]);
      const asked = (): number =>
        e2e.server
          .modelRequests('anthropic')
          .map((r) => JSON.stringify(r.body))
          .filter((b) => b.includes(PROMPT) && !b.includes('Write a title for a coding task'))
          .length;
      const run = spawn(process.execPath, [GROVE_BIN, 'run', '--host', 'build', PROMPT], {
        cwd: repo,
        env: e2e.world.env(env),
        stdio: 'ignore',
      });
      const ended = new Promise((resolve) => run.once('exit', resolve));
      await waitUntil('the agent waits for its next step', () => asked() >= 2, 120_000);
      const transcript = async (): Promise<string[]> => {
        const listed = await grove(['ls', '--json']);
        const sessions = JSON.parse(listed.stdout) as { sessionId: string }[];
        const id = sessions[0]?.sessionId ?? '';
        if (id === '') return [];
        const shown = JSON.parse((await grove(['show', id, '--json'])).stdout) as {
          transcript: { kind: string; content: string }[];
          branch: string;
        };
        return shown.transcript.map((e) => `${e.kind}: ${e.content}`);
      };
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
    } finally {
      sshd.ssh(`rm -rf ${ROOT}`);
      await sshd.stop();
      rmSync(claudeDir, { recursive: true, force: true });
    }
  }, 400_000);
});
