// grove approve budget:ID / grove deny budget:ID: the prompt a budget limit holds in a
// session (the inbox's budget item). Approve is the budget popup's yes: the limit is raised
// by another full budget on top of what is spent and the held prompt runs, here, to its end
// (as grove reply runs a turn). Deny drops the held prompt: canceled, never sent; the session
// and the rest of its work stay.
import type { Infra } from '../compose.js';
import { readInbox } from '../app/queries.js';
import { budgetStatus } from '../app/services/budget.js';
import { formatMeasure, type BudgetStop } from '../domain/budget.js';
import { queuedPromptText } from '../domain/inbox.js';
import type { Operation } from '../domain/operation.js';
import { sanitizeLine } from '../domain/sanitize.js';
import { shortId, type Session } from '../domain/session.js';
import { budgetDecisionJson, printJson } from './command-json.js';
import {
  CommandError,
  EXIT,
  findSession,
  headlessContext,
  showProgress,
  type HeadlessIo,
} from './headless.js';
import { endTurn, followTurn } from './turn-result.js';

const PREFIX = 'budget:';

/** Whether ITEM names a budget hold (the inbox item's id, budget:<session id or prefix>). */
export function isBudgetRef(item: string): boolean {
  return item.startsWith(PREFIX);
}

function isTurn(op: Operation): boolean {
  return op.status === 'queued' && (op.kind === 'start_prompt' || op.kind === 'reply');
}

function limitWords(stop: BudgetStop, limit: number): string {
  const whose = stop.scope === 'session' ? "the session's" : "the project's";
  const what = stop.measure === 'usd' ? 'spending limit' : 'token budget';
  return `${whose} ${what} to ${formatMeasure(stop.measure, limit)} (it held at ${formatMeasure(stop.measure, stop.limit)})`;
}

function firstLine(prompt: string): string {
  const line = sanitizeLine(prompt.trim().split('\n')[0] ?? '');
  return line.length > 120 ? `${line.slice(0, 119)}…` : line;
}

/** Why nothing is held in the session, in words (exit 1, nothing changed). */
function nothingHeld(io: HeadlessIo, session: Session, why: string): number {
  io.stderr.write(
    `grove: nothing is held at a budget limit in session ${shortId(session.id)} (${why}); nothing was changed.\n`,
  );
  return EXIT.failed;
}

/** The session of budget:REF whose prompt a limit holds, or the exit code of a refusal. */
async function heldSession(infra: Infra, io: HeadlessIo, item: string): Promise<Session | number> {
  const ref = item.slice(PREFIX.length);
  if (ref === '')
    throw new CommandError(
      "budget: needs the session's id (budget:ID, as grove inbox shows it)",
      EXIT.usage,
    );
  if ((await infra.store.sessions.findByIdPrefix(ref)).length === 0) {
    io.stderr.write(
      `grove: nothing is held at a budget limit: no session matches '${sanitizeLine(ref)}'.\n`,
    );
    return EXIT.failed;
  }
  const session = await findSession(infra, ref);
  const items = await readInbox({ store: infra.store, runtime: infra.runtime });
  if (items.some((i) => i.kind === 'budget' && i.sessionId === session.id)) return session;
  const queue = await infra.store.operations.listUnfinished(session.id);
  const why = queue.some((op) => op.status === 'running')
    ? 'its prompt runs now'
    : queue.some(isTurn)
      ? 'no limit holds its queued prompt'
      : 'no prompt is queued';
  return nothingHeld(io, session, why);
}

/** grove approve budget:ID (`approve`) or grove deny budget:ID; prints what was done. */
export async function answerBudgetHold(
  infra: Infra,
  io: HeadlessIo,
  item: string,
  approve: boolean,
  json: boolean,
): Promise<number> {
  const found = await heldSession(infra, io, item);
  if (typeof found === 'number') return found;
  const session = found;
  const project = await infra.store.projects.get(session.projectId);
  const ctx = await headlessContext(infra, io, project?.path ?? null, showProgress(io, false));
  const short = shortId(session.id);
  if (!approve) {
    const stop = (await budgetStatus(infra, session.id))?.stop;
    const dropped = await ctx.intents.dropHeldPrompt(session.id);
    if (!dropped || !stop) return nothingHeld(io, session, 'no prompt is queued');
    const after = (await infra.store.sessions.get(session.id)) ?? session;
    const prompt = queuedPromptText(dropped);
    if (json) {
      printJson(io, budgetDecisionJson(after, 'dropped', stop, stop.limit, prompt));
      return EXIT.ok;
    }
    const more = (await infra.store.operations.listUnfinished(session.id)).filter(isTurn).length;
    io.stdout.write(
      `budget:${short}: dropped the held prompt, never sent: ${firstLine(prompt)} (the session stays in ${after.status}${more > 0 ? `; ${more} more queued prompt${more === 1 ? ' is' : 's are'} still held` : ''})\n`,
    );
    return EXIT.ok;
  }
  const held = (await infra.store.operations.listUnfinished(session.id)).find(isTurn);
  if (!held) return nothingHeld(io, session, 'no prompt is queued');
  const prompt = queuedPromptText(held);
  const since = await infra.store.transcript.count(session.id);
  const startedAt = infra.clock.now();
  const raised = await ctx.intents.raiseHeldBudget(session.id);
  if (!raised) return nothingHeld(io, session, 'no limit holds its queued prompt');
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
