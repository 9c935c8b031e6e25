import { z } from 'zod';

// The structured reply every session turn must end with: one JSON object.

export const MAX_QUESTIONS = 5;
export const MAX_OPTIONS = 3;

const QuestionSchema = z.object({
  text: z.string().describe('The question, self-contained.'),
  options: z.array(z.string()).describe('Up to three short answers, the recommended one first.'),
});

const SummarySchema = z.object({
  turn: z.string().describe('What this turn did, in one or two sentences.'),
  session: z.string().describe('What the whole session has changed so far, cumulatively.'),
});

/** The reply, as validated on the way in (lenient: missing fields default). */
export const AgentResponseSchema = z.object({
  answer: z.string().default(''),
  questions: z
    .array(QuestionSchema)
    .default([])
    .transform((questions) => questions.slice(0, MAX_QUESTIONS).map((q) => ({ text: q.text, options: q.options.slice(0, MAX_OPTIONS) }))),
  summary: SummarySchema.nullable().optional(),
});

export type AgentResponse = z.infer<typeof AgentResponseSchema>;

/** The reply schema sent to the agent (strict: every property described). */
const WireSchema = z
  .object({
    answer: z.string().describe('Markdown for the developer: what you did, what to check, anything left.'),
    questions: z.array(QuestionSchema.strict()).max(MAX_QUESTIONS).describe('Clarifying questions, only when you truly cannot proceed without an answer. Empty otherwise.'),
    summary: SummarySchema.strict().nullable().describe('Summaries for session turns; null for one-off utility prompts.'),
  })
  .strict();

const PROTOCOL_KEYS = ['answer', 'questions', 'summary'] as const;

function stripSchemaKey(schema: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _drop, ...rest } = schema;
  return rest;
}

/**
 * The JSON Schema of the reply. `allRequired` lists every property as
 * required (Codex's outputSchema needs that); otherwise only `answer` is.
 */
export function agentResponseJsonSchema(allRequired = false): Record<string, unknown> {
  const schema = stripSchemaKey(z.toJSONSchema(WireSchema, { target: 'draft-7' }));
  return { ...schema, additionalProperties: false, required: allRequired ? [...PROTOCOL_KEYS] : ['answer'] };
}

export type ParseResult = { readonly ok: true; readonly value: AgentResponse } | { readonly ok: false; readonly diagnostic: string };

interface Candidate {
  readonly text: string;
  readonly source: string;
}

/** Finds the last complete top-level JSON object in text (string-aware brace matching). */
function lastJsonObject(text: string): { start: number; end: number } | null {
  let found: { start: number; end: number } | null = null;
  let depth = 0;
  let start = -1;
  let inString = false;
  let escaped = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (escaped) escaped = false;
      else if (c === '\\') escaped = true;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"' && depth > 0) inString = true;
    else if (c === '{') {
      if (depth === 0) start = i;
      depth++;
    } else if (c === '}' && depth > 0) {
      depth--;
      if (depth === 0 && start !== -1) found = { start, end: i + 1 };
    }
  }
  return found;
}

const FENCE = /```(?:json|JSON)?[ \t]*\n([\s\S]*?)\n?```/g;

function candidates(text: string): { list: Candidate[]; fence: boolean; trailing: boolean } {
  const list: Candidate[] = [{ text, source: 'whole reply' }];
  const fences = [...text.matchAll(FENCE)];
  const last = fences[fences.length - 1];
  if (last?.[1] !== undefined) list.push({ text: last[1].trim(), source: 'last code fence' });
  let trailing = false;
  const object = lastJsonObject(text);
  if (object) {
    trailing = text.slice(object.end).trim() === '';
    if (trailing) list.push({ text: text.slice(object.start, object.end), source: 'trailing JSON object' });
  }
  return { list, fence: fences.length > 0, trailing };
}

function topLevelKeys(text: string): string[] {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' && !Array.isArray(value) ? Object.keys(value) : [];
  } catch {
    return [];
  }
}

/**
 * Parses the agent's final message into the reply protocol: the whole text,
 * else the last fenced block, else a trailing JSON object after prose. The
 * diagnostic never contains the raw output, only facts about it.
 */
export function parseAgentResponse(raw: string): ParseResult {
  const text = raw.trim();
  if (text === '') return { ok: false, diagnostic: 'The reply was empty.' };
  const { list, fence, trailing } = candidates(text);
  let parserError = '';
  let keys: string[] = [];
  for (const candidate of list) {
    let value: unknown;
    try {
      value = JSON.parse(candidate.text);
    } catch (error) {
      // Engines quote a snippet of the input in their message: keep only the position.
      const message = (error instanceof Error ? error.message : String(error)).replace(/"(?:[^"\\]|\\.)*"/g, '"…"');
      if (!parserError) parserError = `${candidate.source}: ${message}`;
      continue;
    }
    if (!value || typeof value !== 'object' || Array.isArray(value)) {
      parserError ||= `${candidate.source}: not a JSON object`;
      continue;
    }
    keys = Object.keys(value);
    if (!PROTOCOL_KEYS.some((k) => k in value)) {
      parserError ||= `${candidate.source}: no protocol key (answer, questions, summary)`;
      continue;
    }
    const parsed = AgentResponseSchema.safeParse(value);
    if (parsed.success) return { ok: true, value: parsed.data };
    const issue = parsed.error.issues[0];
    parserError = `${candidate.source}: ${issue ? `${issue.path.join('.') || '(root)'} ${issue.message}` : 'invalid'}`;
  }
  if (keys.length === 0) keys = topLevelKeys(text);
  const parts = [
    `The reply did not contain one valid JSON object (${text.length} characters).`,
    `Code fence: ${fence ? 'yes' : 'no'}.`,
    `Trailing JSON object: ${trailing ? 'yes' : 'no'}.`,
    parserError ? `Parser: ${parserError.slice(0, 200)}.` : '',
    `Top-level keys: ${keys.length > 0 ? keys.slice(0, 10).join(', ') : 'none'}.`,
  ];
  return { ok: false, diagnostic: parts.filter(Boolean).join(' ') };
}
