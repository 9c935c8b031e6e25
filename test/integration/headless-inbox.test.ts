import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeRepo } from '../helpers/grove-env.js';
import { expectExit, harness, reply, type Harness } from './headless-harness.js';
import { InboxSchema, ResultSchema } from './headless-schema.js';

// `grove inbox`: the built binary, the real Claude Code, the fake model
// server, real repositories and a real SQLite store. The inbox is read from
// the store, across every project, from any directory.

let h: Harness;

beforeEach(async () => {
  h = await harness();
});

afterEach(async () => {
  await h.close();
});

async function inbox() {
  const run = await h.grove(['inbox', '--json'], { cwd: h.world.dir });
  expectExit(run, 0);
  return InboxSchema.parse(JSON.parse(run.stdout));
}

describe('grove inbox', () => {
  it('lists a question and a failed turn of two projects, oldest first, and an answered question leaves it', async () => {
    expect(await inbox()).toEqual([]);
    h.utilities();
    h.server.script('anthropic', [
      {
        when: 'Greet the user',
        text: reply('', {
          questions: [{ text: 'Which greeting should I use?', options: ['hello', 'hi'] }],
        }),
      },
    ]);
    const asked = await h.grove(['run', '--output', 'json', 'Greet the user']);
    expectExit(asked, 3);
    const question = ResultSchema.parse(JSON.parse(asked.stdout));

    const other = makeRepo(h.world, 'other');
    h.utilities('Fail please');
    h.server.script('anthropic', [
      {
        when: 'Fail please',
        error: {
          status: 500,
          body: { type: 'error', error: { type: 'api_error', message: 'the model broke' } },
        },
      },
    ]);
    const failed = await h.grove(['run', '-C', other, '--output', 'json', 'Fail please']);
    expectExit(failed, 1);
    const failure = ResultSchema.parse(JSON.parse(failed.stdout));

    const items = await inbox();
    expect(items.map((i) => [i.kind, i.sessionId, i.project])).toEqual([
      ['question', question.sessionId, 'project'],
      ['failedTurn', failure.sessionId, 'other'],
    ]);
    expect(items[0]?.text).toBe('A question: Which greeting should I use?');
    const text = await h.grove(['inbox'], { cwd: h.world.dir });
    expectExit(text, 0);
    expect(text.stdout.trim().split('\n')).toHaveLength(2);
    expect(text.stdout).toContain('question');

    h.utilities('Greet the user');
    h.server.script('anthropic', [{ when: 'Use hi please', text: reply('Used hi.') }]);
    const answered = await h.grove(['reply', question.sessionId.slice(0, 8), 'Use hi please']);
    expectExit(answered, 0);

    expect((await inbox()).map((i) => [i.kind, i.sessionId])).toEqual([
      ['failedTurn', failure.sessionId],
    ]);
  });
});
