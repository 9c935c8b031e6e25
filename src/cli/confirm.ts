// grove approve | deny on an MCP client's confirmation (issue 25, item 4):
// the person's answer, written to the store; the grove mcp that asked reads
// it and, when confirmed, performs the action itself.
import type { Infra } from '../compose.js';
import { findApproval } from '../app/services/approvals.js';
import {
  decideConfirmation,
  findConfirmation,
  namesConfirmation,
} from '../app/services/confirmations.js';
import { clientName, confirmShortId, confirmWhat } from '../domain/confirmation.js';
import { sanitizeLine } from '../domain/sanitize.js';
import { shortId } from '../domain/session.js';
import { EXIT, type HeadlessIo } from './headless.js';
import { confirmationDecisionJson, printJson } from './command-json.js';

/**
 * Whether `item` names a confirmation: `confirm:ID`, or an id no held agent
 * request has and a confirmation has.
 */
export async function isConfirmationRef(infra: Infra, item: string): Promise<boolean> {
  if (namesConfirmation(item)) return true;
  if ((await findApproval(infra.store, item)).ok) return false;
  return (await findConfirmation(infra.store, item)).ok;
}

/** Confirms or refuses the request `item`; prints what was decided. */
export async function answerConfirmation(
  infra: Infra,
  io: HeadlessIo,
  item: string,
  confirm: boolean,
  json: boolean,
): Promise<number> {
  const outcome = await decideConfirmation(
    { store: infra.store, runtime: infra.runtime },
    item,
    confirm,
  );
  if (!outcome.ok) {
    io.stderr.write(`grove: ${sanitizeLine(outcome.why)}\n`);
    return EXIT.failed;
  }
  const request = outcome.request;
  if (json) {
    printJson(io, confirmationDecisionJson(request));
    return EXIT.ok;
  }
  const session = await infra.store.sessions.get(request.sessionId);
  const what = confirmWhat(
    request,
    session?.title || shortId(request.sessionId),
    session?.baseBranch ?? '?',
  );
  io.stdout.write(
    `${confirmShortId(request.id)}: ${confirm ? 'confirmed (the grove mcp that asked does it now)' : 'refused'}: ${clientName(request.client)} asked to ${what}\n`,
  );
  return EXIT.ok;
}
