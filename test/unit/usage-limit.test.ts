import { describe, expect, it } from 'vitest';
import {
  DEFAULT_LIMIT_WAIT_MS,
  MIN_LIMIT_WAIT_MS,
  readUsageLimit,
  waitingText,
} from '../../src/domain/usage-limit.js';

// The limit messages below are what the pinned CLIs print for their API's
// real limit responses (see test/integration/usage-limit.test.ts), and the
// subscription forms Claude Code prints.

const NOW = new Date(2026, 10, 23, 11, 40, 30).getTime();
const at = (h: number, m: number, dayOffset = 0): number =>
  new Date(2026, 10, 23 + dayOffset, h, m).getTime();

describe('readUsageLimit', () => {
  it('reads the epoch of Claude Code usage limit message', () => {
    const epoch = Math.floor(NOW / 1000) + 3600;

    expect(readUsageLimit('claude', `Claude AI usage limit reached|${epoch}`, NOW)).toEqual({
      agent: 'claude',
      until: epoch * 1000,
    });
  });

  it('reads Claude Code "resets 3pm" as today at 15:00', () => {
    expect(
      readUsageLimit('claude', "You've hit your limit · resets 3pm (Europe/Paris)", NOW),
    ).toEqual({ agent: 'claude', until: at(15, 0) });
  });

  it('reads a reset hour already past today as tomorrow', () => {
    expect(readUsageLimit('claude', "You've hit your limit · resets 9:30am", NOW)?.until).toBe(
      at(9, 30, 1),
    );
  });

  it('reads Codex "try again at 11:41 AM" as that time', () => {
    const message =
      'Codex reported an error: You’ve hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro), visit https://chatgpt.com/settings/usage to purchase more credits or try again at 11:41 AM.';

    expect(readUsageLimit('codex', message, NOW)).toEqual({ agent: 'codex', until: at(11, 41) });
  });

  it('reads a Codex reset with a date', () => {
    expect(
      readUsageLimit(
        'codex',
        'You’ve hit your usage limit. Try again at Nov 25th, 2026 2:05 PM.',
        NOW,
      )?.until,
    ).toBe(new Date(2026, 10, 25, 14, 5).getTime());
  });

  it('waits at least a moment when the minute said is the current one', () => {
    expect(
      readUsageLimit('codex', 'You’ve hit your usage limit. Try again at 11:40 AM.', NOW)?.until,
    ).toBe(NOW + MIN_LIMIT_WAIT_MS);
  });

  it('reads Gemini CLI "Suggested retry after 900s."', () => {
    const message =
      'Gemini CLI reported an error: Resource has been exhausted (e.g. check quota). Suggested retry after 900s.';

    expect(readUsageLimit('gemini', message, NOW)).toEqual({
      agent: 'gemini',
      until: NOW + 900_000,
    });
  });

  it('waits a default time for a 429 that names no reset', () => {
    expect(
      readUsageLimit(
        'claude',
        "Claude Code reported an error: API Error: Request rejected (429) · This request would exceed your account's rate limit. Please try again later. (HTTP 429)",
        NOW,
      )?.until,
    ).toBe(NOW + DEFAULT_LIMIT_WAIT_MS);
    expect(
      readUsageLimit(
        'codex',
        'Codex reported an error: exceeded retry limit, last status: 429 Too Many Requests (HTTP 429)',
        NOW,
      )?.until,
    ).toBe(NOW + DEFAULT_LIMIT_WAIT_MS);
  });

  it('does not wait for a daily quota that says no reset time', () => {
    expect(
      readUsageLimit(
        'gemini',
        'Gemini CLI reported an error: You have exhausted your daily quota on this model.',
        NOW,
      ),
    ).toBeNull();
  });

  it('is null for errors that are not limits', () => {
    expect(
      readUsageLimit('claude', 'Claude Code reported an error: prompt is too long (HTTP 400)', NOW),
    ).toBeNull();
  });
});

describe('waitingText', () => {
  it('names the agent and the time of day', () => {
    expect(waitingText({ agent: 'claude', until: at(15, 5) }, NOW)).toBe(
      'waiting for claude until 15:05',
    );
  });
});
