import type { Executor } from './executor.js';

/** Tokens spent with one model (over one project's sessions, or all). */
export interface UsageTotal {
  readonly model: string;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly invocationCount: number;
  readonly sessionCount: number;
}

export interface UsageRepo {
  /** Counts one invocation of `model` for the session. */
  add(sessionId: string, model: string, input: number, output: number): Promise<void>;
  /** Totals by model, most tokens first. Usage of deleted sessions is gone with them. */
  totals(projectId?: number): Promise<UsageTotal[]>;
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
            a.model.localeCompare(b.model),
        );
    },
  };
}
