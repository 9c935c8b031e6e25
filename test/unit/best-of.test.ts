import { describe, expect, it } from 'vitest';
import { parseHeadless } from '../../src/cli/args.js';
import {
  checkText,
  judgePrompt,
  parseRanking,
  parseVariants,
  taskTitle,
  variantTitle,
} from '../../src/domain/best-of.js';

const A = 'aaaaaaaa-1111-4111-8111-111111111111';
const B = 'bbbbbbbb-2222-4222-8222-222222222222';
const C = 'cccccccc-3333-4333-8333-333333333333';

describe('parseRanking', () => {
  it('reads a JSON array of session, rank and reason, best first', () => {
    const text = `[{"session":"${B}","rank":2,"reason":"fails"},{"session":"${A}","rank":1,"reason":"passes"}]`;

    expect(parseRanking(text, [A, B])).toEqual([
      { sessionId: A, rank: 1, reason: 'passes' },
      { sessionId: B, rank: 2, reason: 'fails' },
    ]);
  });

  it('reads the array out of prose and a code fence, with ids shortened and ranks as strings', () => {
    const text = `Here you go:\n\`\`\`json\n[{"session": "bbbbbbbb", "rank": "1", "reason": "smaller"}, {"sessionId": "aaaaaaaa", "rank": "2", "why": "larger"}]\n\`\`\``;

    expect(parseRanking(text, [A, B])?.map((r) => [r.sessionId, r.rank, r.reason])).toEqual([
      [B, 1, 'smaller'],
      [A, 2, 'larger'],
    ]);
  });

  it('reads an object with a ranking array', () => {
    expect(
      parseRanking(`{"ranking":[{"id":"${C}","rank":1,"reason":"only one"}]}`, [C])?.[0]?.sessionId,
    ).toBe(C);
  });

  it('puts the sessions the judge left out last, and drops unknown ones', () => {
    const ranking = parseRanking(
      `[{"session":"${B}","rank":1,"reason":"best"},{"session":"zzzz","rank":2,"reason":"?"}]`,
      [A, B, C],
    );

    expect(ranking?.map((r) => [r.sessionId, r.rank])).toEqual([
      [B, 1],
      [A, 2],
      [C, 3],
    ]);
  });

  it('is null when the answer holds no ranking', () => {
    expect(parseRanking('I could not decide.', [A, B])).toBeNull();
    expect(parseRanking('[1, 2]', [A, B])).toBeNull();
  });
});

describe('parseVariants', () => {
  it('cycles the listed agents and models over N variants', () => {
    expect(parseVariants('claude,codex:gpt-5.5', 3)).toEqual([
      { agent: 'claude', model: null },
      { agent: 'codex', model: 'gpt-5.5' },
      { agent: 'claude', model: null },
    ]);
  });

  it('is null without a list', () => {
    expect(parseVariants(null, 3)).toBeNull();
  });
});

describe('judgePrompt', () => {
  it('names each variant with its check result and diff, and asks for the JSON ranking', () => {
    const prompt = judgePrompt(
      'Fix the bug',
      [
        {
          sessionId: A,
          label: 'claude/sonnet',
          diff: '+fixed',
          check: { exitCode: 0, timedOut: false, output: '' },
        },
        {
          sessionId: B,
          label: 'codex/gpt-5.5',
          diff: '',
          check: { exitCode: 2, timedOut: false, output: 'FAIL one test' },
        },
      ],
      'npm test',
    );

    expect(prompt).toContain(`## Variant ${A} (claude/sonnet)\nCheck \`npm test\`: passed`);
    expect(prompt).toContain(
      `## Variant ${B} (codex/gpt-5.5)\nCheck \`npm test\`: failed (exit 2)`,
    );
    expect(prompt).toContain('FAIL one test');
    expect(prompt).toContain('(no changes)');
    expect(prompt).toContain(
      '[{"session": "<variant id>", "rank": 1, "reason": "<one sentence>"}]',
    );
  });
});

describe('checkText', () => {
  it('says how a check went', () => {
    expect(checkText(null)).toBe('not run');
    expect(checkText({ exitCode: 124, timedOut: true, output: '' })).toBe('timed out');
  });
});

describe('grove run -n', () => {
  it('parses N and the agents list', () => {
    expect(parseHeadless('run', ['-n', '3', '--agents', 'claude,codex', 'Task'])).toMatchObject({
      kind: 'run',
      n: 3,
      agents: 'claude,codex',
      prompt: 'Task',
    });
  });

  it('refuses N below 2 and --agents without -n', () => {
    expect(() => parseHeadless('run', ['-n', '1', 'Task'])).toThrow(
      '-n must be a whole number from 2 to 8',
    );
    expect(() => parseHeadless('run', ['--agents', 'claude', 'Task'])).toThrow(
      '--agents needs -n N',
    );
  });
});

describe('variantTitle', () => {
  const group = {
    members: [
      { sessionId: 'a', position: 1, check: null },
      { sessionId: 'b', position: 2, check: null },
      { sessionId: 'c', position: 3, check: null },
    ],
  };

  it('tells the variants of one prompt apart by their place and what runs them', () => {
    expect(variantTitle('Add a cache', group, { id: 'b', agent: 'claude', model: 'opus' })).toBe(
      'Add a cache (variant 2 of 3, claude/opus)',
    );
  });

  it('replaces a suffix already there instead of adding a second, and taskTitle removes it', () => {
    const once = variantTitle('Add a cache', group, { id: 'c', agent: 'codex', model: 'o4' });
    expect(variantTitle(once, group, { id: 'c', agent: 'codex', model: 'o4' })).toBe(once);
    expect(taskTitle(once)).toBe('Add a cache');
  });

  it('leaves the title of a session outside the group alone', () => {
    expect(variantTitle('Add a cache', group, { id: 'z', agent: 'claude', model: 'opus' })).toBe(
      'Add a cache',
    );
  });
});
