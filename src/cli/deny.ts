// grove deny ITEM: denies a request an agent CLI holds for the person, refuses an MCP
// client's request, or drops a prompt a budget limit holds (budget:ID).
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
