import { describe, expect, it } from 'vitest';
import {
  MAX_OPTIONS,
  MAX_QUESTIONS,
  parseAgentResponse,
  type AgentResponse,
} from '../../src/domain/protocol.js';
import { EXPECTED, REPLY, REPLY_JSON } from '../helpers/protocol-reply.js';

// parseAgentResponse: finding the agent's reply object and reading it. The
// JSON Schema: protocol-schema.test.ts; the repair turn: protocol-turn.test.ts.

function ok(raw: string): AgentResponse {
  const result = parseAgentResponse(raw);
  if (!result.ok) throw new Error(`expected a parsed reply, got: ${result.diagnostic}`);
  return result.value;
}

function fail(raw: string): string {
  const result = parseAgentResponse(raw);
  if (result.ok) throw new Error(`expected a failure, got ${JSON.stringify(result.value)}`);
  return result.diagnostic;
}

const fence = (body: string, lang = 'json'): string => `\`\`\`${lang}\n${body}\n\`\`\``;

describe('parseAgentResponse: where the reply object is found', () => {
  // The rule: the whole reply if it is a valid reply object; otherwise the LAST
  // complete top-level JSON object that is a valid reply object.
  const cases: readonly { name: string; raw: string; answer: string }[] = [
    { name: 'a clean object', raw: REPLY_JSON, answer: REPLY.answer },
    {
      name: 'a clean object with surrounding whitespace',
      raw: `\n\n  ${REPLY_JSON}\n  `,
      answer: REPLY.answer,
    },
    { name: 'a pretty-printed object', raw: JSON.stringify(REPLY, null, 2), answer: REPLY.answer },
    {
      name: 'a trailing object after prose',
      raw: `I fixed it. Here is my reply:\n\n${REPLY_JSON}`,
      answer: REPLY.answer,
    },
    {
      name: 'prose with quotes, apostrophes and braces before the object',
      raw: `It's "done" — see {curly} and set {a, b.\n${REPLY_JSON}`,
      answer: REPLY.answer,
    },
    { name: 'inside a ```json fence', raw: fence(REPLY_JSON), answer: REPLY.answer },
    { name: 'inside a bare ``` fence', raw: fence(REPLY_JSON, ''), answer: REPLY.answer },
    {
      name: 'inside a fence after prose, with prose after the fence',
      raw: `Summary below.\n${fence(JSON.stringify(REPLY, null, 2))}\nLet me know if you need more.`,
      answer: REPLY.answer,
    },
    {
      name: 'nested fences: a fence inside the answer string of a fenced object',
      raw: fence(
        JSON.stringify({
          ...REPLY,
          answer: 'Use this:\n```ts\nconst x = { a: 1 };\n```\nand ```json\n{"b": 2}\n```',
        }),
      ),
      answer: 'Use this:\n```ts\nconst x = { a: 1 };\n```\nand ```json\n{"b": 2}\n```',
    },
    {
      name: 'an earlier example fence in the prose, the reply in the last fence',
      raw: `Example:\n${fence('{"example": true}')}\nReply:\n${fence(JSON.stringify({ ...REPLY, answer: 'real' }))}`,
      answer: 'real',
    },
    {
      name: 'several reply objects: the last one wins',
      raw: `${JSON.stringify({ answer: 'first' })}\n${JSON.stringify({ answer: 'second' })}\n${JSON.stringify({ answer: 'third' })}`,
      answer: 'third',
    },
    {
      name: 'several objects: the last VALID reply wins over a later non-reply object',
      raw: `${JSON.stringify({ answer: 'the reply' })}\nFor example: {"path": "src/a.ts", "line": 3}`,
      answer: 'the reply',
    },
    {
      name: 'several objects: the last valid reply wins over a later invalid one',
      raw: `${JSON.stringify({ answer: 'valid' })}\n${JSON.stringify({ answer: 42 })}`,
      answer: 'valid',
    },
    {
      name: 'an object inside the answer is never the reply',
      raw: JSON.stringify({ answer: 'outer', questions: [] }).replace(
        '"outer"',
        '"outer {\\"answer\\": \\"inner\\"}"',
      ),
      answer: 'outer {"answer": "inner"}',
    },
    {
      name: 'a raw line break inside a string is tolerated',
      raw: '{"answer": "line one\nline two"}',
      answer: 'line one\nline two',
    },
    {
      name: 'unicode and escapes',
      raw: '{"answer": "caf\\u00e9 \\"quoted\\" \\\\ back\\/slash 🌲"}',
      answer: 'café "quoted" \\ back/slash 🌲',
    },
  ];

  it.each(cases)('$name', ({ raw, answer }) => {
    expect(ok(raw).answer).toBe(answer);
  });

  it('returns every field of a clean object', () => {
    expect(ok(REPLY_JSON)).toEqual(EXPECTED);
  });
});

describe('parseAgentResponse: fields', () => {
  it('missing optional keys default: questions none, summary absent', () => {
    expect(ok('{"answer":"only"}')).toEqual({ answer: 'only', questions: [] });
    expect(ok('{"questions":[{"text":"Which?","options":["a"]}]}')).toEqual({
      answer: '',
      questions: [{ text: 'Which?', options: ['a'] }],
    });
    expect(ok('{"summary":{"turn":"t","session":"s"}}')).toEqual({
      answer: '',
      questions: [],
      summary: { turn: 't', session: 's' },
    });
  });

  it('null questions and answer are treated as missing; null summary stays null', () => {
    expect(ok('{"answer":null,"questions":null,"summary":null}')).toEqual({
      answer: '',
      questions: [],
      summary: null,
    });
  });

  it('extra keys are dropped, at the top and inside questions and summary', () => {
    const value = ok(
      JSON.stringify({
        ...REPLY,
        questions: [{ text: 'Q?', options: ['x'], why: 'because' }],
        summary: { ...REPLY.summary, mood: 'good' },
        confidence: 0.9,
        files: ['a'],
      }),
    );
    expect(value).toEqual({ ...EXPECTED, questions: [{ text: 'Q?', options: ['x'] }] });
    expect(Object.keys(value)).not.toContain('confidence');
  });

  it(`questions with more than ${MAX_OPTIONS} options are truncated to the first ${MAX_OPTIONS} (deliberately not rejected)`, () => {
    const value = ok(
      JSON.stringify({
        answer: '',
        questions: [{ text: 'Pick one', options: ['recommended', 'b', 'c', 'd', 'e'] }],
      }),
    );
    expect(value.questions).toEqual([{ text: 'Pick one', options: ['recommended', 'b', 'c'] }]);
  });

  it(`more than ${MAX_QUESTIONS} questions are truncated; questions without text are dropped; missing options mean free text`, () => {
    const questions = [
      { text: '  ', options: ['x'] },
      ...Array.from({ length: MAX_QUESTIONS + 2 }, (_, i) => ({ text: `Q${i}` })),
    ];
    const value = ok(JSON.stringify({ answer: 'a', questions }));
    expect(value.questions.map((q) => q.text)).toEqual(
      Array.from({ length: MAX_QUESTIONS }, (_, i) => `Q${i}`),
    );
    expect(value.questions.every((q) => q.options.length === 0)).toBe(true);
  });

  it.each([
    ['answer is a number', '{"answer": 42}', 'answer'],
    ['questions is a string', '{"answer":"a","questions":"none"}', 'questions'],
    [
      'a question without text',
      '{"answer":"a","questions":[{"options":["x"]}]}',
      'questions.0.text',
    ],
    [
      'an option that is not a string',
      '{"answer":"a","questions":[{"text":"q","options":[1]}]}',
      'questions.0.options.0',
    ],
    ['a summary missing session', '{"answer":"a","summary":{"turn":"t"}}', 'summary.session'],
  ])('rejects wrong types: %s', (_name, raw, path) => {
    const diagnostic = fail(raw);
    expect(diagnostic).toContain(`Schema: the whole reply: ${path}:`);
  });

  it('an object without any protocol key is not a reply', () => {
    const diagnostic = fail('{"result": "done", "status": "ok"}');
    expect(diagnostic).toContain('no object has any of the keys answer, questions, summary');
    expect(diagnostic).toContain('Top-level keys: result, status.');
  });
});

describe('parseAgentResponse: hostile output', () => {
  it('megabytes of prose with the reply at the end', () => {
    const prose = 'word { "quote \\ '.repeat(300_000); // ~5 MB of unbalanced braces, quotes and escapes
    expect(ok(`${prose}\n${REPLY_JSON}`).answer).toBe(REPLY.answer);
  });

  it('a huge answer (several MB) in a clean object', () => {
    const answer = 'x'.repeat(5_000_000);
    expect(ok(JSON.stringify({ answer })).answer).toHaveLength(5_000_000);
  });

  it('megabytes of text with no JSON fail with a bounded diagnostic', () => {
    const raw = 'All done, nothing to report. '.repeat(200_000);
    const diagnostic = fail(raw);
    expect(diagnostic).toContain(`${raw.trim().length} characters`);
    expect(diagnostic.length).toBeLessThan(1000);
  });

  it('deeply nested braces (no recursion limits hit)', () => {
    const deep = `${'{'.repeat(200_000)}${'}'.repeat(200_000)}`;
    const diagnostic = fail(deep);
    expect(diagnostic).toContain('Parser: in the last JSON object');
    expect(diagnostic.length).toBeLessThan(1000);
  });

  it('deeply nested arrays inside a reply are rejected, not a crash', () => {
    const raw = `{"answer": ${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
    const result = parseAgentResponse(raw);
    expect(result.ok).toBe(false);
  });

  it('deep nesting before a valid reply still finds the reply', () => {
    expect(ok(`${'{'.repeat(50_000)}\n${REPLY_JSON}`).answer).toBe(REPLY.answer);
  });

  it('many small objects: the last valid reply wins', () => {
    const noise = '{"n": 1} '.repeat(100_000);
    expect(
      ok(
        `${JSON.stringify({ answer: 'early' })}${noise}${JSON.stringify({ answer: 'late' })}${noise}`,
      ).answer,
    ).toBe('late');
  });

  it.each([
    ['an empty reply', '', 'The reply was empty.'],
    ['only whitespace', '  \n\t ', 'The reply was empty.'],
  ])('%s', (_name, raw, expected) => {
    expect(fail(raw)).toBe(expected);
  });

  it.each([
    ['a number', '42'],
    ['a string', '"just a string"'],
    ['null', 'null'],
    ['a boolean', 'true'],
    ['an array of strings', '["answer", "questions"]'],
  ])('JSON that is not an object: %s', (_name, raw) => {
    const diagnostic = fail(raw);
    expect(diagnostic).toContain('JSON objects found: 0 complete');
    expect(diagnostic).toContain('is valid JSON but not an object');
  });
});

describe('parseAgentResponse: the diagnostic', () => {
  // Each raw text holds a marker that must never reach the diagnostic.
  const SECRET = 'SECRET_OUTPUT_7f3a';
  const cases: readonly { name: string; raw: string; problem: RegExp; keys: string }[] = [
    {
      name: 'no JSON at all',
      raw: `Sure! I did it. ${SECRET}`,
      problem:
        /the whole reply, a character that cannot start a JSON value at position 0 \(line 1, column 1\)/,
      keys: 'none',
    },
    {
      name: 'truncated JSON',
      raw: `Here:\n{"answer": "I changed ${SECRET}`,
      problem:
        /the unclosed JSON object starting at position 6, an unterminated string \(the text ends inside it\) at position \d+ \(line 2, column \d+\)/,
      keys: 'answer',
    },
    {
      name: 'truncated after a complete value',
      raw: `{"answer": "${SECRET}", "questions": [`,
      problem: /an unexpected end of input \(2 unclosed brackets\)/,
      keys: 'answer, questions',
    },
    {
      name: 'an unterminated string at the end',
      raw: `{"answer": "${SECRET}\\"}`,
      problem: /an unterminated string/,
      keys: 'answer',
    },
    {
      name: 'an invalid escape',
      raw: `{"summary": null, "answer": "${SECRET} \\q"}`,
      problem: /an invalid escape sequence at position 48 \(line 1, column 49\)/,
      keys: 'summary, answer',
    },
    {
      name: 'a trailing comma',
      raw: `{"answer": "${SECRET}",}`,
      problem: /a property name that is not in double quotes \(or a trailing ','\) at position 32/,
      keys: 'answer',
    },
    {
      name: 'single quotes',
      raw: `{'answer': '${SECRET}'}`,
      problem: /a property name that is not in double quotes at position 1/,
      keys: 'none',
    },
    {
      name: 'an unquoted value',
      raw: `{"answer": ${SECRET}}`,
      problem: /a character that cannot start a JSON value at position 11/,
      keys: 'answer',
    },
    {
      name: 'a missing comma',
      raw: `{"answer": "${SECRET}" "questions": []}`,
      problem: /a missing ',' or '}' after a value at position 32/,
      keys: 'answer',
    },
  ];

  it.each(cases)(
    '$name: sizes, parser position and keys, never the raw output',
    ({ raw, problem, keys }) => {
      const diagnostic = fail(raw);
      expect(diagnostic).toContain(`(${raw.trim().length} characters, `);
      expect(diagnostic).toMatch(problem);
      expect(diagnostic).toContain(`Top-level keys: ${keys}.`);
      expect(diagnostic).not.toContain(SECRET);
      expect(diagnostic).not.toContain('Sure!');
      // Only a reply with no double-quoted protocol key at all is said to lack them.
      expect(diagnostic.includes('no object has any of the keys')).toBe(
        !raw.includes('"answer"') && raw.includes('{'),
      );
    },
  );

  it('prose around a JSON object that is not a reply: where the whole reply stops, and that the object is valid', () => {
    const diagnostic = fail(`Sure! ${SECRET} {"status": "ok"} bye`);
    expect(diagnostic).toContain(
      'Parser: the whole reply is not JSON: a character that cannot start a JSON value at position 0 (line 1, column 1).',
    );
    expect(diagnostic).toMatch(
      /Parser: the last JSON object \(positions \d+–\d+\) is valid JSON\./,
    );
    expect(diagnostic).toContain(
      'Schema: no object has any of the keys answer, questions, summary.',
    );
    expect(diagnostic).toContain('Top-level keys: status.');
    expect(diagnostic).not.toContain(SECRET);
  });

  it('schema failures name the path, not the value', () => {
    const diagnostic = fail(`{"answer": ["${SECRET}"]}`);
    expect(diagnostic).toMatch(/Schema: the whole reply: answer: /);
    expect(diagnostic).toContain('Top-level keys: answer.');
    expect(diagnostic).not.toContain(SECRET);
  });

  it('odd keys are not echoed', () => {
    const diagnostic = fail(`{"${SECRET} with spaces and <html>": 1}`);
    expect(diagnostic).toContain('Top-level keys: (unusual key).');
    expect(diagnostic).not.toContain(SECRET);
  });

  it('reports the code fence and object counts', () => {
    const diagnostic = fail(`Text\n${fence('{"a": 1}')}\n${fence('{"b": ')}`);
    expect(diagnostic).toContain('Code fence lines: 4.');
    expect(diagnostic).toContain('JSON objects found: 1 complete, 1 unclosed.');
  });
});
