import Ajv from 'ajv';
import { describe, expect, it } from 'vitest';
import {
  AgentResponseSchema,
  MAX_OPTIONS,
  MAX_QUESTIONS,
  agentResponseJsonSchema,
} from '../../src/domain/protocol.js';
import { REPLY } from '../helpers/protocol-reply.js';

describe('agentResponseJsonSchema', () => {
  const ajv = new Ajv({ allErrors: true });

  it.each([false, true])('is a valid draft-07 JSON Schema (allRequired %s)', (allRequired) => {
    const schema = agentResponseJsonSchema(allRequired);
    expect(ajv.validateSchema(schema)).toBe(true);
    expect(schema['type']).toBe('object');
    expect(schema['additionalProperties']).toBe(false);
    expect(schema['required']).toEqual(
      allRequired ? ['answer', 'questions', 'summary'] : ['answer'],
    );
    expect(JSON.stringify(schema)).not.toContain('$schema');
  });

  it('limits options and questions like the parser does', () => {
    const schema = agentResponseJsonSchema() as {
      properties: {
        questions: { maxItems: number; items: { properties: { options: { maxItems: number } } } };
      };
    };
    expect(schema.properties.questions.maxItems).toBe(MAX_QUESTIONS);
    expect(schema.properties.questions.items.properties.options.maxItems).toBe(MAX_OPTIONS);
  });

  // Samples the wire schema and the zod schema must agree on. The zod schema
  // is more lenient (it accepts and repairs a few things the wire forbids), so
  // only strictly valid wire samples must pass both, and every sample the wire
  // schema accepts must parse with zod to the same data.
  const wireValid: readonly unknown[] = [
    REPLY,
    { answer: 'a', questions: [], summary: null },
    { answer: '' },
    {
      answer: 'a',
      questions: [
        { text: 'Q?', options: [] },
        { text: 'R?', options: ['1', '2', '3'] },
      ],
    },
    { answer: 'a', questions: [], summary: { turn: '', session: '' } },
  ];
  const bothInvalid: readonly unknown[] = [
    { answer: 1 },
    { answer: 'a', questions: 'no' },
    { answer: 'a', questions: [{ text: 1, options: [] }] },
    { answer: 'a', questions: [{ text: 'q', options: [1] }] },
    { answer: 'a', summary: { turn: 't' } },
    { answer: 'a', summary: 'short' },
    [],
    'text',
  ];
  const wireStricter: readonly unknown[] = [
    { answer: 'a', extra: true },
    { questions: [] },
    { answer: 'a', questions: [{ text: 'q', options: ['1', '2', '3', '4'] }] },
    { answer: 'a', questions: [{ text: 'q' }] },
    { answer: null },
  ];

  it.each(wireValid.map((s) => [s]))('accepts %j in both', (sample) => {
    const validate = ajv.compile(agentResponseJsonSchema());
    expect(validate(sample)).toBe(true);
    const parsed = AgentResponseSchema.safeParse(sample);
    expect(parsed.success).toBe(true);
    const s = sample as Record<string, unknown>;
    expect(parsed.data).toEqual({
      answer: s['answer'],
      questions: s['questions'] ?? [],
      ...('summary' in s ? { summary: s['summary'] } : {}),
    });
  });

  it.each(bothInvalid.map((s) => [s]))('rejects %j in both', (sample) => {
    expect(ajv.compile(agentResponseJsonSchema())(sample)).toBe(false);
    expect(AgentResponseSchema.safeParse(sample).success).toBe(false);
  });

  it.each(wireStricter.map((s) => [s]))(
    'the wire schema rejects %j, the lenient parser accepts it',
    (sample) => {
      expect(ajv.compile(agentResponseJsonSchema())(sample)).toBe(false);
      expect(AgentResponseSchema.safeParse(sample).success).toBe(true);
    },
  );

  it('with every key required, a reply missing questions or summary is refused', () => {
    const validate = ajv.compile(agentResponseJsonSchema(true));
    expect(validate({ answer: 'a' })).toBe(false);
    expect(validate({ answer: 'a', questions: [], summary: null })).toBe(true);
  });
});
