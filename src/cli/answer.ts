// grove answer ITEM [TEXT...]: the inbox's word for answering a question item. ITEM is
// the item's id (question:<session id>) or the session's id; the answer is a grove reply
// (reply.ts), refused in words, with nothing sent, when no question of the session waits.
import type { Infra } from '../compose.js';
import { readInbox } from '../app/queries.js';
import { INBOX_KINDS, inboxKindLabel, type InboxKind } from '../domain/inbox.js';
import { sanitizeLine } from '../domain/sanitize.js';
import { shortId } from '../domain/session.js';
import { CommandError, EXIT, findSession, type HeadlessIo } from './headless.js';
import type { HeadlessCommand } from './args.js';
import { replyTo } from './reply.js';

function kindOf(prefix: string): InboxKind | undefined {
  return INBOX_KINDS.find((k) => k === prefix);
}

export async function answerCommand(
  infra: Infra,
  io: HeadlessIo,
  command: Extract<HeadlessCommand, { kind: 'answer' }>,
): Promise<number> {
  const colon = command.item.indexOf(':');
  const prefix = colon === -1 ? null : command.item.slice(0, colon);
  const kind = prefix === null ? undefined : kindOf(prefix);
  if (prefix !== null && kind !== 'question')
    throw new CommandError(
      `${sanitizeLine(command.item)} is ${kind ? `a ${inboxKindLabel(kind)} item of the inbox, not a question` : 'not a question of the inbox'}: grove answer answers an agent's questions (question:ID, or the session's ID); grove inbox says what acts on each item. Nothing was sent.`,
      EXIT.usage,
    );
  const session = await findSession(
    infra,
    colon === -1 ? command.item : command.item.slice(colon + 1),
  );
  const items = await readInbox({ store: infra.store, runtime: infra.runtime });
  if (!items.some((i) => i.kind === 'question' && i.sessionId === session.id)) {
    const queued = (await infra.store.operations.listUnfinished(session.id)).some(
      (op) => op.kind === 'start_prompt' || op.kind === 'reply',
    );
    const why =
      session.status === 'Question' && queued
        ? 'its answer is already queued'
        : `it is in ${session.status}`;
    throw new CommandError(
      `session ${shortId(session.id)} has no question waiting for an answer (${why}); nothing was sent. grove reply ${shortId(session.id)} sends it a prompt.`,
      EXIT.usage,
    );
  }
  return replyTo(infra, io, session, { ...command, threads: false });
}
