// What `grove watch` reports: the changes between two readings of the store,
// as events. Pure: the app reads the snapshots (app/services/watch.ts), the
// CLI prints the events as NDJSON (cli/watch.ts).

import type { InboxItem } from './inbox.js';
import type { Operation } from './operation.js';
import { sanitizeLine } from './sanitize.js';
import type { Session } from './session.js';

/** One reading of what `grove watch` follows. */
export interface WatchSnapshot {
  /** The live sessions (not Merged, Done or Canceled), with their project's name; once, those that just left them. */
  readonly sessions: readonly { readonly session: Session; readonly project: string }[];
  /** Everything waiting on the person (domain/inbox.ts). */
  readonly inbox: readonly InboxItem[];
  /** Each session's newest finished turn (start_prompt or reply). */
  readonly lastTurns: readonly Operation[];
}

/** A session as an event names it: its ids and what a script filters on. Text is one sanitized line. */
export interface WatchSession {
  readonly sessionId: string;
  readonly projectId: number;
  readonly project: string;
  readonly title: string;
  readonly status: string;
  readonly branch: string;
}

export type WatchEvent =
  | {
      /** After the first reading: from here on every change is reported. */
      readonly event: 'watch.ready';
      readonly sessions: number;
      readonly inbox: number;
    }
  | { readonly event: 'session.created'; readonly session: WatchSession }
  | {
      readonly event: 'session.status';
      readonly session: WatchSession;
      /** The status at the previous reading. */
      readonly from: string;
    }
  | { readonly event: 'session.removed'; readonly sessionId: string }
  | {
      readonly event: 'turn.finished';
      readonly sessionId: string;
      readonly operationId: string;
      /** start_prompt (the first turn) or reply. */
      readonly kind: string;
      /** done, failed or canceled. */
      readonly status: string;
      /** Why it failed, one sanitized line (null when it did not). */
      readonly error: string | null;
    }
  | {
      readonly event: 'inbox.added';
      readonly item: InboxItem;
      /** Waiting already when `grove watch` started (not new). */
      readonly initial: boolean;
    }
  | { readonly event: 'inbox.removed'; readonly itemId: string; readonly sessionId: string };

function watchSession(entry: WatchSnapshot['sessions'][number]): WatchSession {
  const { session, project } = entry;
  return {
    sessionId: session.id,
    projectId: session.projectId,
    project: sanitizeLine(project),
    title: sanitizeLine(session.title),
    status: session.status,
    branch: sanitizeLine(session.branch),
  };
}

/**
 * The events that lead from `before` to `after`; with no `before` (the
 * first reading), the items already waiting, marked initial, then
 * watch.ready. Sessions are
 * reported first (created, status, removed), then finished turns, then the
 * inbox (removed before added).
 */
export function watchEvents(before: WatchSnapshot | null, after: WatchSnapshot): WatchEvent[] {
  if (before === null)
    return [
      ...after.inbox.map((item): WatchEvent => ({ event: 'inbox.added', item, initial: true })),
      { event: 'watch.ready', sessions: after.sessions.length, inbox: after.inbox.length },
    ];
  const events: WatchEvent[] = [];
  const previous = new Map(before.sessions.map((entry) => [entry.session.id, entry.session]));
  const current = new Set<string>();
  for (const entry of after.sessions) {
    current.add(entry.session.id);
    const was = previous.get(entry.session.id);
    if (!was) events.push({ event: 'session.created', session: watchSession(entry) });
    else if (was.status !== entry.session.status)
      events.push({ event: 'session.status', session: watchSession(entry), from: was.status });
  }
  for (const id of previous.keys())
    if (!current.has(id)) events.push({ event: 'session.removed', sessionId: id });

  const seenTurns = new Set(before.lastTurns.map((op) => op.id));
  const turns = after.lastTurns
    .filter((op) => !seenTurns.has(op.id))
    .sort((a, b) => (a.finishedAt ?? 0) - (b.finishedAt ?? 0));
  for (const op of turns)
    events.push({
      event: 'turn.finished',
      sessionId: op.sessionId,
      operationId: op.id,
      kind: op.kind,
      status: op.status,
      error: op.lastError === null ? null : sanitizeLine(op.lastError),
    });

  const waiting = new Set(before.inbox.map((item) => item.id));
  const now = new Set(after.inbox.map((item) => item.id));
  for (const item of before.inbox)
    if (!now.has(item.id))
      events.push({ event: 'inbox.removed', itemId: item.id, sessionId: item.sessionId });
  for (const item of after.inbox)
    if (!waiting.has(item.id)) events.push({ event: 'inbox.added', item, initial: false });
  return events;
}
