// grove approve ITEM [--once|--session]: answers a request an agent CLI holds for the
// person, confirms an MCP client's irreversible request (src/cli/confirm.ts), or raises the
// budget that holds a prompt (budget:ID, src/cli/budget-hold.ts); a usage-limit wait
// (usage:ID, src/cli/usage-wait.ts) is refused.
import type { Infra } from '../compose.js';
import { decideApproval } from '../app/awaited-intents.js';
import {
  approvalShortId,
  approvalWhat,
  choiceWords,
  type ApprovalChoice,
} from '../domain/approval.js';
import { sanitizeLine } from '../domain/sanitize.js';
import { EXIT, type HeadlessIo } from './headless.js';
import type { HeadlessCommand } from './args.js';
import { approvalDecisionJson, printJson } from './command-json.js';
import { answerConfirmation, isConfirmationRef } from './confirm.js';
import { answerBudgetHold, isBudgetRef } from './budget-hold.js';
import { denyUsageWait, isUsageRef, refuseUsageApproval } from './usage-wait.js';
import { UsageError } from './usage-error.js';

/** Decides the held request `item` (shared by grove approve and grove deny); prints what was done. */
export async function answerApproval(
  infra: Infra,
  io: HeadlessIo,
  item: string,
  choice: ApprovalChoice,
  json: boolean,
): Promise<number> {
  // A usage limit is the provider's: deny drops the waiting prompt, approve refuses.
  if (isUsageRef(item))
    return choice === 'denied'
      ? denyUsageWait(infra, io, item, json)
      : refuseUsageApproval(infra, io, item);
  if (isBudgetRef(item)) {
    // A raised limit is the session's own or the project's, as the limit that held it.
    if (choice === 'session' || choice === 'allowList')
      throw new UsageError(
        `--${choice === 'session' ? 'session' : 'allow-list'} is for an agent's request; a budget hold is approved with grove approve ${item}`,
      );
    return answerBudgetHold(infra, io, item, choice !== 'denied', json);
  }
  // An MCP client's confirmation is answered the same way (`--session` means nothing there).
  if (await isConfirmationRef(infra, item))
    return answerConfirmation(infra, io, item, choice !== 'denied', json);
  const outcome = await decideApproval(
    { store: infra.store, runtime: infra.runtime },
    item,
    choice,
  );
  if (!outcome.ok) {
    io.stderr.write(`grove: ${sanitizeLine(outcome.why)}\n`);
    return EXIT.failed;
  }
  const held = outcome.held;
  if (json) {
    printJson(io, approvalDecisionJson(held, choice));
    return EXIT.ok;
  }
  io.stdout.write(
    `${approvalShortId(held.id)}: ${choiceWords(choice)}: ${sanitizeLine(held.agent)} asked to ${approvalWhat(held)}\n`,
  );
  return EXIT.ok;
}

export function approveCommand(
  infra: Infra,
  io: HeadlessIo,
  command: Extract<HeadlessCommand, { kind: 'approve' }>,
): Promise<number> {
  return answerApproval(
    infra,
    io,
    command.item,
    command.allowList ? 'allowList' : command.session ? 'session' : 'once',
    command.json,
  );
}
