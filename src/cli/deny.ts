// grove deny ITEM: denies a request an agent CLI holds for the person, refuses an MCP
// client's request, drops a prompt a budget limit holds (budget:ID) or the prompt that
// waits for its agent's usage limit (usage:ID).
import type { Infra } from '../compose.js';
import { answerApproval } from './approve.js';
import type { HeadlessIo } from './headless.js';
import type { HeadlessCommand } from './args.js';

export function denyCommand(
  infra: Infra,
  io: HeadlessIo,
  command: Extract<HeadlessCommand, { kind: 'deny' }>,
): Promise<number> {
  return answerApproval(infra, io, command.item, 'denied', command.json);
}
