// grove deny usage:ID / grove approve usage:ID: the prompt that waits in a session for its
// agent's usage limit to lift (the inbox's usage-limit item). Deny drops it: canceled,
// never sent; the session and the rest of its queue stay. A usage limit is the provider's:
// approve refuses, saying when it lifts and that deny drops the prompt.
import type { Infra } from '../compose.js';
import { queuedPromptText } from '../domain/inbox.js';
import { sanitizeLine } from '../domain/sanitize.js';
import { formatDuration, shortId } from '../domain/session.js';
import { waitingText } from '../domain/usage-limit.js';
import { printJson, usageDecisionJson } from './command-json.js';
import { EXIT, headlessContext, showProgress, type HeadlessIo } from './headless.js';
import { droppedLine, isTurn, nothingWaits, waitingSession, type HeldKind } from './held-prompt.js';

const USAGE: HeldKind = {
  inbox: 'usageLimit',
  prefix: 'usage:',
  nothing: 'nothing waits for a usage limit',
  notThisKind: 'its queued prompt waits for no usage limit',
  rest: 'queued',
};

/** Whether ITEM names a usage-limit wait (the inbox item's id, usage:<session id or prefix>). */
export function isUsageRef(item: string): boolean {
  return item.startsWith(USAGE.prefix);
}

/** grove approve usage:ID: refused (exit 2, nothing changed), saying when the limit lifts. */
export async function refuseUsageApproval(
  infra: Infra,
  io: HeadlessIo,
  item: string,
): Promise<number> {
  const found = await waitingSession(infra, io, USAGE, item);
  if (typeof found === 'number') return found;
  const head = (await infra.store.operations.listUnfinished(found.id)).find(isTurn);
  const now = infra.clock.now();
  const until = head?.notBefore ?? now;
  const agent = sanitizeLine(head?.waitAgent ?? found.agent);
  io.stderr.write(
    `grove: a usage limit is the provider's and cannot be approved: the prompt is ${waitingText({ agent, until }, now)} (in ${formatDuration(Math.max(0, until - now) / 1000)}) and runs then by itself; grove deny usage:${shortId(found.id)} drops it. Nothing was changed.\n`,
  );
  return EXIT.usage;
}

/** grove deny usage:ID: drops the prompt that waits for its agent's usage limit; prints what was done. */
export async function denyUsageWait(
  infra: Infra,
  io: HeadlessIo,
  item: string,
  json: boolean,
): Promise<number> {
  const found = await waitingSession(infra, io, USAGE, item);
  if (typeof found === 'number') return found;
  const project = await infra.store.projects.get(found.projectId);
  const ctx = await headlessContext(infra, io, project?.path ?? null, showProgress(io, false));
  const dropped = await ctx.intents.dropQueuedPrompt(found.id, 'usageLimit');
  if (!dropped) return nothingWaits(io, USAGE, found, USAGE.notThisKind);
  const after = (await infra.store.sessions.get(found.id)) ?? found;
  const agent = sanitizeLine(dropped.waitAgent ?? found.agent);
  if (json) {
    const until = dropped.notBefore ?? infra.clock.now();
    printJson(io, usageDecisionJson(after, agent, until, queuedPromptText(dropped)));
  } else {
    const what = `the prompt that waited for ${agent}'s usage limit`;
    io.stdout.write(await droppedLine(infra, USAGE, after, what, dropped));
  }
  return EXIT.ok;
}
