import * as z from 'zod/mini';
import { formatTokens } from './session.js';
import { BUDGET_KEYS, type SettingValues } from './settings.js';
import { groveShareText, usageSplit, type UsageRole } from './usage-roles.js';

/**
 * Budgets: a limit per session and per project, in tokens and, where the
 * model's price is known, in US dollars. At a limit the worker runs no new
 * turn of the session until the person raises the limit or stops.
 */

/** US dollars per million tokens. */
export interface ModelPrice {
  readonly input: number;
  readonly output: number;
}

export type PriceTable = Readonly<Record<string, ModelPrice>>;

/**
 * Example prices, written to GROVE_HOME/prices.json the first time it is
 * needed, for the person to edit: they are not a quote of what any provider
 * charges (subscriptions charge nothing per token).
 */
export const DEFAULT_PRICES: PriceTable = {
  opus: { input: 15, output: 75 },
  sonnet: { input: 3, output: 15 },
  haiku: { input: 1, output: 5 },
  'gpt-6.1-sol': { input: 2.5, output: 15 },
  'gpt-6.1-terra': { input: 1.25, output: 10 },
  'gpt-6-luna': { input: 0.25, output: 2 },
  'gpt-5.5': { input: 1.25, output: 10 },
  'gemini-3.8-flash': { input: 0.3, output: 2.5 },
  'gemini-3.5-flash-lite': { input: 0.1, output: 0.4 },
};

const Price = z.object({
  input: z.number().check(z.nonnegative()),
  output: z.number().check(z.nonnegative()),
});
/** The prices file: `{ "models": { "<model>": { "input": 3, "output": 15 } } }` (other keys are notes). */
export const PriceFile = z.looseObject({ models: z.record(z.string(), Price) });

/** The file Grove writes when there is none: the example prices and a note saying so. */
export function defaultPriceFile(): string {
  return `${JSON.stringify(
    {
      note: 'Example prices in US dollars per million tokens, for the money budgets. They are placeholders, not what your provider charges: edit them (a model missing here has no known price, so only its tokens count).',
      models: DEFAULT_PRICES,
    },
    null,
    2,
  )}\n`;
}

/** Tokens spent with one model (in one role: the agent's turns or one of Grove's own calls). */
export interface ModelUsage {
  readonly model: string;
  readonly role?: UsageRole;
  readonly inputTokens: number;
  readonly outputTokens: number;
}

/** What a session or a project has spent. */
export interface Spent {
  readonly tokens: number;
  /** Dollars for the models with a price. */
  readonly usd: number;
  /** Models used without a known price (their tokens cost nothing here). */
  readonly unpriced: readonly string[];
  /** The part of `tokens` Grove's own calls took (title, commit, review, …), and for what. */
  readonly groveTokens?: number;
  readonly groveRoles?: readonly UsageRole[];
}

export const NOTHING_SPENT: Spent = { tokens: 0, usd: 0, unpriced: [] };

export function spentOn(rows: readonly ModelUsage[], prices: PriceTable): Spent {
  let tokens = 0;
  let usd = 0;
  const unpriced = new Set<string>();
  for (const row of rows) {
    tokens += row.inputTokens + row.outputTokens;
    const price = prices[row.model];
    if (price) usd += (row.inputTokens * price.input + row.outputTokens * price.output) / 1_000_000;
    else if (row.inputTokens + row.outputTokens > 0) unpriced.add(row.model);
  }
  const split = usageSplit(rows);
  return {
    tokens,
    usd,
    unpriced: [...unpriced].sort(),
    ...(split.groveTokens > 0
      ? { groveTokens: split.groveTokens, groveRoles: split.groveRoles }
      : {}),
  };
}

export type BudgetScope = 'session' | 'project';
export type BudgetMeasure = 'tokens' | 'usd';

/** Limits in force (null: none). */
export interface BudgetLimits {
  readonly sessionTokens: number | null;
  readonly sessionUsd: number | null;
  readonly projectTokens: number | null;
  readonly projectUsd: number | null;
}

export const NO_LIMITS: BudgetLimits = {
  sessionTokens: null,
  sessionUsd: null,
  projectTokens: null,
  projectUsd: null,
};

/** A session's own limits, set when the person raised them (null: the project's setting applies). */
export interface SessionLimits {
  readonly tokens: number | null;
  readonly usd: number | null;
}

/** The limits in force for a session: its own where raised, else the project's settings. */
export function budgetLimits(values: SettingValues, own: SessionLimits | null): BudgetLimits {
  const tokens = (key: string): number | null => parseTokenLimit(values[key] ?? '') ?? null;
  const usd = (key: string): number | null => parseUsdLimit(values[key] ?? '') ?? null;
  return {
    sessionTokens: own?.tokens ?? tokens(BUDGET_KEYS.sessionTokens),
    sessionUsd: own?.usd ?? usd(BUDGET_KEYS.sessionUsd),
    projectTokens: tokens(BUDGET_KEYS.projectTokens),
    projectUsd: usd(BUDGET_KEYS.projectUsd),
  };
}

/** A limit that was reached. */
export interface BudgetStop {
  readonly scope: BudgetScope;
  readonly measure: BudgetMeasure;
  readonly used: number;
  readonly limit: number;
}

/** The first limit reached (session before project, tokens before dollars), or null. */
export function budgetStop(
  session: Spent,
  project: Spent,
  limits: BudgetLimits,
): BudgetStop | null {
  const checks: [BudgetScope, BudgetMeasure, number, number | null][] = [
    ['session', 'tokens', session.tokens, limits.sessionTokens],
    ['session', 'usd', session.usd, limits.sessionUsd],
    ['project', 'tokens', project.tokens, limits.projectTokens],
    ['project', 'usd', project.usd, limits.projectUsd],
  ];
  for (const [scope, measure, used, limit] of checks) {
    if (limit !== null && used >= limit) return { scope, measure, used, limit };
  }
  return null;
}

/** The limit a raise sets: another full budget on top of what is spent. */
export function raisedLimit(stop: BudgetStop): number {
  const next = stop.used + stop.limit;
  return stop.measure === 'usd' ? Math.ceil(next * 100) / 100 : Math.ceil(next);
}

/** `2M`, `500k`, `1500000`, `1.5m` → tokens; '' → null (no limit); undefined when it is not a number. */
export function parseTokenLimit(text: string): number | null | undefined {
  const trimmed = text.trim().replace(/[_,]/g, '');
  if (trimmed === '' || trimmed === 'none' || trimmed === 'off') return null;
  const match = /^(\d+(?:\.\d+)?)\s*([kKmM])?$/.exec(trimmed);
  if (!match) return undefined;
  const unit = match[2]?.toLowerCase();
  return Math.round(Number(match[1]) * (unit === 'k' ? 1_000 : unit === 'm' ? 1_000_000 : 1));
}

/** `5`, `$5`, `12.50` → dollars; '' → null (no limit); undefined when it is not a number. */
export function parseUsdLimit(text: string): number | null | undefined {
  const trimmed = text.trim();
  if (trimmed === '' || trimmed === 'none' || trimmed === 'off') return null;
  const match = /^\$?\s*(\d+(?:\.\d+)?)$/.exec(trimmed);
  return match ? Number(match[1]) : undefined;
}

export function formatUsd(value: number): string {
  return `$${value.toFixed(2)}`;
}

export function formatMeasure(measure: BudgetMeasure, value: number): string {
  return measure === 'usd' ? formatUsd(value) : `${formatTokens(value)} tokens`;
}

/** `1.2M of 2.0M tokens (800.0k left)`, `$1.20 of $5.00 ($3.80 left)`, `1.2M tokens` without a limit. */
export function budgetText(measure: BudgetMeasure, used: number, limit: number | null): string {
  if (limit === null) return formatMeasure(measure, used);
  const left = Math.max(0, limit - used);
  const amount = (v: number): string => (measure === 'usd' ? formatUsd(v) : formatTokens(v));
  return `${amount(used)} of ${formatMeasure(measure, limit)} (${left > 0 ? `${amount(left)} left` : 'limit reached'})`;
}

/** Usage against limits for display: a session's or a project's. */
export function usageSummary(spent: Spent, tokens: number | null, usd: number | null): string {
  const parts = [budgetText('tokens', spent.tokens, tokens)];
  if (usd !== null || spent.usd > 0) parts.push(budgetText('usd', spent.usd, usd));
  return parts.join(' · ');
}

/**
 * Usage for a header: `budget 1.2M of 2.0M tokens (800.0k left)` against a
 * limit, `spent 10.8k tokens` with none (a bare figure after "budget" reads like a limit).
 */
export function spendingText(spent: Spent, tokens: number | null, usd: number | null): string {
  const limited = tokens !== null || usd !== null;
  const grove = groveShareText({
    groveTokens: spent.groveTokens ?? 0,
    groveRoles: spent.groveRoles ?? [],
  });
  return `${limited ? 'budget' : 'spent'} ${usageSummary(spent, tokens, usd)}${grove ? ` ${grove}` : ''}`;
}

/**
 * A session header's spending, after its in/out figure: shown against a
 * limit, when it costs money, or when Grove's own calls took part of it
 * (`  spent 12.4k tokens (2.1k by Grove: title, commit, review)`); else ''.
 */
export function headerSpending(spent: Spent, tokens: number | null, usd: number | null): string {
  const shown = tokens !== null || usd !== null || spent.usd > 0 || (spent.groveTokens ?? 0) > 0;
  return shown ? `  ${spendingText(spent, tokens, usd)}` : '';
}

/** What the person is told when a limit holds a session's prompts. */
export function stopText(stop: BudgetStop): string {
  const what = stop.scope === 'session' ? "This session's" : "The project's";
  const unit = stop.measure === 'usd' ? 'spending limit' : 'token budget';
  return `${what} ${unit} is reached: ${formatMeasure(stop.measure, stop.used)} used of ${formatMeasure(stop.measure, stop.limit)}.`;
}
