import type { Executor } from './executor.js';
import { compareOrdinal } from '../../domain/ordinal.js';

/** Tokens spent with one model (over one project's sessions, or all). */
export interface UsageTotal {
  readonly model: string;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly invocationCount: number;
  readonly sessionCount: number;
}

/** Tokens one session spent with one model. */
export interface SessionModelUsage {
  readonly sessionId: string;
  readonly model: string;
  readonly inputTokens: number;
  readonly outputTokens: number;
}

/** A session's own limits (null: the project's budget settings apply). */
export interface SessionBudgetLimits {
  readonly tokens: number | null;
  readonly usd: number | null;
}

export interface UsageRepo {
  /** Counts one invocation of `model` for the session. */
  add(sessionId: string, model: string, input: number, output: number): Promise<void>;
  /** Totals by model, most tokens first. Usage of deleted sessions is gone with them. */
  totals(projectId?: number): Promise<UsageTotal[]>;
  /** Every session-and-model row of the project's sessions (what budgets are counted from). */
  byProject(projectId: number): Promise<SessionModelUsage[]>;
  /** The session's own budget limits, or null when it has none. */
  sessionLimits(sessionId: string): Promise<SessionBudgetLimits | null>;
  /** Sets the session's own limits (fields left out keep their value). */
  setSessionLimits(sessionId: string, limits: Partial<SessionBudgetLimits>): Promise<void>;
}

export function createUsageRepo(db: Executor): UsageRepo {
  return {
    async add(sessionId, model, input, output) {
      await db
        .insertInto('session_usage')
        .values({
          session_id: sessionId,
          model,
          input_tokens: input,
          output_tokens: output,
          invocation_count: 1,
        })
        .onConflict((oc) =>
          oc.columns(['session_id', 'model']).doUpdateSet((eb) => ({
            input_tokens: eb('session_usage.input_tokens', '+', input),
            output_tokens: eb('session_usage.output_tokens', '+', output),
            invocation_count: eb('session_usage.invocation_count', '+', 1),
          })),
        )
        .execute();
    },

    async byProject(projectId) {
      const rows = await db
        .selectFrom('session_usage as u')
        .innerJoin('session as s', 's.id', 'u.session_id')
        .select(['u.session_id', 'u.model', 'u.input_tokens', 'u.output_tokens'])
        .where('s.project_id', '=', projectId)
        .execute();
      return rows.map((row) => ({
        sessionId: row.session_id,
        model: row.model,
        inputTokens: Number(row.input_tokens),
        outputTokens: Number(row.output_tokens),
      }));
    },

    async sessionLimits(sessionId) {
      const row = await db
        .selectFrom('session_budget')
        .select(['token_limit', 'usd_limit'])
        .where('session_id', '=', sessionId)
        .executeTakeFirst();
      return row ? { tokens: row.token_limit, usd: row.usd_limit } : null;
    },

    async setSessionLimits(sessionId, limits) {
      const values = {
        ...(limits.tokens !== undefined ? { token_limit: limits.tokens } : {}),
        ...(limits.usd !== undefined ? { usd_limit: limits.usd } : {}),
      };
      await db
        .insertInto('session_budget')
        .values({ session_id: sessionId, token_limit: null, usd_limit: null, ...values })
        .onConflict((oc) =>
          Object.keys(values).length > 0
            ? oc.column('session_id').doUpdateSet(values)
            : oc.doNothing(),
        )
        .execute();
    },

    async totals(projectId) {
      let query = db
        .selectFrom('session_usage as u')
        .innerJoin('session as s', 's.id', 'u.session_id')
        .select((eb) => [
          'u.model',
          eb.fn.sum<number>('u.input_tokens').as('input_tokens'),
          eb.fn.sum<number>('u.output_tokens').as('output_tokens'),
          eb.fn.sum<number>('u.invocation_count').as('invocation_count'),
          eb.fn.count<number>('u.session_id').distinct().as('session_count'),
        ])
        .groupBy('u.model');
      if (projectId !== undefined) query = query.where('s.project_id', '=', projectId);
      const rows = await query.execute();
      return rows
        .map((row) => ({
          model: row.model,
          inputTokens: Number(row.input_tokens),
          outputTokens: Number(row.output_tokens),
          invocationCount: Number(row.invocation_count),
          sessionCount: Number(row.session_count),
        }))
        .sort(
          (a, b) =>
            b.inputTokens + b.outputTokens - (a.inputTokens + a.outputTokens) ||
            compareOrdinal(a.model, b.model),
        );
    },
  };
}
