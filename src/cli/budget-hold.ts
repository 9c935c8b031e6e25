// grove approve budget:ID / grove deny budget:ID: the prompt a budget limit holds in a
// session (the inbox's budget item). Approve is the budget popup's yes: the limit is raised
// by another full budget on top of what is spent and the held prompt runs, here, to its end
// (as grove reply runs a turn). Deny drops the held prompt: canceled, never sent; the session
// and the rest of its work stay.
import type { Infra } from '../compose.js';
import { budgetStatus } from '../app/services/budget.js';
import { formatMeasure, type BudgetStop } from '../domain/budget.js';
import { queuedPromptText } from '../domain/inbox.js';
import { shortId } from '../domain/session.js';
import { budgetDecisionJson, printJson } from './command-json.js';
import { EXIT, headlessContext, showProgress, type HeadlessIo } from './headless.js';
import {
  droppedLine,
  firstLine,
  isTurn,
  nothingWaits,
  waitingSession,
  type HeldKind,
} from './held-prompt.js';
import { endTurn, followTurn } from './turn-result.js';

const BUDGET: HeldKind = {
  inbox: 'budget',
  prefix: 'budget:',
  nothing: 'nothing is held at a budget limit',
  notThisKind: 'no limit holds its queued prompt',
  rest: 'held',
};

/** Whether ITEM names a budget hold (the inbox item's id, budget:<session id or prefix>). */
export function isBudgetRef(item: string): boolean {
  return item.startsWith(BUDGET.prefix);
}

function limitWords(stop: BudgetStop, limit: number): string {
  const whose = stop.scope === 'session' ? "the session's" : "the project's";
  const what = stop.measure === 'usd' ? 'spending limit' : 'token budget';
  return `${whose} ${what} to ${formatMeasure(stop.measure, limit)} (it held at ${formatMeasure(stop.measure, stop.limit)})`;
}

/** grove approve budget:ID (`approve`) or grove deny budget:ID; prints what was done. */
export async function answerBudgetHold(
  infra: Infra,
  io: HeadlessIo,
  item: string,
  approve: boolean,
  json: boolean,
): Promise<number> {
  const found = await waitingSession(infra, io, BUDGET, item);
  if (typeof found === 'number') return found;
  const session = found;
  const project = await infra.store.projects.get(session.projectId);
  const ctx = await headlessContext(infra, io, project?.path ?? null, showProgress(io, false));
  const short = shortId(session.id);
  if (!approve) {
    const stop = (await budgetStatus(infra, session.id))?.stop;
    const dropped = await ctx.intents.dropQueuedPrompt(session.id, 'budget');
    if (!dropped || !stop) return nothingWaits(io, BUDGET, session, 'no prompt is queued');
    const after = (await infra.store.sessions.get(session.id)) ?? session;
    if (json)
      printJson(
        io,
        budgetDecisionJson(after, 'dropped', stop, stop.limit, queuedPromptText(dropped)),
      );
    else io.stdout.write(await droppedLine(infra, BUDGET, after, 'the held prompt', dropped));
    return EXIT.ok;
  }
  const held = (await infra.store.operations.listUnfinished(session.id)).find(isTurn);
  if (!held) return nothingWaits(io, BUDGET, session, 'no prompt is queued');
  const prompt = queuedPromptText(held);
  const since = await infra.store.transcript.count(session.id);
  const startedAt = infra.clock.now();
  const raised = await ctx.intents.raiseHeldBudget(session.id);
  if (!raised) return nothingWaits(io, BUDGET, session, BUDGET.notThisKind);
  if (!json)
    io.stdout.write(
      `budget:${short}: raised ${limitWords(raised.stop, raised.limit)}; the held prompt runs: ${firstLine(prompt)}\n`,
    );
  followTurn(ctx, session.id, { output: 'text', timeoutMs: null });
  const turn = await endTurn(
    ctx,
    session,
    { operationId: held.id, prompt, since, startedAt },
    { output: 'text', timeoutMs: null, quiet: json },
  );
  if (json)
    printJson(io, budgetDecisionJson(turn.session, 'raised', raised.stop, raised.limit, prompt));
  return turn.code;
}
