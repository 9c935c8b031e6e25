import { describe, expect, it } from 'vitest';
import { parseRetryLine, retryProgress } from '../../src/infra/agent/gemini/retries.js';

// Lines as Gemini CLI 0.61.0 writes them to GEMINI_DEBUG_LOG_FILE.

describe("reading Gemini CLI's retries from its debug log", () => {
  it('reads the attempt, the status and the API message of a 5xx retry', () => {
    const line =
      '[2026-11-23T11:01:42.859Z] [WARN] Attempt 2 failed with status 503. Retrying with backoff... _ApiError: {"error":{"code":503,"message":"The model is overloaded. Please try again later.","status":"UNAVAILABLE"}}';

    expect(parseRetryLine(line)).toEqual({
      attempt: 2,
      status: 503,
      reason: 'The model is overloaded. Please try again later.',
    });
  });

  it('reads a quota retry that names its pause', () => {
    const line =
      '[2026-11-23T11:01:42.859Z] [WARN] Attempt 1 failed: Resource exhausted, retry in 7s. Retrying after 7012ms...';

    expect(parseRetryLine(line)).toEqual({
      attempt: 1,
      status: null,
      reason: 'Resource exhausted, retry in 7s',
    });
  });

  it('ignores every other line', () => {
    expect(
      parseRetryLine(
        '[2026-11-23T11:01:36.595Z] [WARN] Ripgrep is not available. Falling back to GrepTool.',
      ),
    ).toBeNull();
    expect(
      parseRetryLine(
        '[2026-11-23T11:01:50.088Z] [WARN] Attempt 3 failed: boom. Max attempts reached',
      ),
    ).toBeNull();
  });

  it('says what failed and which attempt comes next', () => {
    expect(retryProgress({ attempt: 1, status: 500, reason: 'internal error' })).toBe(
      'Gemini CLI: model request failed (500: internal error); retrying, attempt 2…',
    );
  });
});
