import type { ProviderId } from '../../domain/providers.js';
import { AgentError, type AgentErrorReason } from './agent-error.js';

/** What a model API's error text says, in words, and the raw body it quoted (for the log). */
export interface ApiErrorText {
  /** The API's own message ("prompt is too long"), or the text itself when it quotes no error body. */
  readonly message: string;
  /** The HTTP status, when the text or the body names one. */
  readonly status: number | null;
  /** The JSON body as the CLI quoted it, or null. */
  readonly raw: string | null;
}

const MAX_MESSAGE = 300;

function record(value: unknown): Record<string, unknown> | null {
  return value && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;
}

/**
 * The message of an error body in the shapes the three model APIs use:
 * Anthropic `{type:"error", error:{type, message}}`, OpenAI `{error:{message,
 * type, code}}`, Gemini `{error:{code, message, status}}` (sometimes in an
 * array, sometimes with another JSON body inside its message).
 */
function bodyMessage(body: unknown, depth = 0): { message: string; status: number | null } | null {
  if (Array.isArray(body)) return body.length > 0 ? bodyMessage(body[0], depth) : null;
  const top = record(body);
  if (!top) return null;
  const error = record(top['error']) ?? top;
  const message =
    typeof error['message'] === 'string'
      ? error['message']
      : typeof top['message'] === 'string'
        ? top['message']
        : null;
  if (message === null) return null;
  const code =
    typeof error['code'] === 'number'
      ? error['code']
      : typeof top['status'] === 'number'
        ? top['status']
        : null;
  // Gemini sometimes wraps the upstream body as a string inside its message.
  if (depth < 2 && message.trim().startsWith('{')) {
    const inner = parseJson(message.trim());
    const nested = inner === undefined ? null : bodyMessage(inner, depth + 1);
    if (nested) return { message: nested.message, status: nested.status ?? code };
  }
  return { message, status: code };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The first JSON object or array in `text` that parses, with where it starts. */
function findJson(text: string): { value: unknown; start: number; raw: string } | null {
  for (let start = text.search(/[[{]/); start !== -1; start = nextOpening(text, start + 1)) {
    const close = text[start] === '{' ? '}' : ']';
    for (let end = text.lastIndexOf(close); end > start; end = text.lastIndexOf(close, end - 1)) {
      const raw = text.slice(start, end + 1);
      const value = parseJson(raw);
      if (value !== undefined) return { value, start, raw };
    }
  }
  return null;
}

function nextOpening(text: string, from: number): number {
  const rest = text.slice(from).search(/[[{]/);
  return rest === -1 ? -1 : from + rest;
}

/**
 * Reads a model API error as a CLI reports it ("API Error: 400 {…json…}",
 * "unexpected status 400 Bad Request: {…}", or the bare body): the API's
 * message in words, its status, and the raw body.
 */
export function readApiError(text: string): ApiErrorText {
  const found = findJson(text);
  const parsed = found ? bodyMessage(found.value) : null;
  const prefix = found ? text.slice(0, found.start) : text;
  const statusInText = /\b([45]\d\d)\b/.exec(prefix)?.[1];
  if (!found || !parsed) {
    // "API Error: 400 the message": the status is said once, after the message.
    const bare = statusInText
      ? text.replace(new RegExp(`^\\s*(API Error:?\\s*)?${statusInText}\\b:?\\s*`, 'i'), '')
      : text;
    return {
      message: bare.trim().replace(/\s+/g, ' ').slice(0, MAX_MESSAGE),
      status: statusInText ? Number(statusInText) : null,
      raw: null,
    };
  }
  const status = parsed.status ?? (statusInText ? Number(statusInText) : null);
  return {
    message: parsed.message.trim().replace(/\s+/g, ' ').slice(0, MAX_MESSAGE),
    status,
    raw: found.raw,
  };
}

/**
 * An AgentError for a failed model request: the API's message in words
 * ("Claude Code reported an error: prompt is too long (HTTP 400)"), the raw
 * body kept on the error for the log, never shown.
 */
export function apiAgentError(
  provider: ProviderId,
  label: string,
  text: string,
  options: { status?: number | null; reason?: AgentErrorReason; diagnostics?: string } = {},
): AgentError {
  const read = readApiError(text);
  const status = options.status ?? read.status;
  const reason = options.reason ?? (status === 401 || status === 403 ? 'auth' : 'api');
  const lead =
    reason === 'auth'
      ? `${label} is not signed in or its key was rejected`
      : `${label} reported an error`;
  const error = new AgentError(
    provider,
    reason,
    `${lead}: ${read.message}${status ? ` (HTTP ${status})` : ''}`,
    options.diagnostics ?? '',
  );
  error.raw = read.raw ?? (text.length > 0 ? text : null);
  return error;
}
