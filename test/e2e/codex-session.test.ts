import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { agentEnv } from '../helpers/agent-env.js';
import { agentWorldEnv, git, makeRepo, newSession, startGrove } from '../helpers/grove-env.js';
import { onlyCliPath } from '../helpers/real-clis.js';
import { setUpE2eWorld } from '../helpers/e2e-world.js';
import { replyWith, sameSummary } from '../helpers/fake-model/reply.js';

// A person starts a Codex session in the TUI; Codex, confined by Grove,
// runs a shell command in its worktree through its own sandbox (which needs
// the private, writable /tmp Grove gives it).

const reply = replyWith(sameSummary);

const e2e = setUpE2eWorld();
let repo: string;

beforeEach(() => {
  repo = makeRepo(e2e.world);
});

describe('a Codex session in the TUI', () => {
  it('runs a shell command in its worktree under confinement and commits the result', async () => {
    // Codex is the only agent CLI on PATH, so it is the main agent.
    e2e.server.script('openai', [
      { when: 'Write a title for a coding task', text: reply('Make a file with a command') },
      { when: 'Write the git commit message', text: reply('Add made.txt') },
      {
        when: 'Make made.txt with printf',
        toolCall: { kind: 'shell', command: "printf 'made by codex\\n' > made.txt" },
      },
      { when: 'Make made.txt with printf', text: reply('Made made.txt.') },
    ]);
    const env = agentWorldEnv(e2e.world, agentEnv(e2e.server, e2e.world.home));
    env['PATH'] = onlyCliPath(e2e.world.dir, 'codex');
    e2e.term = await startGrove(e2e.world, repo, { env, columns: 120, rows: 34 });
    await e2e.term.waitFor('No sessions yet.');

    await newSession(e2e.term, 'Make made.txt with printf');
    await e2e.term.waitFor('Made made.txt.', 60_000);
    await e2e.term.waitFor('[Commit] Add made.txt', 20_000);

    const branch = git(repo, 'for-each-ref', '--format=%(refname:short)', 'refs/heads/grove/');
    expect(git(repo, 'show', `${branch}:made.txt`)).toBe('made by codex');
    const worktree = git(repo, 'worktree', 'list', '--porcelain')
      .split('\n')
      .filter((l) => l.startsWith('worktree '))
      .map((l) => l.slice('worktree '.length))
      .find((p) => p !== repo);
    expect(readFileSync(join(worktree ?? '', 'made.txt'), 'utf8')).toBe('made by codex\n');
  });
});
