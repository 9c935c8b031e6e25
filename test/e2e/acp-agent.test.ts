import { beforeEach, describe, expect, it } from 'vitest';
import { installAcpAgent } from '../helpers/acp-agent.js';
import { agentEnv } from '../helpers/agent-env.js';
import { agentWorldEnv, git, makeRepo, startGrove } from '../helpers/grove-env.js';
import { setUpE2eWorld } from '../helpers/e2e-world.js';
import { reply } from '../helpers/fake-model/reply.js';

// An ACP agent of GROVE_HOME/agents.json in the built Grove in tmux: picked
// with /agent in a new session's composer, it runs the task (the small ACP
// agent of test/fixtures), and the work lands on the session branch.

const e2e = setUpE2eWorld();
let repo: string;

beforeEach(() => {
  repo = makeRepo(e2e.world);
  installAcpAgent(e2e.world);
  e2e.server.script('anthropic', [
    { when: 'Write a title for a coding task', text: reply('Write the note') },
    { when: 'Write the git commit message for the changes', text: reply('Add the note') },
    {
      when: 'You are reviewing the work of a coding agent',
      text: reply('## Review\nNothing to review.'),
    },
  ]);
});

describe('an ACP agent of agents.json in the TUI', () => {
  it('is offered by /agent in the composer, and runs the task picked with it', async () => {
    e2e.term = await startGrove(e2e.world, repo, {
      env: agentWorldEnv(e2e.world, agentEnv(e2e.server, e2e.world.home)),
      columns: 120,
      rows: 34,
    });
    const t = e2e.term;
    await t.waitFor('No sessions yet.');
    // The Projects tab lists it once Grove has looked for the agent CLIs.
    await t.keys('Tab', 'Tab');
    await t.waitFor(/tiny\s+ACP agent {2}\/\S+\/acp-fixture/, 20_000);
    await t.keys('Tab');
    await t.waitFor('No sessions yet.');
    await t.keys('a');
    await t.waitFor('Task for the agent');

    await t.type('/agent ');
    await t.waitFor(/tiny\s+ACP agent \(agents\.json\)/);
    await t.type('tiny');
    await t.keys('Enter');
    await t.waitFor(/acp:tiny\/default/);
    await t.type('Write the note');
    await t.keys('Enter');

    await t.waitFor('note written', 30_000);
    await t.waitFor(/ Review /, 20_000);
    const branch = git(repo, 'for-each-ref', '--format=%(refname:short)', 'refs/heads/grove/');
    expect(git(repo, 'show', `${branch}:acp-note.txt`)).toBe('written by the ACP agent');
  });
});
