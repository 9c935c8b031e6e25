import { en } from 'zod/locales';
import * as z from 'zod/mini';

// zod/mini has no error messages of its own ("Invalid input"); the schema
// problems in a diagnostic use the English ones, as the full zod does.
z.config(en());

// The structured reply every session turn must end with: one JSON object.

export const MAX_QUESTIONS = 5;
export const MAX_OPTIONS = 3;

const QuestionSchema = z.object({
  text: z.string().check(z.describe('The question, self-contained.')),
  options: z
    .array(z.string())
    .check(
      z.maxLength(MAX_OPTIONS),
      z.describe('Up to three short answers, the recommended one first.'),
    ),
});

const SummarySchema = z.object({
  turn: z.string().check(z.describe('What this turn did, in one or two sentences.')),
  session: z.string().check(z.describe('What the whole session has changed so far, cumulatively.')),
});

/** A question as read on the way in: options may be missing or null (a free-text question). */
const IncomingQuestionSchema = z.object({
  text: z.string(),
  options: z.nullish(z.array(z.string())),
});

/**
 * The reply, as validated on the way in. Deliberately lenient where the
 * meaning is clear: a missing or null `answer` is empty, missing or null
 * `questions` is none, unknown keys are dropped. Beyond the limits the
 * reply is truncated, not rejected: the first MAX_QUESTIONS questions with
 * text are kept, each with its first MAX_OPTIONS options (the recommended
 * one comes first). Wrong types are rejected.
 */
export const AgentResponseSchema = z.object({
  answer: z.pipe(
    z.nullish(z.string()),
    z.transform((answer) => answer ?? ''),
  ),
  questions: z.pipe(
    z.nullish(z.array(IncomingQuestionSchema)),
    z.transform((questions) =>
      (questions ?? [])
        .filter((q) => q.text.trim() !== '')
        .slice(0, MAX_QUESTIONS)
        .map((q) => ({ text: q.text, options: (q.options ?? []).slice(0, MAX_OPTIONS) })),
    ),
  ),
  summary: z.optional(z.nullable(SummarySchema)),
});

export type AgentResponse = z.infer<typeof AgentResponseSchema>;

/** The reply schema sent to the agent (strict: every property described). */
const WireSchema = z.strictObject({
  answer: z
    .string()
    .check(z.describe('Markdown for the developer: what you did, what to check, anything left.')),
  questions: z
    .array(z.strictObject(QuestionSchema.shape))
    .check(
      z.maxLength(MAX_QUESTIONS),
      z.describe(
        'Clarifying questions, only when you truly cannot proceed without an answer. Empty otherwise.',
      ),
    ),
  summary: z
    .nullable(z.strictObject(SummarySchema.shape))
    .check(z.describe('Summaries for session turns; null for one-off utility prompts.')),
});

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
  return {
    ...schema,
    additionalProperties: false,
    required: allRequired ? [...PROTOCOL_KEYS] : ['answer'],
  };
}

export type ParseResult =
  | { readonly ok: true; readonly value: AgentResponse }
  | { readonly ok: false; readonly diagnostic: string };

// ---------------------------------------------------------------------------
// Finding the reply object.
//
// The rule: the whole reply when it is one valid reply object; otherwise the
// LAST complete JSON object in the text that is a valid reply object wins —
// wherever it sits: after prose, inside a ```json fence (even when its answer
// contains fences of its own), or followed by more prose or by other objects
// that are not replies. Objects nested inside another complete object are
// never candidates on their own (an example inside the answer is not the
// reply). An object that has none of the protocol keys is not a reply.
// ---------------------------------------------------------------------------

interface Span {
  readonly start: number;
  readonly end: number;
}

/** Only objects that mention a protocol key are parsed (the spans are disjoint, so the cost stays linear). */
const MENTIONS_PROTOCOL_KEY = /"(?:answer|questions|summary)"\s*:/;
const MAX_KEYS_SHOWN = 10;

const OPEN = 0x7b; // {
const CLOSE = 0x7d; // }
const QUOTE = 0x22; // "
const BACKSLASH = 0x5c;

/**
 * The complete `{…}` spans that are not inside another complete span, in
 * order, and where the outermost unclosed `{` starts (-1 when all closed).
 * Quotes count only inside braces (prose apostrophes and quotes outside an
 * object do not matter). One linear pass; no recursion, so any nesting depth
 * is fine.
 */
function objectSpans(text: string): { spans: Span[]; unclosedAt: number } {
  const spans: Span[] = [];
  const stack: number[] = [];
  let inString = false;
  let escaped = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (escaped) escaped = false;
      else if (c === BACKSLASH) escaped = true;
      else if (c === QUOTE) inString = false;
      continue;
    }
    if (c === QUOTE) {
      if (stack.length > 0) inString = true;
    } else if (c === OPEN) {
      stack.push(i);
    } else if (c === CLOSE && stack.length > 0) {
      const start = stack.pop() ?? 0;
      // Spans recorded since `start` are inside this one.
      while (spans.length > 0 && (spans[spans.length - 1]?.start ?? -1) > start) spans.pop();
      spans.push({ start, end: i + 1 });
    }
  }
  return { spans, unclosedAt: stack[0] ?? -1 };
}

/** Raw control characters (newlines, tabs) inside strings, escaped: a common slip that changes no meaning. */
function escapeControlCharsInStrings(text: string): string {
  let out = '';
  let inString = false;
  let escaped = false;
  let last = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (!inString) {
      if (c === QUOTE) inString = true;
      continue;
    }
    if (escaped) escaped = false;
    else if (c === BACKSLASH) escaped = true;
    else if (c === QUOTE) inString = false;
    else if (c < 0x20) {
      out += `${text.slice(last, i)}\\u${c.toString(16).padStart(4, '0')}`;
      last = i + 1;
    }
  }
  return last === 0 ? text : out + text.slice(last);
}

// ---------------------------------------------------------------------------
// A JSON syntax check that says where and why parsing stops, in words of its
// own (engine messages quote the input, and some give no position).
// ---------------------------------------------------------------------------

interface SyntaxProblem {
  readonly position: number;
  readonly problem: string;
}

interface SyntaxReport {
  /** Null when text[from, to) is valid JSON. */
  readonly error: SyntaxProblem | null;
  /** Property names of the outermost object, as far as it was read. */
  readonly keys: readonly string[];
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const HEX4 = /^[0-9a-fA-F]{4}$/;

function checkJson(text: string, from: number, to: number): SyntaxReport {
  type Expect = 'value' | 'valueOrEnd' | 'key' | 'keyOrEnd' | 'colon' | 'commaOrEnd' | 'done';
  const stack: ('object' | 'array')[] = [];
  const keys: string[] = [];
  let expect = 'value' as Expect;
  let i = from;
  const fail = (position: number, problem: string): SyntaxReport => ({
    error: { position, problem },
    keys,
  });
  const afterValue = (): void => {
    expect = stack.length > 0 ? 'commaOrEnd' : 'done';
  };
  /** Index after the string starting at `at`, or a problem. */
  const scanString = (at: number): number | SyntaxProblem => {
    for (let j = at + 1; j < to; j++) {
      const c = text.charCodeAt(j);
      if (c === QUOTE) return j + 1;
      if (c < 0x20)
        return {
          position: j,
          problem: 'a control character (such as a raw line break) inside a string',
        };
      if (c === BACKSLASH) {
        const next = text[j + 1];
        if (next === undefined || j + 1 >= to)
          return { position: j, problem: 'an unterminated string' };
        if (next === 'u') {
          if (!HEX4.test(text.slice(j + 2, j + 6)))
            return { position: j, problem: 'an invalid \\u escape' };
          j += 5;
        } else if ('"\\/bfnrt'.includes(next)) {
          j += 1;
        } else {
          return { position: j, problem: 'an invalid escape sequence' };
        }
      }
    }
    return { position: to, problem: 'an unterminated string (the text ends inside it)' };
  };
  for (;;) {
    while (i < to && (text[i] === ' ' || text[i] === '\n' || text[i] === '\r' || text[i] === '\t'))
      i++;
    if (i >= to)
      return expect === 'done'
        ? { error: null, keys }
        : fail(
            to,
            `an unexpected end of input (${stack.length} unclosed bracket${stack.length === 1 ? '' : 's'})`,
          );
    const c = text[i] ?? '';
    switch (expect) {
      case 'done':
        return fail(i, 'more text after the end of the JSON value');
      case 'colon':
        if (c !== ':') return fail(i, "a missing ':' after a property name");
        expect = 'value';
        i++;
        break;
      case 'commaOrEnd': {
        const top = stack[stack.length - 1];
        const close = top === 'object' ? '}' : ']';
        if (c === ',') {
          expect = top === 'object' ? 'key' : 'value';
          i++;
        } else if (c === close) {
          stack.pop();
          afterValue();
          i++;
        } else {
          return fail(i, `a missing ',' or '${close}' after a value`);
        }
        break;
      }
      case 'key':
      case 'keyOrEnd': {
        if (c === '}' && expect === 'keyOrEnd') {
          stack.pop();
          afterValue();
          i++;
          break;
        }
        if (c !== '"')
          return fail(
            i,
            expect === 'key'
              ? "a property name that is not in double quotes (or a trailing ',')"
              : 'a property name that is not in double quotes',
          );
        const end = scanString(i);
        if (typeof end !== 'number') return fail(end.position, end.problem);
        if (stack.length === 1 && keys.length < MAX_KEYS_SHOWN)
          keys.push(text.slice(i + 1, end - 1));
        i = end;
        expect = 'colon';
        break;
      }
      case 'value':
      case 'valueOrEnd': {
        if (c === ']' && expect === 'valueOrEnd') {
          stack.pop();
          afterValue();
          i++;
        } else if (c === '{') {
          stack.push('object');
          expect = 'keyOrEnd';
          i++;
        } else if (c === '[') {
          stack.push('array');
          expect = 'valueOrEnd';
          i++;
        } else if (c === '"') {
          const end = scanString(i);
          if (typeof end !== 'number') return fail(end.position, end.problem);
          i = end;
          afterValue();
        } else if (c === '-' || (c >= '0' && c <= '9')) {
          NUMBER.lastIndex = i;
          const match = NUMBER.exec(text);
          if (!match || match[0] === '-') return fail(i, 'an invalid number');
          i += match[0].length;
          afterValue();
        } else {
          const literal = ['true', 'false', 'null'].find((word) => text.startsWith(word, i));
          if (!literal)
            return fail(
              i,
              expect === 'valueOrEnd' && c === ','
                ? "a trailing ',' or an empty array element"
                : 'a character that cannot start a JSON value',
            );
          i += literal.length;
          afterValue();
        }
        break;
      }
    }
  }
}

function lineAndColumn(text: string, position: number): string {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < position; i = text.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return `line ${line}, column ${position - lineStart + 1}`;
}

/** A key as it may appear in a diagnostic: plain identifiers only, never arbitrary reply text. */
function showKey(key: string): string {
  return /^[\w.$-]{1,40}$/.test(key) ? key : '(unusual key)';
}

type Attempt = { readonly kind: 'value'; readonly value: unknown } | { readonly kind: 'invalid' };

function tryParse(text: string): Attempt {
  try {
    return { kind: 'value', value: JSON.parse(text) as unknown };
  } catch {
    try {
      // RangeError (absurd nesting) or a syntax error: one lenient retry for raw control characters.
      const lenient = escapeControlCharsInStrings(text);
      return lenient === text
        ? { kind: 'invalid' }
        : { kind: 'value', value: JSON.parse(lenient) as unknown };
    } catch {
      return { kind: 'invalid' };
    }
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * Parses the agent's final message into the reply protocol (the rule is
 * above `objectSpans`). On failure the diagnostic holds only facts about the
 * text — its size, where and why a JSON parser stops, the keys it found,
 * what the schema rejected — never the text itself.
 */
export function parseAgentResponse(raw: string): ParseResult {
  const text = raw.trim();
  if (text === '') return { ok: false, diagnostic: 'The reply was empty.' };

  let schemaProblem = '';
  let keysFound = null as string[] | null;
  let sawObject = false as boolean;
  const consider = (value: unknown, source: string): AgentResponse | null => {
    if (!isPlainObject(value)) return null;
    sawObject = true;
    keysFound ??= Object.keys(value);
    if (!PROTOCOL_KEYS.some((k) => k in value)) return null;
    const parsed = AgentResponseSchema.safeParse(value);
    if (parsed.success) return parsed.data;
    if (!schemaProblem) {
      const issue = parsed.error.issues[0];
      schemaProblem = `${source}: ${issue ? `${issue.path.join('.') || '(root)'}: ${issue.message}` : 'invalid'}`;
    }
    return null;
  };

  const whole = tryParse(text);
  if (whole.kind === 'value') {
    const value = consider(whole.value, 'the whole reply');
    if (value) return { ok: true, value };
  }
  const { spans, unclosedAt } = objectSpans(text);
  for (let n = spans.length - 1; n >= 0; n--) {
    const span = spans[n];
    // The whole reply was already tried.
    if (!span || (span.start === 0 && span.end === text.length)) continue;
    const slice = text.slice(span.start, span.end);
    if (!MENTIONS_PROTOCOL_KEY.test(slice)) continue;
    const attempt = tryParse(slice);
    if (attempt.kind !== 'value') continue;
    const value = consider(
      attempt.value,
      n === spans.length - 1 ? 'the last JSON object' : `JSON object ${n + 1} of ${spans.length}`,
    );
    if (value) return { ok: true, value };
  }

  // Where a parser stops: in the unclosed object at the end, else the last object, else the whole reply.
  const last = spans[spans.length - 1];
  const target =
    unclosedAt !== -1 && (!last || unclosedAt > last.start)
      ? {
          start: unclosedAt,
          end: text.length,
          source: `the unclosed JSON object starting at position ${unclosedAt}`,
        }
      : last
        ? { ...last, source: `the last JSON object (positions ${last.start}–${last.end})` }
        : { start: 0, end: text.length, source: 'the whole reply' };
  const report = checkJson(text, target.start, target.end);
  const keys: string[] = keysFound ?? [...report.keys];
  const at = (problem: SyntaxProblem): string =>
    `${problem.problem} at position ${problem.position} (${lineAndColumn(text, problem.position)})`;
  // Where a parser reading the whole reply as JSON stops, when that is not the place reported above.
  const wholeError =
    target.start !== 0 || target.end !== text.length ? checkJson(text, 0, text.length).error : null;
  const lines = text.split('\n').length;
  const fences = (text.match(/^[ \t]*```/gm) ?? []).length;
  const parts = [
    `The reply did not contain a valid reply object (${text.length} characters, ${lines} line${lines === 1 ? '' : 's'}).`,
    `JSON objects found: ${spans.length} complete${unclosedAt === -1 ? '' : ', 1 unclosed'}.`,
    `Code fence lines: ${fences}.`,
    wholeError ? `Parser: the whole reply is not JSON: ${at(wholeError)}.` : '',
    report.error
      ? `Parser: in ${target.source}, ${at(report.error)}.`
      : `Parser: ${target.source} is valid JSON${whole.kind === 'value' && !isPlainObject(whole.value) && spans.length === 0 ? ' but not an object' : ''}.`,
    schemaProblem
      ? `Schema: ${schemaProblem.slice(0, 200)}.`
      : !MENTIONS_PROTOCOL_KEY.test(text) && (sawObject || spans.length > 0)
        ? 'Schema: no object has any of the keys answer, questions, summary.'
        : '',
    `Top-level keys: ${keys.length > 0 ? keys.slice(0, MAX_KEYS_SHOWN).map(showKey).join(', ') : 'none'}.`,
  ];
  return { ok: false, diagnostic: parts.filter(Boolean).join(' ') };
}
