import { describe, expect, it } from 'vitest';
import type { AppState } from '../../src/app/state.js';
import { emptyBuffer } from '../../src/domain/composer.js';
import { KEYMAP, type Binding } from '../../src/domain/keymap.js';
import { actionFor } from '../../src/domain/key-lookup.js';
import type { Session } from '../../src/domain/session.js';
import type { SessionStatus } from '../../src/domain/session-status.js';
import type { TranscriptEntry } from '../../src/domain/transcript.js';
import { SPARE_KEYS, pressKeys, unboundKeys, type IntentCall } from '../helpers/keys.js';
import { appState } from '../helpers/render.js';
import { makeSession } from '../helpers/session-factory.js';

// The session view: every key of its binding table, and the keys a session's
// status makes do nothing (the diff view's keys: keys-diff.test.ts).

interface Intent {
  readonly events: readonly unknown[];
  readonly calls: readonly IntentCall[];
}

const call = (method: IntentCall['method'], ...args: unknown[]): IntentCall => ({ method, args });

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
    // The worktree's files are listed for `@` completion while the prompt is written.
    calls: [call('loadFiles', 'x')],
  },
  diff: { events: [], calls: [call('openDiff', 'x')] },
  merge: { events: [], calls: [call('requestMerge', 'x')] },
  rebase: { events: [], calls: [call('rebase', 'x')] },
  publish: { events: [], calls: [call('requestPublish', 'x')] },
  review: { events: [], calls: [call('regenerateReview', 'x')] },
  cancel: { events: [], calls: [call('requestCancel', 'x')] },
  stop: { events: [], calls: [call('stop', 'x')] },
  copy: { events: [], calls: [call('copyHandle', 'x')] },
  chooseWinner: { events: [], calls: [call('chooseWinner', 'x')] },
  publishWinner: { events: [], calls: [call('publishWinner', 'x')] },
  // Without a pull request there are no threads: it says so (review-threads.test.ts covers the panel).
  threads: {
    events: [
      {
        type: 'notice',
        notice: {
          level: 'warn',
          text: 'Review threads come from the pull request: publish the session first (p).',
        },
      },
    ],
    calls: [],
  },
  // Sessions start in Auto Edit; the next mode is Read Only.
  mode: { events: [], calls: [call('setPermissionMode', 'x', 'read_only')] },
  // The agent's tool calls unfold (and fold again on the next press).
  toolCalls: {
    events: [
      {
        type: 'mode',
        mode: {
          kind: 'session',
          sessionId: 'x',
          scrollBack: SCROLL_BACK,
          composer: null,
          question: null,
          toolsExpanded: true,
        },
      },
    ],
    calls: [],
  },
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

  describe('best of N', () => {
    const group = {
      id: 'g',
      projectId: 1,
      prompt: 'task',
      status: 'ranked' as const,
      members: [
        { sessionId: 'x', position: 1, check: null },
        { sessionId: 'v', position: 2, check: null },
      ],
      ranking: [
        { sessionId: 'x', rank: 1, reason: '' },
        { sessionId: 'v', rank: 2, reason: '' },
      ],
      note: null,
      chosenSessionId: null,
      createdAt: 0,
    };
    const grouped = (): AppState => {
      const state = sessionState('Review', { title: 'Clear change' });
      const other = makeSession('Review', { id: 'v', title: 'Noisy change' });
      return { ...state, sessions: [...state.sessions, other], groups: { g: group } };
    };

    it.each([
      ['W', 'merge', 'chooseWinner', 'joins the merge queue'],
      ['P', 'publish', 'publishWinner', 'is published as a pull request'],
    ] as const)(
      'asks before %s (%s) cancels the other variants, as m asks',
      (key, how, method, what) => {
        const asked = pressKeys(grouped(), [key]);
        expect(asked.calls).toEqual([]);
        expect(asked.state.popup).toMatchObject({
          kind: 'confirm',
          intent: { kind: 'chooseWinner', sessionId: 'x', how },
          yes: false,
        });
        const lines =
          asked.state.popup?.kind === 'confirm' ? asked.state.popup.lines.join(' ') : '';
        expect(lines).toContain(`"Clear change" (#1 of the ranking) ${what}`);
        expect(lines).toContain('Canceled (their branches are kept): "Noisy change"');

        expect(pressKeys(asked.state, ['enter']).calls).toEqual([]);
        expect(pressKeys(asked.state, ['y']).calls).toEqual([call(method, 'x')]);
      },
    );
  });

  it('returns to the list when its session is gone', () => {
    const state = { ...sessionState('Review'), sessions: [] };
    const run = pressKeys(state, ['j']);
    expect(run.state.mode).toEqual({ kind: 'list' });
  });
});
