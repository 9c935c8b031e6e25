import { describe, expect, it } from 'vitest';
import type { InboxItem } from '../../src/domain/inbox.js';
import type { Operation } from '../../src/domain/operation.js';
import type { Session } from '../../src/domain/session.js';
import { watchEvents, type WatchSnapshot } from '../../src/domain/watch.js';
import { makeSession } from '../helpers/session-factory.js';

// The events `grove watch` prints: what changed between two readings of the store.

function turn(session: Session, id: string, fields: Partial<Operation> = {}): Operation {
  return {
    id,
    sessionId: session.id,
    kind: 'reply',
    status: 'done',
    payload: {},
    cancelRequested: false,
    owner: null,
    queuedAt: 1,
    startedAt: 2,
    finishedAt: 3,
    lastError: null,
    ...fields,
  };
}

function item(session: Session, kind: InboxItem['kind']): InboxItem {
  return {
    id: `${kind}:${session.id}`,
    kind,
    sessionId: session.id,
    projectId: session.projectId,
    project: 'alpha',
    session: session.title,
    since: 1,
    until: null,
    text: 'waits',
    action: 'act',
  };
}

function snapshot(
  sessions: Session[],
  inbox: InboxItem[] = [],
  lastTurns: Operation[] = [],
): WatchSnapshot {
  return { sessions: sessions.map((session) => ({ session, project: 'alpha' })), inbox, lastTurns };
}

describe('watchEvents', () => {
  it('starts with the waiting items, marked initial, then the ready line', () => {
    const s = makeSession('Question');
    expect(watchEvents(null, snapshot([s], [item(s, 'question')]))).toEqual([
      { event: 'inbox.added', item: item(s, 'question'), initial: true },
      { event: 'watch.ready', sessions: 1, inbox: 1 },
    ]);
  });

  it('reports nothing when nothing changed', () => {
    const s = makeSession('Review');
    const before = snapshot([s], [item(s, 'failedTurn')], [turn(s, 'op1')]);
    expect(watchEvents(before, snapshot([s], [item(s, 'failedTurn')], [turn(s, 'op1')]))).toEqual(
      [],
    );
  });

  it('reports a new session, a status change and a removed session', () => {
    const kept = makeSession('InProgress');
    const gone = makeSession('Review');
    const added = makeSession('Draft', { title: 'New \u001b[31mone\u001b[0m' });
    const events = watchEvents(
      snapshot([kept, gone]),
      snapshot([{ ...kept, status: 'Review' }, added]),
    );
    expect(events.map((e) => e.event)).toEqual([
      'session.status',
      'session.created',
      'session.removed',
    ]);
    expect(events[0]).toMatchObject({ from: 'InProgress', session: { status: 'Review' } });
    // Agent-made text reaches the stream as one safe line.
    expect(JSON.stringify(events[1])).not.toContain('\u001b');
    expect(events[2]).toEqual({ event: 'session.removed', sessionId: gone.id });
  });

  it('reports each newly finished turn once, oldest first, with its error on one line', () => {
    const a = makeSession('Review');
    const b = makeSession('Review');
    const before = snapshot([a, b], [], [turn(a, 'a1')]);
    const after = snapshot(
      [a, b],
      [],
      [
        turn(a, 'a2', { finishedAt: 20, status: 'failed', lastError: 'broke\nbadly' }),
        turn(b, 'b1', { finishedAt: 10, kind: 'start_prompt' }),
      ],
    );
    const events = watchEvents(before, after);
    expect(events[1]).toMatchObject({ operationId: 'a2', status: 'failed' });
    expect(JSON.stringify(events[1])).not.toContain('\\n');
    expect(events).toEqual([
      {
        event: 'turn.finished',
        sessionId: b.id,
        operationId: 'b1',
        kind: 'start_prompt',
        status: 'done',
        error: null,
      },
      {
        event: 'turn.finished',
        sessionId: a.id,
        operationId: 'a2',
        kind: 'reply',
        status: 'failed',
        error: (events[1] as { error: string }).error,
      },
    ]);
  });

  it('reports inbox items handled and added', () => {
    const s = makeSession('Review');
    const events = watchEvents(
      snapshot([s], [item(s, 'question')]),
      snapshot([s], [item(s, 'failedTurn')]),
    );
    expect(events).toEqual([
      { event: 'inbox.removed', itemId: `question:${s.id}`, sessionId: s.id },
      { event: 'inbox.added', item: item(s, 'failedTurn'), initial: false },
    ]);
  });
});
