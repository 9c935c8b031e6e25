import type { Executor } from './executor.js';
import { compareOrdinal } from '../../domain/ordinal.js';
import {
  usageRole,
  type ProjectUsageRole,
  type RoleUsage,
  type SessionUsageRole,
} from '../../domain/usage-roles.js';

/** Tokens spent with one model (over one project's sessions, or all). */
export interface UsageTotal {
  readonly model: string;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly invocationCount: number;
  readonly sessionCount: number;
}

/** Tokens one session spent with one model in one role (or the project's own, sessionId null). */
export interface SessionModelUsage extends RoleUsage {
  readonly sessionId: string | null;
}

/** A session's own limits (null: the project's budget settings apply). */
export interface SessionBudgetLimits {
  readonly tokens: number | null;
  readonly usd: number | null;
}

export interface UsageRepo {
  /** Counts one invocation of `model` in `role` for the session. */
  add(
    sessionId: string,
    model: string,
    role: SessionUsageRole,
    input: number,
    output: number,
  ): Promise<void>;
  /** Counts one invocation of `model` for the project itself (no session: sync). */
  addProject(
    projectId: number,
    model: string,
    role: ProjectUsageRole,
    input: number,
    output: number,
  ): Promise<void>;
  /** Totals by model, most tokens first (the project's own calls included). Usage of deleted sessions is gone with them. */
  totals(projectId?: number): Promise<UsageTotal[]>;
  /**
   * Every session-model-role row of the project's sessions, then the
   * project's own rows (sessionId null): what budgets are counted from.
   */
  byProject(projectId: number): Promise<SessionModelUsage[]>;
  /** The session's rows, by role then model. */
  bySession(sessionId: string): Promise<RoleUsage[]>;
  /** The session's own budget limits, or null when it has none. */
  sessionLimits(sessionId: string): Promise<SessionBudgetLimits | null>;
  /** Sets the session's own limits (fields left out keep their value). */
  setSessionLimits(sessionId: string, limits: Partial<SessionBudgetLimits>): Promise<void>;
}

export function createUsageRepo(db: Executor): UsageRepo {
  return {
    async add(sessionId, model, role, input, output) {
      await db
        .insertInto('session_usage')
        .values({
          session_id: sessionId,
          model,
          role,
          input_tokens: input,
          output_tokens: output,
          invocation_count: 1,
        })
        .onConflict((oc) =>
          oc.columns(['session_id', 'model', 'role']).doUpdateSet((eb) => ({
            input_tokens: eb('session_usage.input_tokens', '+', input),
            output_tokens: eb('session_usage.output_tokens', '+', output),
            invocation_count: eb('session_usage.invocation_count', '+', 1),
          })),
        )
        .execute();
    },

    async addProject(projectId, model, role, input, output) {
      await db
        .insertInto('project_usage')
        .values({
          project_id: projectId,
          model,
          role,
          input_tokens: input,
          output_tokens: output,
          invocation_count: 1,
        })
        .onConflict((oc) =>
          oc.columns(['project_id', 'model', 'role']).doUpdateSet((eb) => ({
            input_tokens: eb('project_usage.input_tokens', '+', input),
            output_tokens: eb('project_usage.output_tokens', '+', output),
            invocation_count: eb('project_usage.invocation_count', '+', 1),
          })),
        )
        .execute();
    },

    async byProject(projectId) {
      const [rows, own] = await Promise.all([
        db
          .selectFrom('session_usage as u')
          .innerJoin('session as s', 's.id', 'u.session_id')
          .select([
            'u.session_id',
            'u.model',
            'u.role',
            'u.input_tokens',
            'u.output_tokens',
            'u.invocation_count',
          ])
          .where('s.project_id', '=', projectId)
          .execute(),
        db
          .selectFrom('project_usage')
          .select(['model', 'role', 'input_tokens', 'output_tokens', 'invocation_count'])
          .where('project_id', '=', projectId)
          .execute(),
      ]);
      return [
        ...rows.map((row) => ({ sessionId: row.session_id, ...roleUsage(row) })),
        ...own.map((row) => ({ sessionId: null, ...roleUsage(row) })),
      ];
    },

    async bySession(sessionId) {
      const rows = await db
        .selectFrom('session_usage')
        .select(['model', 'role', 'input_tokens', 'output_tokens', 'invocation_count'])
        .where('session_id', '=', sessionId)
        .execute();
      return rows
        .map(roleUsage)
        .sort((a, b) => roleOrder(a) - roleOrder(b) || compareOrdinal(a.model, b.model));
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
      let own = db
        .selectFrom('project_usage')
        .select((eb) => [
          'model',
          eb.fn.sum<number>('input_tokens').as('input_tokens'),
          eb.fn.sum<number>('output_tokens').as('output_tokens'),
          eb.fn.sum<number>('invocation_count').as('invocation_count'),
        ])
        .groupBy('model');
      if (projectId !== undefined) own = own.where('project_id', '=', projectId);
      const [rows, ownRows] = await Promise.all([query.execute(), own.execute()]);
      const byModel = new Map<string, UsageTotal>();
      for (const row of rows)
        byModel.set(row.model, {
          model: row.model,
          inputTokens: Number(row.input_tokens),
          outputTokens: Number(row.output_tokens),
          invocationCount: Number(row.invocation_count),
          sessionCount: Number(row.session_count),
        });
      // The project's own calls (sync) add to the model's total; they belong to no session.
      for (const row of ownRows) {
        const was = byModel.get(row.model);
        byModel.set(row.model, {
          model: row.model,
          inputTokens: (was?.inputTokens ?? 0) + Number(row.input_tokens),
          outputTokens: (was?.outputTokens ?? 0) + Number(row.output_tokens),
          invocationCount: (was?.invocationCount ?? 0) + Number(row.invocation_count),
          sessionCount: was?.sessionCount ?? 0,
        });
      }
      return [...byModel.values()].sort(
        (a, b) =>
          b.inputTokens + b.outputTokens - (a.inputTokens + a.outputTokens) ||
          compareOrdinal(a.model, b.model),
      );
    },
  };
}

function roleUsage(row: {
  model: string;
  role: string;
  input_tokens: number;
  output_tokens: number;
  invocation_count: number;
}): RoleUsage {
  return {
    model: row.model,
    role: usageRole(row.role),
    inputTokens: Number(row.input_tokens),
    outputTokens: Number(row.output_tokens),
    requests: Number(row.invocation_count),
  };
}

const ROLE_ORDER = ['turn', 'title', 'commit', 'review', 'rebase', 'judge', 'repair', 'sync'];

function roleOrder(row: RoleUsage): number {
  return ROLE_ORDER.indexOf(row.role);
}
