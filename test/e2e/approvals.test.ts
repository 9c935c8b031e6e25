import { beforeEach, describe, expect, it } from 'vitest';
import { agentEnv } from '../helpers/agent-env.js';
import { agentWorldEnv, git, makeRepo, newSession, startGrove } from '../helpers/grove-env.js';
import { onlyCliPath } from '../helpers/real-clis.js';
import { setUpE2eWorld } from '../helpers/e2e-world.js';
import { replyWith, sameSummary } from '../helpers/fake-model/reply.js';

// An approval in the built Grove, in tmux: Codex asks to run a command
// outside its sandbox, the request waits in the inbox (Ctrl+O) with its exact
// command, `a` approves it once, and the turn goes on and commits the file.

const reply = replyWith(sameSummary);

const e2e = setUpE2eWorld();
let repo: string;

beforeEach(() => {
  repo = makeRepo(e2e.world);
});

describe('an approval in the TUI', () => {
  it('holds an escalated Codex command in the inbox until a approves it once', async () => {
    e2e.server.script('openai', [
      { when: 'Write a title for a coding task', text: reply('Make a file outside the sandbox') },
      { when: 'Write the git commit message', text: reply('Add asked.txt') },
      {
        when: 'Make asked.txt with an escalation',
        toolCall: { kind: 'shell', command: 'printf asked > asked.txt', escalate: true },
      },
      { when: 'Make asked.txt with an escalation', text: reply('Made asked.txt.') },
    ]);
    const env = agentWorldEnv(e2e.world, agentEnv(e2e.server, e2e.world.home));
    env['PATH'] = onlyCliPath(e2e.world.dir, 'codex');
    e2e.term = await startGrove(e2e.world, repo, { env, columns: 120, rows: 34 });
    await e2e.term.waitFor('No sessions yet.');

    await newSession(e2e.term, 'Make asked.txt with an escalation');
    await e2e.term.waitFor('1 in the inbox', 60_000);
    await e2e.term.keys('C-o');
    const inbox = await e2e.term.waitFor('Inbox: 1 waiting on you');
    expect(inbox).toContain('approval');
    expect(inbox).toMatch(/Codex asks to run `.*printf asked > asked\.txt/);

    await e2e.term.keys('a');
    await e2e.term.waitFor('Nothing waits on you.', 15_000);
    await e2e.term.keys('Escape');
    await e2e.term.waitFor('Made asked.txt.', 60_000);
    await e2e.term.waitFor('[Commit] Add asked.txt', 20_000);
    const screen = await e2e.term.waitFor('[Approved]');
    expect(screen).toContain('you approved it once');

    const branch = git(repo, 'for-each-ref', '--format=%(refname:short)', 'refs/heads/grove/');
    expect(git(repo, 'show', `${branch}:asked.txt`)).toBe('asked');
  });
});
