import { describe, expect, it } from 'vitest';
import { deriveInbox, inboxLine, type InboxInput } from '../../src/domain/inbox.js';
import type { Operation } from '../../src/domain/operation.js';
import type { ReviewThread } from '../../src/domain/review-thread.js';
import type { Session } from '../../src/domain/session.js';
import { makeSession } from '../helpers/session-factory.js';

const NOW = 1_800_000_000_000;
const PROJECTS = [
  { id: 1, displayName: 'alpha' },
  { id: 2, displayName: 'beta' },
];

function op(session: Session, fields: Partial<Operation>): Operation {
  return {
    id: `op-${Math.random().toString(36).slice(2)}`,
    sessionId: session.id,
    kind: 'reply',
    status: 'done',
    payload: {},
    cancelRequested: false,
    owner: null,
    queuedAt: NOW - 60_000,
    startedAt: NOW - 60_000,
    finishedAt: NOW - 50_000,
    lastError: null,
    ...fields,
  };
}

function thread(session: Session, fields: Partial<ReviewThread>): ReviewThread {
  return {
    id: `th-${Math.random().toString(36).slice(2)}`,
    sessionId: session.id,
    pullNumber: 7,
    path: 'src/a.ts',
    line: 3,
    startLine: null,
    isOutdated: false,
    state: 'open',
    operationId: null,
    repliedCommit: null,
    replyCommentId: null,
    comments: [
      {
        id: 'c1',
        author: 'rev',
        body: 'Please rename\nthis',
        createdAt: new Date(NOW - 3_600_000).toISOString(),
        url: 'https://example.invalid/c1',
      },
    ],
    ...fields,
  };
}

function input(fields: Partial<InboxInput>): InboxInput {
  return {
    projects: PROJECTS,
    sessions: [],
    operations: [],
    reviewThreads: [],
    budgetStops: new Map(),
    ...fields,
  };
}

describe('deriveInbox', () => {
  it('lists a session that asks questions, with the first question on one sanitized line', () => {
    const s = makeSession('Question', {
      title: 'Fix \x1b[31mlogin',
      questions: [{ text: 'Which database?\nPostgres or SQLite', options: [] }],
    });
    const items = deriveInbox(input({ sessions: [s], operations: [op(s, {})] }), NOW);
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({
      kind: 'question',
      sessionId: s.id,
      project: 'alpha',
      since: NOW - 50_000,
      text: 'A question: Which database?',
    });
    expect(items[0]?.session).not.toContain('\x1b');
  });

  it('drops the question once a reply is queued for it', () => {
    const s = makeSession('Question', { questions: [{ text: 'Which?', options: [] }] });
    const reply = op(s, { status: 'queued', finishedAt: null, startedAt: null, queuedAt: NOW });
    expect(deriveInbox(input({ sessions: [s], operations: [op(s, {}), reply] }), NOW)).toEqual([]);
  });

  it('lists a queued prompt a budget limit holds', () => {
    const s = makeSession('Review');
    const queued = op(s, { status: 'queued', queuedAt: NOW - 5_000, finishedAt: null });
    const items = deriveInbox(
      input({
        sessions: [s],
        operations: [queued],
        budgetStops: new Map([
          [s.id, { scope: 'session', measure: 'tokens', used: 1200, limit: 1000 }],
        ]),
      }),
      NOW,
    );
    expect(items.map((i) => i.kind)).toEqual(['budget']);
    expect(items[0]?.text).toContain("This session's token budget is reached");
    expect(items[0]?.since).toBe(NOW - 5_000);
  });

  it('lists a prompt waiting for a usage limit, with when it lifts', () => {
    const s = makeSession('Review');
    const queued = op(s, {
      status: 'queued',
      finishedAt: null,
      notBefore: NOW + 90 * 60_000,
      waitAgent: 'codex',
    });
    const items = deriveInbox(input({ sessions: [s], operations: [queued] }), NOW);
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({ kind: 'usageLimit', until: NOW + 90 * 60_000 });
    expect(items[0]?.text).toBe("codex's usage limit: the prompt runs in 1h 30m");
    // Acted on with grove deny usage:ID (drops the prompt), not grove cancel (the whole session).
    expect(items[0]?.id).toBe(`usage:${s.id}`);
    expect(items[0]?.action).toBe(
      `Wait, or drop the prompt, never sent (grove deny usage:${s.id.slice(0, 8)})`,
    );
    // Once the time passed, the worker takes it: nothing waits on the person.
    expect(deriveInbox(input({ sessions: [s], operations: [queued] }), NOW + 91 * 60_000)).toEqual(
      [],
    );
  });

  it('lists a rebase that stopped on conflicts as a conflict, and another failed git step as failed git', () => {
    const a = makeSession('Review');
    const b = makeSession('Review');
    const conflict = op(a, {
      kind: 'rebase',
      status: 'failed',
      lastError:
        '[Rebase Error] Conflicts in a.txt (still conflicted after 2 attempts). The rebase was aborted',
    });
    const push = op(b, { kind: 'publish', status: 'failed', lastError: 'push rejected' });
    const items = deriveInbox(input({ sessions: [a, b], operations: [conflict, push] }), NOW);
    expect(items.map((i) => [i.sessionId, i.kind])).toEqual([
      [a.id, 'conflict'],
      [b.id, 'failedGit'],
    ]);
    expect(items[1]?.text).toBe('The publish failed: push rejected');
  });

  it('lists a failed turn until a newer operation of the session replaces it', () => {
    const s = makeSession('Review');
    const failed = op(s, { status: 'failed', lastError: 'claude exited with code 1\nstack…' });
    const items = deriveInbox(input({ sessions: [s], operations: [failed] }), NOW);
    expect(items.map((i) => [i.kind, i.text])).toEqual([
      ['failedTurn', 'The turn failed: claude exited with code 1'],
    ]);
    const retried = op(s, { queuedAt: NOW - 10_000 });
    expect(deriveInbox(input({ sessions: [s], operations: [failed, retried] }), NOW)).toEqual([]);
  });

  it('lists review threads open or answered, not those sent to the agent', () => {
    const s = makeSession('Review');
    const items = deriveInbox(
      input({
        sessions: [s],
        reviewThreads: [
          thread(s, {}),
          thread(s, { state: 'answered' }),
          thread(s, { state: 'sent' }),
        ],
      }),
      NOW,
    );
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({
      kind: 'reviewThreads',
      since: NOW - 3_600_000,
      text: '1 review thread to send to the agent; 1 answered, to resolve: Please rename',
    });
  });

  it('skips finished sessions and lists every project oldest first', () => {
    const old = makeSession('Question', {
      projectId: 2,
      questions: [{ text: 'Old?', options: [] }],
    });
    const fresh = makeSession('Question', { questions: [{ text: 'New?', options: [] }] });
    const done = makeSession('Done', { questions: [{ text: 'Gone?', options: [] }] });
    const items = deriveInbox(
      input({
        sessions: [fresh, old, done],
        operations: [op(old, { finishedAt: NOW - 90_000 }), op(fresh, { finishedAt: NOW - 1_000 })],
      }),
      NOW,
    );
    expect(items.map((i) => [i.project, i.sessionId])).toEqual([
      ['beta', old.id],
      ['alpha', fresh.id],
    ]);
    expect(inboxLine(items[0]!, NOW)).toContain('question');
    expect(inboxLine(items[0]!, NOW)).toContain('beta / ');
  });
});
