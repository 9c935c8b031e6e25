import { describe, expect, it } from 'vitest';
import {
  NO_LIMITS,
  budgetLimits,
  budgetStop,
  budgetText,
  parseTokenLimit,
  parseUsdLimit,
  raisedLimit,
  spentOn,
  stopText,
} from '../../src/domain/budget.js';
import { BUDGET_KEYS, SETTING_ROWS } from '../../src/domain/settings.js';

const PRICES = { sonnet: { input: 3, output: 15 } };

describe('spentOn', () => {
  it('adds up tokens of every model and dollars of the priced ones', () => {
    const spent = spentOn(
      [
        { model: 'sonnet', inputTokens: 1_000_000, outputTokens: 100_000 },
        { model: 'mystery', inputTokens: 10, outputTokens: 5 },
      ],
      PRICES,
    );

    expect(spent).toEqual({ tokens: 1_100_015, usd: 4.5, unpriced: ['mystery'] });
  });
});

describe('budgetStop', () => {
  const spent = (tokens: number, usd = 0) => ({ tokens, usd, unpriced: [] });

  it.each([
    ['no limits', spent(5), spent(5), NO_LIMITS, null],
    ['under the session limit', spent(99), spent(99), { ...NO_LIMITS, sessionTokens: 100 }, null],
    [
      'at the session limit',
      spent(100),
      spent(100),
      { ...NO_LIMITS, sessionTokens: 100 },
      { scope: 'session', measure: 'tokens', used: 100, limit: 100 },
    ],
    [
      'over the project dollar limit',
      spent(1, 0.5),
      spent(1, 2.5),
      { ...NO_LIMITS, projectUsd: 2 },
      { scope: 'project', measure: 'usd', used: 2.5, limit: 2 },
    ],
    [
      'the session limit before the project one',
      spent(10),
      spent(50),
      { ...NO_LIMITS, sessionTokens: 5, projectTokens: 5 },
      { scope: 'session', measure: 'tokens', used: 10, limit: 5 },
    ],
  ] as const)('%s', (_name, session, project, limits, expected) => {
    expect(budgetStop(session, project, limits)).toEqual(expected);
  });
});

describe('limits from settings', () => {
  it.each([
    ['2M', 2_000_000],
    ['500k', 500_000],
    ['1.5m', 1_500_000],
    ['1,000', 1000],
    ['', null],
    ['lots', undefined],
  ])('reads the token limit %j as %j', (text, value) => {
    expect(parseTokenLimit(text)).toBe(value);
  });

  it.each([
    ['5', 5],
    ['$12.50', 12.5],
    ['', null],
    ['five', undefined],
  ])('reads the dollar limit %j as %j', (text, value) => {
    expect(parseUsdLimit(text)).toBe(value);
  });

  it("takes a session's own raised limit over the project's setting", () => {
    const values = { [BUDGET_KEYS.sessionTokens]: '1k', [BUDGET_KEYS.projectUsd]: '20' };

    expect(budgetLimits(values, null)).toEqual({
      sessionTokens: 1000,
      sessionUsd: null,
      projectTokens: null,
      projectUsd: 20,
    });
    expect(budgetLimits(values, { tokens: 5000, usd: null }).sessionTokens).toBe(5000);
  });

  it.each([
    [BUDGET_KEYS.sessionTokens, '2M', true],
    [BUDGET_KEYS.sessionTokens, '', true],
    [BUDGET_KEYS.sessionTokens, 'two million', false],
    [BUDGET_KEYS.projectUsd, '$20', true],
    [BUDGET_KEYS.projectUsd, '20 euros', false],
  ])('the setting %s accepts %j: %s', (key, value, ok) => {
    const row = SETTING_ROWS.find((r) => r.key === key);
    expect(row?.validate?.(value) === null).toBe(ok);
  });
});

describe('budget words', () => {
  it('raises a limit by another full budget on top of what is spent', () => {
    expect(raisedLimit({ scope: 'session', measure: 'tokens', used: 1200, limit: 1000 })).toBe(
      2200,
    );
    expect(raisedLimit({ scope: 'project', measure: 'usd', used: 5.123, limit: 5 })).toBe(10.13);
  });

  it.each([
    ['tokens', 1200, 2000, '1.2k of 2.0k tokens (800 left)'],
    ['tokens', 2500, 2000, '2.5k of 2.0k tokens (limit reached)'],
    ['usd', 1.2, 5, '$1.20 of $5.00 ($3.80 left)'],
    ['tokens', 1200, null, '1.2k tokens'],
  ] as const)('shows %s %d against %j', (measure, used, limit, text) => {
    expect(budgetText(measure, used, limit)).toBe(text);
  });

  it('says which limit holds the prompts', () => {
    expect(stopText({ scope: 'project', measure: 'usd', used: 21, limit: 20 })).toBe(
      "The project's spending limit is reached: $21.00 used of $20.00.",
    );
  });
});
