import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ApiName } from '../helpers/fake-model/server.js';
import { onlyCliPath } from '../helpers/real-clis.js';
import { expectExit, harness, reply, type Harness } from './headless-harness.js';
import { ResultSchema, ShowSchema } from './headless-schema.js';

// One usage figure: every model request Grove causes for a session (the
// agent's turns, and Grove's own title and commit-message prompts) is in
// the session's usage, and the total equals what the model servers billed.
// The built binary drives each real CLI headless against the fake model
// servers, which read back the usage each response reported in its wire format.

let h: Harness;

beforeEach(async () => {
  h = await harness();
});

afterEach(async () => {
  await h.close();
});

const TITLE = 'Write a title for a coding task';
const COMMIT = 'Write the git commit message for the changes';

const CLIS: readonly {
  readonly agent: 'claude' | 'codex' | 'gemini';
  readonly api: ApiName;
  readonly args: readonly string[];
}[] = [
  { agent: 'claude', api: 'anthropic', args: [] },
  { agent: 'codex', api: 'openai', args: [] },
  { agent: 'gemini', api: 'gemini', args: ['--model', 'gemini-test'] },
];

async function showJson(id: string, env: Record<string, string>) {
  const run = await h.grove(['show', id, '--json'], { env });
  expectExit(run, 0);
  return ShowSchema.parse(JSON.parse(run.stdout));
}

describe.each(CLIS)('the usage of a $agent session', ({ agent, api, args }) => {
  it('equals what the model server billed, first turn and resumed turn, split by role', async () => {
    // The agent's CLI is the only one installed: Grove's own prompts go to it too.
    const env = { PATH: onlyCliPath(h.world.dir, agent) };
    const first = 'Create hello.txt with a greeting';
    const second = 'Now add bye.txt as well';
    h.server.script(api, [
      { when: TITLE, text: reply('Greet the world from hello.txt') },
      { when: COMMIT, text: reply('Add the greeting file\n\nCreates hello.txt.') },
      { when: first, toolCall: { kind: 'write_file', path: 'hello.txt', content: 'hello\n' } },
      { when: first, text: reply('Created it.') },
    ]);

    const run = await h.grove(['run', '--agent', agent, ...args, '--output', 'json', first], {
      env,
    });

    expectExit(run, 0);
    const { sessionId } = ResultSchema.parse(JSON.parse(run.stdout));
    const afterFirst = await showJson(sessionId, env);
    const billedFirst = h.server.billed(api);
    expect(billedFirst.responses).toBeGreaterThan(0);
    expect(afterFirst.usage.inputTokens).toBe(billedFirst.inputTokens);
    expect(afterFirst.usage.outputTokens).toBe(billedFirst.outputTokens);
    expect(afterFirst.usage.totalTokens).toBe(billedFirst.inputTokens + billedFirst.outputTokens);
    const roles = new Set(afterFirst.usage.byRole.map((r) => r.role));
    expect(roles).toEqual(new Set(['turn', 'title', 'commit']));
    const grove = afterFirst.usage.byRole
      .filter((r) => r.role !== 'turn')
      .reduce((sum, r) => sum + r.inputTokens + r.outputTokens, 0);
    expect(afterFirst.usage.groveTokens).toBe(grove);
    expect(grove).toBeGreaterThan(0);

    h.server.script(api, [
      { when: COMMIT, text: reply('Add the greeting files\n\nCreates hello.txt and bye.txt.') },
      { when: second, toolCall: { kind: 'write_file', path: 'bye.txt', content: 'bye\n' } },
      { when: second, text: reply('Added it.') },
    ]);
    const replied = await h.grove(['reply', sessionId, second], { env });

    expectExit(replied, 0);
    const afterSecond = await showJson(sessionId, env);
    const billed = h.server.billed(api);
    expect(billed.responses).toBeGreaterThan(billedFirst.responses);
    expect(afterSecond.usage.inputTokens).toBe(billed.inputTokens);
    expect(afterSecond.usage.outputTokens).toBe(billed.outputTokens);
    const commits = afterSecond.usage.byRole.find((r) => r.role === 'commit');
    expect(commits?.requests).toBe(2);

    // The text form says the same.
    const text = await h.grove(['show', sessionId], { env });
    expectExit(text, 0);
    expect(text.stdout).toContain(
      `usage ${billed.inputTokens + billed.outputTokens} tokens (${billed.inputTokens} in / ${billed.outputTokens} out), ${afterSecond.usage.groveTokens} by Grove\n`,
    );
    expect(text.stdout).toMatch(/^ {2}commit +\S+ {2}\d+ in \/ \d+ out {2}\(2 requests\)$/m);
  });
});

describe('a prompt of Grove whose reply stays unreadable', () => {
  it('is counted all the same, its repair round apart (Gemini CLI, reply format in the prompt)', async () => {
    const env = { PATH: onlyCliPath(h.world.dir, 'gemini') };
    const prompt = 'Say hello without changing files';
    h.server.script('gemini', [
      { when: TITLE, text: 'A title, but not in the reply format' },
      { when: 'could not be read by Grove', groveOwn: true, text: 'Still not in the reply format' },
      { when: prompt, text: reply('Hello.') },
    ]);

    const run = await h.grove(
      ['run', '--agent', 'gemini', '--model', 'gemini-test', '--output', 'json', prompt],
      { env },
    );

    expectExit(run, 0);
    const { sessionId } = ResultSchema.parse(JSON.parse(run.stdout));
    const shown = await showJson(sessionId, env);
    const billed = h.server.billed('gemini');
    expect(shown.usage.totalTokens).toBe(billed.inputTokens + billed.outputTokens);
    const roles = shown.usage.byRole.map((r) => [r.role, r.requests]);
    expect(roles).toEqual(
      expect.arrayContaining([
        ['title', 1],
        ['repair', 1],
      ]),
    );
    expect(shown.transcript.some((e) => e.content.startsWith('[Utility Error] The title'))).toBe(
      true,
    );
  });
});
