import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { installAcpAgent } from '../helpers/acp-agent.js';
import { agentEnv } from '../helpers/agent-env.js';
import { startFakeModelServer, type FakeModelServer } from '../helpers/fake-model/server.js';
import {
  agentWorldEnv,
  git,
  makeRepo,
  makeWorld,
  startGrove,
  type GroveWorld,
} from '../helpers/grove-env.js';
import type { TmuxTerminal } from '../helpers/tmux.js';

// An ACP agent of GROVE_HOME/agents.json in the built Grove in tmux: picked
// with /agent in a new session's composer, it runs the task (the small ACP
// agent of test/fixtures), and the work lands on the session branch.

const reply = (answer: string) =>
  JSON.stringify({
    answer,
    questions: [],
    summary: { turn: `turn: ${answer}`, session: `session: ${answer}` },
  });

let world: GroveWorld;
let server: FakeModelServer;
let term: TmuxTerminal | null = null;
let repo: string;

beforeEach(async () => {
  world = makeWorld();
  server = await startFakeModelServer();
  repo = makeRepo(world);
  installAcpAgent(world);
  server.script('anthropic', [
    { when: 'Write a title for a coding task', text: reply('Write the note') },
    { when: 'Write the git commit message for the changes', text: reply('Add the note') },
    {
      when: 'You are reviewing the work of a coding agent',
      text: reply('## Review\nNothing to review.'),
    },
  ]);
});

afterEach(async () => {
  await term?.kill();
  term = null;
  await server.close();
  world.cleanup();
});

describe('an ACP agent of agents.json in the TUI', () => {
  it('is offered by /agent in the composer, and runs the task picked with it', async () => {
    term = await startGrove(world, repo, {
      env: agentWorldEnv(world, agentEnv(server, world.home)),
      columns: 120,
      rows: 34,
    });
    const t = term;
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
