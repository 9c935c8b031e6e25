import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectExit, harness, reply, type Harness } from './headless-harness.js';
import { InboxSchema, ResultSchema, ShowSchema } from './headless-schema.js';

// `grove answer ITEM TEXT...` (issue 25, item 3): the inbox's word for answering a
// question item, with the built binary, the real Claude Code and the fake model server.
// It takes the item's id from `grove inbox --json` or the session's id, runs the turn as
// `grove reply` does, and refuses in words (exit 2, nothing sent) when no question waits.

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

const sentToModel = (text: string): boolean =>
  h.server.modelRequests('anthropic').some((r) => JSON.stringify(r.body).includes(text));

async function transcriptLength(id: string): Promise<number> {
  const run = await h.grove(['show', id, '--json']);
  expectExit(run, 0);
  return ShowSchema.parse(JSON.parse(run.stdout)).transcript.length;
}

/** A session whose agent asked one question; resolves with its id. */
async function asked(): Promise<string> {
  h.utilities();
  h.server.script('anthropic', [
    {
      when: 'Greet the user',
      text: reply('', {
        questions: [{ text: 'Which greeting should I use?', options: ['hello', 'hi'] }],
      }),
    },
  ]);
  const run = await h.grove(['run', '--output', 'json', 'Greet the user']);
  expectExit(run, 3);
  return ResultSchema.parse(JSON.parse(run.stdout)).sessionId;
}

describe('grove answer', () => {
  it('answers a question item by the id grove inbox gives it, and the item leaves the inbox', async () => {
    const sessionId = await asked();
    const short = sessionId.slice(0, 8);
    const [item, ...rest] = await inbox();
    expect(rest).toEqual([]);
    expect(item).toMatchObject({ id: `question:${sessionId}`, kind: 'question' });
    expect(item?.action).toBe(`Answer it (Enter on the session, or grove answer ${short} "...")`);

    h.utilities('Greet the user');
    h.server.script('anthropic', [{ when: 'Use hi please', text: reply('Used hi.') }]);
    const answered = await h.grove(['answer', item?.id ?? '', 'Use', 'hi', 'please', '--json']);

    expectExit(answered, 0);
    const result = ResultSchema.parse(JSON.parse(answered.stdout));
    expect(result).toMatchObject({ sessionId, status: 'Review', answer: 'Used hi.' });
    expect(sentToModel('Use hi please')).toBe(true);
    expect(await inbox()).toEqual([]);
  });

  it("takes the session's id too, and refuses once the question is answered, sending nothing", async () => {
    const sessionId = await asked();
    const short = sessionId.slice(0, 8);
    h.utilities('Greet the user');
    h.server.script('anthropic', [{ when: 'Say hello please', text: reply('Said hello.') }]);

    const answered = await h.grove(['answer', short, 'Say hello please']);
    expectExit(answered, 0);
    expect(answered.stdout).toContain('Said hello.');
    const before = await transcriptLength(short);

    const again = await h.grove(['answer', `question:${short}`, 'Say hi after all']);

    expectExit(again, 2);
    expect(again.stdout).toBe('');
    expect(again.stderr).toBe(
      `grove: session ${short} has no question waiting for an answer (it is in Review); nothing was sent. grove reply ${short} sends it a prompt.\n`,
    );
    expect(sentToModel('Say hi after all')).toBe(false);
    expect(await transcriptLength(short)).toBe(before);
  });

  it('refuses another kind of item and an unknown session in words, while the question still waits', async () => {
    const sessionId = await asked();
    const requests = h.server.modelRequests('anthropic').length;

    const budget = await h.grove(['answer', `budget:${sessionId}`, 'hi']);
    expectExit(budget, 2);
    expect(budget.stderr).toBe(
      `grove: budget:${sessionId} is a budget item of the inbox, not a question: grove answer answers an agent's questions (question:ID, or the session's ID); grove inbox says what acts on each item. Nothing was sent.\n`,
    );
    const odd = await h.grove(['answer', 'frob:1234', 'hi']);
    expectExit(odd, 2);
    expect(odd.stderr).toMatch(
      /^grove: frob:1234 is not a question of the inbox: grove answer answers/,
    );
    const unknown = await h.grove(['answer', 'question:ffffffff', 'hi']);
    expectExit(unknown, 2);
    expect(unknown.stderr).toBe("grove: no session matches 'ffffffff'\n");

    expect(h.server.modelRequests('anthropic')).toHaveLength(requests);
    expect((await inbox()).map((i) => i.id)).toEqual([`question:${sessionId}`]);
  });
});
