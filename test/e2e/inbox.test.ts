import { beforeEach, describe, expect, it } from 'vitest';
import { agentEnv } from '../helpers/agent-env.js';
import { agentWorldEnv, makeRepo, runGrove, startGrove } from '../helpers/grove-env.js';
import { setUpE2eWorld } from '../helpers/e2e-world.js';
import { reply } from '../helpers/fake-model/reply.js';

// The inbox in the built Grove, in tmux: a session of another project that
// asks a question (made by `grove run`) shows as the header's count and in the
// inbox Ctrl+O opens; Enter switches to its project and opens its session;
// answered headless by `grove reply`, it leaves the inbox and the count.

const e2e = setUpE2eWorld();
let env: Record<string, string>;

beforeEach(() => {
  env = agentWorldEnv(e2e.world, agentEnv(e2e.server, e2e.world.home));
});

describe('the inbox', () => {
  it('opens with Ctrl+O, shows a question of another project, and Enter jumps to its session', async () => {
    const here = makeRepo(e2e.world, 'here');
    const other = makeRepo(e2e.world, 'other');
    e2e.server.script('anthropic', [
      { when: 'Write a title for a coding task', text: reply('Pick a greeting') },
      {
        when: 'Greet the user',
        text: reply('', {
          questions: [{ text: 'Which greeting should I use?', options: ['hello', 'hi'] }],
        }),
      },
    ]);
    const asked = await runGrove(env, other, ['run', 'Greet the user']);
    expect(asked.code, asked.out).toBe(3);
    const id = /grove reply ([0-9a-f]{8})/.exec(asked.out)?.[1] ?? '';

    const t = await startGrove(e2e.world, here, { env, columns: 120, rows: 30 });
    e2e.term = t;
    await t.waitFor('No sessions yet.');
    await t.waitFor('1 in the inbox');

    await t.keys('C-o');
    const inbox = await t.waitFor('Inbox: 1 waiting on you');
    expect(inbox).toContain('question');
    expect(inbox).toContain('other / Pick a greeting');
    expect(inbox).toContain('A question: Which greeting should I use?');

    await t.keys('Escape');
    await t.waitFor('No sessions yet.');
    await t.keys('C-o');
    await t.waitFor('Inbox: 1 waiting on you');
    await t.keys('Enter');
    await t.waitForGone('Inbox: 1 waiting');
    // The session's view in its project: the header names the project, the view its status line and question.
    const session = await t.waitFor(/Grove \S+ {2}other[\s\S]*Which greeting should I use\?/);
    expect(session).toContain('Pick a greeting');
    expect(session).toMatch(/Question {2}\[XS\]/);

    e2e.server.script('anthropic', [
      { when: 'Use hi please', text: reply('Used hi.') },
      {
        when: 'Write the git commit message for the changes',
        text: reply('Greet\n\nGreets.'),
      },
    ]);
    const answered = await runGrove(env, other, ['reply', id, 'Use hi please']);
    expect(answered.code, answered.out).toBe(0);
    await t.waitForGone('1 in the inbox', 15_000);
    await t.keys('C-o');
    await t.waitFor('Nothing waits on you.');
  });
});
