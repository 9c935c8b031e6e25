// grove watch: every change to the sessions and the inbox, across every
// project, as it happens: one line (or one JSON object, NDJSON) per event,
// until Ctrl+C, SIGTERM or the reader going away.
import type { Infra } from '../compose.js';
import { watchGrove } from '../app/queries.js';
import { inboxLine } from '../domain/inbox.js';
import { shortId } from '../domain/session.js';
import type { WatchEvent } from '../domain/watch.js';
import { onOutputClosed } from './exit.js';
import { EXIT, type HeadlessIo } from './headless.js';
import { inboxJson } from './inbox.js';
import type { HeadlessCommand } from './args.js';

/** One event as a JSON object (documented in docs/usage/machine.md). */
export function watchJson(event: WatchEvent, at: number): Record<string, unknown> {
  const base = { event: event.event, at: new Date(at).toISOString() };
  switch (event.event) {
    case 'watch.ready':
      return { ...base, sessions: event.sessions, inbox: event.inbox };
    case 'session.created':
      return { ...base, ...event.session };
    case 'session.status':
      return { ...base, ...event.session, from: event.from };
    case 'session.removed':
      return { ...base, sessionId: event.sessionId };
    case 'turn.finished':
      return {
        ...base,
        sessionId: event.sessionId,
        operationId: event.operationId,
        kind: event.kind,
        status: event.status,
        error: event.error,
      };
    case 'inbox.added':
      return { ...base, initial: event.initial, item: inboxJson(event.item) };
    case 'inbox.removed':
      return { ...base, itemId: event.itemId, sessionId: event.sessionId };
  }
}

/** One event as a line for a person. */
export function watchLine(event: WatchEvent, at: number): string {
  const time = new Date(at).toISOString().slice(11, 19);
  switch (event.event) {
    case 'watch.ready':
      return `${time} watching ${event.sessions} sessions, ${event.inbox} waiting on you (Ctrl+C stops)`;
    case 'session.created':
      return `${time} new      ${shortId(event.session.sessionId)}  ${event.session.status}  ${event.session.title || '(untitled)'}`;
    case 'session.status':
      return `${time} status   ${shortId(event.session.sessionId)}  ${event.from} → ${event.session.status}  ${event.session.title || '(untitled)'}`;
    case 'session.removed':
      return `${time} removed  ${shortId(event.sessionId)}`;
    case 'turn.finished':
      return `${time} turn     ${shortId(event.sessionId)}  ${event.status}${event.error ? `: ${event.error}` : ''}`;
    case 'inbox.added':
      return `${time} inbox +  ${inboxLine(event.item, at)}`;
    case 'inbox.removed':
      return `${time} inbox -  ${event.itemId}`;
  }
}

export async function watchCommand(
  infra: Infra,
  io: HeadlessIo,
  command: Extract<HeadlessCommand, { kind: 'watch' }>,
): Promise<number> {
  const stop = new AbortController();
  const end = (): void => stop.abort();
  process.on('SIGINT', end);
  process.on('SIGTERM', end);
  const unlisten = onOutputClosed(end);
  try {
    await watchGrove(
      { store: infra.store, runtime: infra.runtime },
      (events) => {
        const at = infra.clock.now();
        const text = events
          .map((event) =>
            command.json ? JSON.stringify(watchJson(event, at)) : watchLine(event, at),
          )
          .join('\n');
        io.stdout.write(`${text}\n`);
      },
      stop.signal,
    );
  } finally {
    process.off('SIGINT', end);
    process.off('SIGTERM', end);
    unlisten();
  }
  return EXIT.ok;
}
