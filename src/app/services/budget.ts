import { join } from 'node:path';
import {
  budgetLimits,
  budgetStop,
  formatMeasure,
  raisedLimit,
  spentOn,
  stopText,
  NOTHING_SPENT,
  type BudgetLimits,
  type BudgetStop,
  type PriceTable,
  type Spent,
} from '../../domain/budget.js';
import { queuedPromptText } from '../../domain/inbox.js';
import type { Operation } from '../../domain/operation.js';
import { BUDGET_KEYS } from '../../domain/settings.js';
import { loadPrices } from '../../infra/prices.js';
import type { App } from '../app.js';
import type { Runtime, Store } from '../ports.js';
import type { BudgetView } from '../state.js';
import { loadSettings } from './projects.js';

export interface BudgetDeps {
  readonly app: App;
  readonly store: Store;
  readonly runtime: Runtime;
}

/** What a session and its project have spent, and the limits in force for the session. */
export interface BudgetStatus {
  readonly session: Spent;
  readonly project: Spent;
  readonly limits: BudgetLimits;
  readonly stop: BudgetStop | null;
}

/** The file the money budgets are priced with. */
export function pricesPath(runtime: Runtime): string {
  return join(runtime.paths.home, 'prices.json');
}

/**
 * The session's spending against its limits (undefined when the session is
 * gone). Without any limit set, the prices file is not read (dollars are
 * then not counted) unless `alwaysPrice` asks for them.
 */
export async function budgetStatus(
  deps: { readonly store: Store; readonly runtime: Runtime },
  sessionId: string,
  options: { readonly prices?: () => Promise<PriceTable>; readonly alwaysPrice?: boolean } = {},
): Promise<BudgetStatus | undefined> {
  const { store, runtime } = deps;
  const session = await store.sessions.get(sessionId);
  if (!session) return undefined;
  const [settings, own] = await Promise.all([
    loadSettings(store, session.projectId),
    store.usage.sessionLimits(sessionId),
  ]);
  const limits = budgetLimits(settings, own);
  const noLimit =
    limits.sessionTokens === null &&
    limits.sessionUsd === null &&
    limits.projectTokens === null &&
    limits.projectUsd === null;
  const rows = await store.usage.byProject(session.projectId);
  const table =
    noLimit && !options.alwaysPrice
      ? {}
      : await (options.prices ?? (async () => (await loadPrices(pricesPath(runtime))).prices))();
  const spent = spentOn(
    rows.filter((r) => r.sessionId === sessionId),
    table,
  );
  const project = spentOn(rows, table);
  return {
    session: spent,
    project,
    limits,
    stop: noLimit ? null : budgetStop(spent, project, limits),
  };
}

/**
 * Budgets per session and per project. Before the worker starts a queued
 * turn it asks `hold`: at a limit the turn stays queued (held), the person is
 * asked to raise the limit, and nothing runs until they do. The turn under
 * way always finishes: a limit is checked between turns, never inside one.
 */
export class BudgetService {
  private pricesError: string | null = null;

  constructor(private readonly deps: BudgetDeps) {}

  async prices(): Promise<PriceTable> {
    const loaded = await loadPrices(pricesPath(this.deps.runtime));
    if (loaded.error && loaded.error !== this.pricesError)
      this.deps.runtime.logger.log('warn', loaded.error);
    this.pricesError = loaded.error;
    return loaded.prices;
  }

  /** The session's spending against its limits (undefined when the session is gone). */
  status(sessionId: string): Promise<BudgetStatus | undefined> {
    return budgetStatus(this.deps, sessionId, { prices: () => this.prices() });
  }

  /**
   * The worker's gate before a queued turn: why it must wait (a limit is
   * reached), or null. A check that fails holds too: a budget is never
   * passed because it could not be read.
   */
  async hold(sessionId: string, next: Operation): Promise<string | null> {
    let stop: BudgetStop | null;
    try {
      stop = (await this.status(sessionId))?.stop ?? null;
    } catch (error) {
      this.deps.runtime.logger.log('error', `budget check of ${sessionId} failed`, error);
      return `The budget could not be checked: ${error instanceof Error ? error.message : String(error)}`;
    }
    const { app } = this.deps;
    if (!stop) {
      if (app.state.budget?.held[sessionId])
        app.emit({ type: 'budgetHeld', sessionId, stop: null });
      return null;
    }
    const already = app.state.budget?.held[sessionId];
    app.emit({ type: 'budgetHeld', sessionId, stop });
    if (
      !already ||
      already.limit !== stop.limit ||
      already.measure !== stop.measure ||
      already.scope !== stop.scope
    ) {
      const prompt = queuedPromptText(next);
      await this.note(
        sessionId,
        `[Budget] ${stopText(stop)} The queued prompt is held, not sent${prompt ? `: ${prompt.split('\n')[0]?.slice(0, 120) ?? ''}` : ''}. Raise the limit to go on.`,
      );
    }
    // Asked again whenever the held queue is looked at (a new prompt, a changed setting); the
    // reducer decides whether to ask (the TUI; a headless command ignores it) or, when another
    // question is on screen, to say where to act instead.
    app.emit({ type: 'budgetReached', sessionId, stop });
    return stopText(stop);
  }

  /** Raises a limit (the session's own, or the project's setting) to `limit`. */
  async raise(
    sessionId: string,
    scope: BudgetStop['scope'],
    measure: BudgetStop['measure'],
    limit: number,
  ): Promise<void> {
    const { store } = this.deps;
    const session = await store.sessions.get(sessionId);
    if (!session) return;
    if (scope === 'session') {
      await store.usage.setSessionLimits(
        sessionId,
        measure === 'tokens' ? { tokens: limit } : { usd: limit },
      );
    } else {
      await store.settings.setProject(
        session.projectId,
        measure === 'tokens' ? BUDGET_KEYS.projectTokens : BUDGET_KEYS.projectUsd,
        String(limit),
      );
      if (this.deps.app.state.activeProjectId === session.projectId)
        this.deps.app.emit({
          type: 'settingsLoaded',
          settings: await loadSettings(store, session.projectId),
        });
    }
    await this.note(
      sessionId,
      `[Budget] The ${scope === 'session' ? "session's" : "project's"} limit is now ${formatMeasure(measure, limit)}.`,
    );
    this.deps.app.emit({ type: 'budgetHeld', sessionId, stop: null });
  }

  /**
   * The budget popup's yes, for a command (`grove approve budget:ID`): the
   * limit that holds the session's prompts is raised by another full budget
   * on top of what is spent (raisedLimit, the popup's figure), the session's
   * own or the project's setting. Null when no limit holds the session. The
   * caller wakes the worker that runs the held prompt.
   */
  async raiseHeld(sessionId: string): Promise<{ stop: BudgetStop; limit: number } | null> {
    const stop = (await this.status(sessionId))?.stop ?? null;
    if (!stop) return null;
    const limit = raisedLimit(stop);
    await this.raise(sessionId, stop.scope, stop.measure, limit);
    return { stop, limit };
  }

  /** Spending of the project and each of its sessions, for the header and the session view. */
  async refresh(projectId: number): Promise<void> {
    const { store, app } = this.deps;
    const [settings, rows, live] = await Promise.all([
      loadSettings(store, projectId),
      store.usage.byProject(projectId),
      store.sessions.listLive(projectId),
    ]);
    // The live sessions (their limits hold prompts back) and every session that spent
    // something: the archive's rows are not read for this.
    const sessions = new Set(live.map((s) => s.id));
    for (const row of rows) if (row.sessionId !== null) sessions.add(row.sessionId);
    const prices = await this.prices();
    const project = spentOn(rows, prices);
    const projectLimits = budgetLimits(settings, null);
    const perSession: Record<string, BudgetView['sessions'][string]> = {};
    for (const sessionId of sessions) {
      const own = await store.usage.sessionLimits(sessionId);
      const limits = own ? budgetLimits(settings, own) : projectLimits;
      const spent = spentOn(
        rows.filter((r) => r.sessionId === sessionId),
        prices,
      );
      if (spent.tokens === 0 && limits.sessionTokens === null && limits.sessionUsd === null)
        continue;
      perSession[sessionId] = { spent, tokens: limits.sessionTokens, usd: limits.sessionUsd };
    }
    app.emit({
      type: 'budgetLoaded',
      projectId,
      project: {
        spent: project ?? NOTHING_SPENT,
        tokens: projectLimits.projectTokens,
        usd: projectLimits.projectUsd,
      },
      sessions: perSession,
    });
  }

  private async note(sessionId: string, text: string): Promise<void> {
    const { store, app, runtime } = this.deps;
    const now = runtime.clock.now();
    const position = await store.transcript.append(sessionId, 'notice', text, now);
    app.emit({
      type: 'transcriptAppended',
      sessionId,
      entries: [{ position, kind: 'notice', content: text, createdAt: now }],
    });
  }
}
