import { describe, expect, it } from 'vitest';
import type { AppState, DiffFileView } from '../../src/app/state.js';
import { emptyBuffer } from '../../src/domain/composer.js';
import { KEYMAP, actionFor, type Binding } from '../../src/domain/keymap.js';
import type { Session } from '../../src/domain/session.js';
import type { SessionStatus } from '../../src/domain/session-status.js';
import type { TranscriptEntry } from '../../src/domain/transcript.js';
import {
  SPARE_KEYS,
  bindingRows,
  pressKeys,
  unboundKeys,
  type CommandCall,
} from '../helpers/keys.js';
import { appState } from '../helpers/render.js';
import { makeSession } from '../helpers/session-factory.js';

// The session view and the diff view: every key of their binding tables, and
// the keys a session's status makes do nothing.

interface Intent {
  readonly events: readonly unknown[];
  readonly calls: readonly CommandCall[];
}

const call = (method: CommandCall['method'], ...args: unknown[]): CommandCall => ({ method, args });

const STATUSES: readonly SessionStatus[] = [
  'Draft',
  'InProgress',
  'Review',
  'AgentReview',
  'Question',
  'Queued',
  'Rebasing',
  'Merging',
  'Merged',
  'Done',
  'Canceled',
];

/** 100 one-line notices: 200 transcript lines, far more than a 30-row screen shows. */
const transcript: TranscriptEntry[] = Array.from({ length: 100 }, (_, i) => ({
  position: i,
  kind: 'notice',
  content: `line ${i}`,
  createdAt: 0,
}));

const SCROLL_BACK = 20;

function sessionState(status: SessionStatus, fields: Partial<Session> = {}): AppState {
  const session = makeSession(status, { id: 'x', ...fields });
  return appState({
    columns: 100,
    rows: 30,
    sessions: [session],
    selectedSessionId: null,
    transcripts: { x: transcript },
    mode: {
      kind: 'session',
      sessionId: 'x',
      scrollBack: SCROLL_BACK,
      composer: null,
      question: null,
    },
  });
}

/** A status in which `row` applies (Review where it can be). */
function statusFor(row: Binding): SessionStatus {
  if (!row.statuses || row.statuses.includes('Review')) return 'Review';
  return row.statuses[0] ?? 'Review';
}

const scrolled = (scrollBack: number): Intent => ({
  events: [
    {
      type: 'mode',
      mode: { kind: 'session', sessionId: 'x', scrollBack, composer: null, question: null },
    },
  ],
  calls: [],
});

const SESSION_INTENTS: Record<string, Intent> = {
  back: {
    events: [
      { type: 'mode', mode: { kind: 'list' } },
      { type: 'selectSession', sessionId: 'x' },
    ],
    calls: [],
  },
  reply: {
    events: [
      {
        type: 'mode',
        mode: {
          kind: 'session',
          sessionId: 'x',
          scrollBack: 0,
          composer: emptyBuffer,
          question: null,
        },
      },
    ],
    calls: [],
  },
  diff: { events: [], calls: [call('openDiff', 'x')] },
  merge: { events: [], calls: [call('requestMerge', 'x')] },
  rebase: { events: [], calls: [call('rebase', 'x')] },
  publish: { events: [], calls: [call('requestPublish', 'x')] },
  review: { events: [], calls: [call('regenerateReview', 'x')] },
  cancel: { events: [], calls: [call('requestCancel', 'x')] },
  stop: { events: [], calls: [call('stop', 'x')] },
  copy: { events: [], calls: [call('copyHandle', 'x')] },
  // Sessions start in Auto Edit; the next mode is Read Only.
  mode: { events: [], calls: [call('setPermissionMode', 'x', 'read_only')] },
  scrollDown: scrolled(SCROLL_BACK - 1),
  scrollUp: scrolled(SCROLL_BACK + 1),
  pageDown: scrolled(SCROLL_BACK - 10),
  pageUp: scrolled(SCROLL_BACK + 10),
  top: scrolled(Number.MAX_SAFE_INTEGER),
  bottom: scrolled(0),
  help: { events: [{ type: 'popup', popup: { kind: 'help' } }], calls: [] },
};

const sessionRows: readonly Binding[] = KEYMAP.session;

describe('the session view', () => {
  it.each(
    sessionRows.flatMap((row) => row.keys.map((key) => [key, row.action, statusFor(row)] as const)),
  )('turns %s (%s) into its intent for a %s session', (key, action, status) => {
    const run = pressKeys(sessionState(status), [key]);
    const expected = SESSION_INTENTS[action];
    if (expected) expect({ events: run.events, calls: run.calls }).toEqual(expected);
    else expect(run.events.length + run.calls.length).toBeGreaterThan(0);
  });

  // Every (key, status) pair the table rules out, computed from the table itself.
  const ruledOut = sessionRows.flatMap((row) =>
    row.keys.flatMap((key) =>
      STATUSES.filter((status) => actionFor('session', key, { status }) === undefined).map(
        (status) => [key, status] as const,
      ),
    ),
  );

  it.each(ruledOut)('does nothing on %s for a %s session', (key, status) => {
    const before = sessionState(status);
    const run = pressKeys(before, [key]);
    expect({ events: run.events, calls: run.calls }).toEqual({ events: [], calls: [] });
    expect(run.state).toBe(before);
  });

  it.each(unboundKeys('session', SPARE_KEYS))('does nothing on the unbound key %s', (key) => {
    const before = sessionState('Review');
    const run = pressKeys(before, [key]);
    expect({ events: run.events, calls: run.calls }).toEqual({ events: [], calls: [] });
  });

  it('answers questions instead of opening the composer when the agent asked some', () => {
    const questions = [{ text: 'Which database?', options: ['SQLite', 'Postgres'] }];
    const run = pressKeys(sessionState('Question', { questions }), ['enter']);
    expect(run.state.mode).toMatchObject({
      kind: 'session',
      composer: null,
      question: { index: 0, selected: 0, answers: [] },
    });
    expect(run.calls).toEqual([]);
  });

  it('clamps scrolling past the top to the first line', () => {
    const run = pressKeys(sessionState('Review'), ['g', 'j']);
    // 200 transcript lines; the view shows the 23 that fit, so the top is 177 lines back.
    expect(run.state.mode).toMatchObject({ scrollBack: 176 });
  });

  it('never scrolls below the bottom', () => {
    const run = pressKeys(sessionState('Review'), ['G', 'j', 'ctrl+d']);
    expect(run.state.mode).toMatchObject({ scrollBack: 0 });
  });

  it('returns to the list when its session is gone', () => {
    const state = { ...sessionState('Review'), sessions: [] };
    const run = pressKeys(state, ['j']);
    expect(run.state.mode).toEqual({ kind: 'list' });
  });
});

const files: DiffFileView[] = ['a.ts', 'b.ts', 'c.ts'].map((path) => ({
  path,
  status: 'M',
  added: 1,
  deleted: 1,
  binary: false,
  patch: '@@ -1 +1 @@\n-a\n+b',
  summarized: null,
}));

function diffState(fileIndex: number, scroll: number): AppState {
  const session = makeSession('Review', { id: 'x' });
  return appState({
    sessions: [session],
    mode: { kind: 'diff', sessionId: 'x', fileIndex, scroll },
    diff: { sessionId: 'x', loading: false, error: null, files, added: 3, deleted: 3 },
  });
}

const diffMode = (fileIndex: number, scroll: number): Intent => ({
  events: [{ type: 'mode', mode: { kind: 'diff', sessionId: 'x', fileIndex, scroll } }],
  calls: [],
});

const DIFF_INTENTS: Record<string, Intent> = {
  back: {
    events: [
      {
        type: 'mode',
        mode: { kind: 'session', sessionId: 'x', scrollBack: 0, composer: null, question: null },
      },
    ],
    calls: [],
  },
  nextFile: diffMode(2, 0),
  prevFile: diffMode(0, 0),
  scrollDown: diffMode(1, 30),
  scrollUp: diffMode(1, 10),
  help: { events: [{ type: 'popup', popup: { kind: 'help' } }], calls: [] },
};

describe('the diff view', () => {
  it.each(bindingRows('diff'))('turns %s (%s) into its intent', (key, action) => {
    const run = pressKeys(diffState(1, 20), [key]);
    const expected = DIFF_INTENTS[action];
    if (expected) expect({ events: run.events, calls: run.calls }).toEqual(expected);
    else expect(run.events.length + run.calls.length).toBeGreaterThan(0);
  });

  it.each(unboundKeys('diff', SPARE_KEYS))('does nothing on %s', (key) => {
    const before = diffState(1, 20);
    const run = pressKeys(before, [key]);
    expect({ events: run.events, calls: run.calls }).toEqual({ events: [], calls: [] });
    expect(run.state).toBe(before);
  });

  it('stays on the last file', () => {
    const run = pressKeys(diffState(2, 0), ['j', 'j']);
    expect(run.state.mode).toMatchObject({ fileIndex: 2 });
  });

  it('does not scroll above the top of the patch', () => {
    const run = pressKeys(diffState(0, 5), ['K']);
    expect(run.state.mode).toMatchObject({ scroll: 0 });
  });
});
