import { describe, expect, it } from 'vitest';
import {
  groveShareText,
  splitTokens,
  usageRole,
  usageSplit,
} from '../../src/domain/usage-roles.js';

describe('usage by role', () => {
  it("splits a session's usage into its total and Grove's own part, roles in a fixed order", () => {
    const split = usageSplit([
      { role: 'review', inputTokens: 900, outputTokens: 100 },
      { role: 'turn', inputTokens: 9_000, outputTokens: 1_300 },
      { role: 'title', inputTokens: 500, outputTokens: 100 },
      { role: 'commit', inputTokens: 400, outputTokens: 100 },
      { role: 'judge', inputTokens: 0, outputTokens: 0 },
    ]);

    expect(split).toEqual({
      tokens: 12_400,
      groveTokens: 2_100,
      groveRoles: ['title', 'commit', 'review'],
    });
    expect(groveShareText(split)).toBe('(2.1k by Grove: title, commit, review)');
  });

  it("says nothing of Grove's part when it spent nothing", () => {
    expect(groveShareText(usageSplit([{ role: 'turn', inputTokens: 5, outputTokens: 5 }]))).toBe(
      '',
    );
  });

  it("splits the judge's tokens over a group in parts that add up to the whole", () => {
    expect(splitTokens({ inputTokens: 100, outputTokens: 41 }, 3)).toEqual([
      { inputTokens: 34, outputTokens: 14 },
      { inputTokens: 33, outputTokens: 14 },
      { inputTokens: 33, outputTokens: 13 },
    ]);
  });

  it('reads an unknown stored role as one of Grove’s own, never as a turn', () => {
    expect(usageRole('commit')).toBe('commit');
    expect(usageRole('sync')).toBe('sync');
    expect(usageRole('from-a-newer-grove')).toBe('repair');
  });
});
