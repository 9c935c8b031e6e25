import { describe, expect, it } from 'vitest';
import { apiAgentError, readApiError } from '../../src/infra/agent/api-error.js';

describe('reading a model API error as a CLI reports it', () => {
  it.each([
    [
      'an Anthropic body after a prefix',
      'API Error: 400 {"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long"}}',
      'prompt is too long',
      400,
    ],
    [
      'an OpenAI body',
      '{"error":{"message":"prompt is too long","type":"invalid_request_error","code":"context_length_exceeded"}}',
      'prompt is too long',
      null,
    ],
    [
      'a Gemini body',
      '{"error":{"code":400,"message":"prompt is too long","status":"INVALID_ARGUMENT"}}',
      'prompt is too long',
      400,
    ],
    [
      'a Gemini body in an array',
      '[{"error":{"code":500,"message":"internal","status":"INTERNAL"}}]',
      'internal',
      500,
    ],
    [
      'a Gemini body whose message is another body',
      '{"error":{"code":429,"message":"{\\"error\\":{\\"message\\":\\"quota exceeded\\"}}","status":"RESOURCE_EXHAUSTED"}}',
      'quota exceeded',
      429,
    ],
    [
      'a status and text after the body',
      'unexpected status 400 Bad Request: {"error":{"message":"bad schema"}}',
      'bad schema',
      400,
    ],
    [
      'text that Claude Code already read',
      'API Error: 400 request rejected',
      'request rejected',
      400,
    ],
    ['text with no body at all', 'Connection refused', 'Connection refused', null],
  ])('finds the message in %s', (_what, text, message, status) => {
    const read = readApiError(text);

    expect(read.message).toBe(message);
    expect(read.status).toBe(status);
  });

  it('keeps the raw body, and the shown message has none of it', () => {
    const body =
      '{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long"}}';

    const error = apiAgentError('claude', 'Claude Code', `API Error: 400 ${body}`);

    expect(error.message).toBe('Claude Code reported an error: prompt is too long (HTTP 400)');
    expect(error.raw).toBe(body);
    expect(error.reason).toBe('api');
  });

  it('calls a rejected key a sign-in problem', () => {
    const error = apiAgentError(
      'codex',
      'Codex',
      '{"error":{"code":401,"message":"Incorrect API key provided"}}',
    );

    expect(error.reason).toBe('auth');
    expect(error.message).toBe(
      'Codex is not signed in or its key was rejected: Incorrect API key provided (HTTP 401)',
    );
  });
});
