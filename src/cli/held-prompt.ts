// What grove approve / deny budget:ID and usage:ID share: the session the item names,
// the refusals when no prompt waits in it, and the line that says what was dropped.
import type { Infra } from '../compose.js';
import { readInbox } from '../app/queries.js';
import { queuedPromptText, type InboxKind } from '../domain/inbox.js';
import type { Operation } from '../domain/operation.js';
import { sanitizeLine } from '../domain/sanitize.js';
import { shortId, type Session } from '../domain/session.js';
import { CommandError, EXIT, findSession, type HeadlessIo } from './headless.js';

/** A kind of waiting prompt: its item's prefix and how "nothing waits" reads. */
export interface HeldKind {
  /** The inbox item of such a prompt. */
  readonly inbox: Extract<InboxKind, 'budget' | 'usageLimit'>;
  /** budget: or usage: */
  readonly prefix: string;
  /** "nothing is held at a budget limit", "nothing waits for a usage limit". */
  readonly nothing: string;
  /** Why the queued prompt is not of this kind ("no limit holds its queued prompt"). */
  readonly notThisKind: string;
  /** What the prompts queued behind a dropped one still are ("held", "queued"). */
  readonly rest: string;
}

export function isTurn(op: Operation): boolean {
  return op.status === 'queued' && (op.kind === 'start_prompt' || op.kind === 'reply');
}

/** The prompt's first line, sanitized and cut to 120 characters. */
export function firstLine(prompt: string): string {
  const line = sanitizeLine(prompt.trim().split('\n')[0] ?? '');
  return line.length > 120 ? `${line.slice(0, 119)}…` : line;
}

/** Why nothing waits in the session, in words (exit 1, nothing changed). */
export function nothingWaits(
  io: HeadlessIo,
  kind: HeldKind,
  session: Session,
  why: string,
): number {
  io.stderr.write(
    `grove: ${kind.nothing} in session ${shortId(session.id)} (${why}); nothing was changed.\n`,
  );
  return EXIT.failed;
}

/**
 * The session PREFIX:REF names when the inbox has its item of this kind, or the exit code
 * of a refusal (written): no session matches, or nothing waits (and why).
 */
export async function waitingSession(
  infra: Infra,
  io: HeadlessIo,
  kind: HeldKind,
  item: string,
): Promise<Session | number> {
  const ref = item.slice(kind.prefix.length);
  if (ref === '')
    throw new CommandError(
      `${kind.prefix} needs the session's id (${kind.prefix}ID, as grove inbox shows it)`,
      EXIT.usage,
    );
  if ((await infra.store.sessions.findByIdPrefix(ref)).length === 0) {
    io.stderr.write(`grove: ${kind.nothing}: no session matches '${sanitizeLine(ref)}'.\n`);
    return EXIT.failed;
  }
  const session = await findSession(infra, ref);
  const items = await readInbox({ store: infra.store, runtime: infra.runtime });
  if (items.some((i) => i.kind === kind.inbox && i.sessionId === session.id)) return session;
  const queue = await infra.store.operations.listUnfinished(session.id);
  const why = queue.some((op) => op.status === 'running')
    ? 'its prompt runs now'
    : queue.some(isTurn)
      ? kind.notThisKind
      : 'no prompt is queued';
  return nothingWaits(io, kind, session, why);
}

/** "PREFIX:abcd1234: dropped WHAT, never sent: … (the session stays in Review; …)". */
export async function droppedLine(
  infra: Infra,
  kind: HeldKind,
  session: Session,
  what: string,
  dropped: Operation,
): Promise<string> {
  const more = (await infra.store.operations.listUnfinished(session.id)).filter(isTurn).length;
  const rest =
    more === 0
      ? ''
      : `; ${more} more queued prompt${more === 1 ? ' is' : 's are'} still ${kind.rest}`;
  return `${kind.prefix}${shortId(session.id)}: dropped ${what}, never sent: ${firstLine(queuedPromptText(dropped))} (the session stays in ${session.status}${rest})\n`;
}
