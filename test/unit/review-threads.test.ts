import { describe, expect, it } from 'vitest';
import type { AppState } from '../../src/app/state.js';
import { reduce } from '../../src/app/reducer.js';
import {
  reviewThreadsPrompt,
  threadLocation,
  threadReplyBody,
  threadSummary,
  type ReviewThread,
} from '../../src/domain/review-thread.js';
import { toGraphqlForgeError } from '../../src/infra/forge/errors.js';
import { pressKeys, type IntentCall } from '../helpers/keys.js';
import { appState, renderFrame } from '../helpers/render.js';
import { makeSession } from '../helpers/session-factory.js';

// Review threads: the pure parts (locations, folded lines, the prompt, the
// reply), the thread panel's keys, the session view drawing them, and
// GraphQL failures in words.

const thread = (id: string, fields: Partial<ReviewThread> = {}): ReviewThread => ({
  sessionId: 'x',
  id,
  pullNumber: 7,
  path: 'src/app.ts',
  line: 12,
  startLine: null,
  isOutdated: false,
  comments: [
    {
      id: `${id}-c1`,
      author: 'alice',
      body: 'Rename this.\nIt is unclear.',
      createdAt: '',
      url: '',
    },
  ],
  state: 'open',
  operationId: null,
  repliedCommit: null,
  replyCommentId: null,
  ...fields,
});

const call = (method: IntentCall['method'], ...args: unknown[]): IntentCall => ({ method, args });

describe('review thread text', () => {
  it.each([
    [{ path: 'a.ts', line: 3, startLine: null }, 'a.ts:3'],
    [{ path: 'a.ts', line: 5, startLine: 3 }, 'a.ts:3-5'],
    [{ path: 'a.ts', line: 5, startLine: 5 }, 'a.ts:5'],
    [{ path: 'a.ts', line: null, startLine: null }, 'a.ts'],
  ])('places %o at %s', (where, expected) => {
    expect(threadLocation(where)).toBe(expected);
  });

  it('folds a thread to its location, author, first line, replies and Grove state', () => {
    const replies = [
      ...thread('t').comments,
      { id: 'c2', author: 'bob', body: '+1', createdAt: '', url: '' },
      { id: 'c3', author: 'carol', body: 'agreed', createdAt: '', url: '' },
    ];
    expect(
      threadSummary(thread('t', { comments: replies, state: 'answered', isOutdated: true })),
    ).toBe('src/app.ts:12 (outdated)  alice: Rename this.  (+2 replies) [answered]');
  });

  it('asks the agent about every thread with its file, line and every comment', () => {
    const prompt = reviewThreadsPrompt(
      [
        thread('a'),
        thread('b', {
          path: 'README.md',
          line: 2,
          comments: [{ id: 'c', author: 'bob', body: 'Typo', createdAt: '', url: '' }],
        }),
      ],
      7,
    );
    expect(prompt).toContain('2 comment threads on pull request #7');
    expect(prompt).toContain(
      '## 1. src/app.ts:12\n\nalice wrote:\n> Rename this.\n> It is unclear.',
    );
    expect(prompt).toContain('## 2. README.md:2\n\nbob wrote:\n> Typo');
  });

  it('replies with the commit and what changed, or says nothing changed', () => {
    expect(
      threadReplyBody({
        commit: 'abcdef0123456789',
        branch: 'grove/x',
        changed: true,
        whatChanged: 'Renamed it.',
      }),
    ).toBe(
      'Addressed in abcdef012345 (pushed to `grove/x`).\n\nRenamed it.\n\n_Reply posted by Grove for the agent session._',
    );
    expect(
      threadReplyBody({
        commit: 'abcdef0123456789',
        branch: 'grove/x',
        changed: false,
        whatChanged: 'It is fine as is.',
      }),
    ).toMatch(/^No code change for this; the branch stays at abcdef012345\./);
  });
});

function panelState(
  threads: readonly ReviewThread[],
  panel: { cursor: number; selected: readonly string[] } | null,
): AppState {
  const session = makeSession('Review', {
    id: 'x',
    reviewRequest: {
      number: 7,
      url: 'https://github.com/acme/widgets/pull/7',
      state: 'open',
      isDraft: true,
      reviewDecision: null,
      checksSummary: null,
      headBranch: 'grove/x',
      baseBranch: 'main',
    },
  });
  return appState({
    columns: 100,
    rows: 30,
    sessions: [session],
    transcripts: { x: [] },
    reviewThreads: { x: { threads, error: null } },
    mode: {
      kind: 'session',
      sessionId: 'x',
      scrollBack: 0,
      composer: null,
      question: null,
      threads: panel,
    },
  });
}

describe('the review-thread panel', () => {
  const threads = [thread('a'), thread('b'), thread('c')];

  it('opens with t and fetches the threads again', () => {
    const run = pressKeys(panelState(threads, null), ['t']);
    expect(run.state.mode).toMatchObject({ threads: { cursor: 0, selected: [] } });
    expect(run.calls).toEqual([call('refreshReviewThreads', 'x')]);
  });

  it('says to publish first when the session has no pull request', () => {
    const state = { ...panelState(threads, null), sessions: [makeSession('Review', { id: 'x' })] };
    const run = pressKeys(state, ['t']);
    expect(run.state.mode).toMatchObject({ threads: null });
    expect(run.state.notice?.text).toMatch(/publish the session first/);
  });

  it('sends the picked threads with Enter', () => {
    const run = pressKeys(panelState(threads, { cursor: 0, selected: [] }), [
      'j',
      'space',
      'j',
      'space',
      'enter',
    ]);
    expect(run.calls).toEqual([call('sendReviewThreads', 'x', ['b', 'c'])]);
    expect(run.state.mode).toMatchObject({ threads: null });
  });

  it('sends every open thread with Enter when none is picked', () => {
    const run = pressKeys(panelState(threads, { cursor: 0, selected: [] }), [
      'space',
      'space',
      'enter',
    ]);
    expect(run.calls).toEqual([call('sendReviewThreads', 'x', null)]);
  });

  it('keeps the cursor on the list', () => {
    const run = pressKeys(panelState(threads, { cursor: 0, selected: [] }), [
      'k',
      'j',
      'j',
      'j',
      'j',
    ]);
    expect(run.state.mode).toMatchObject({ threads: { cursor: 2 } });
  });

  it.each([
    ['x', call('requestResolveThreads', 'x')],
    ['u', call('refreshReviewThreads', 'x')],
  ])('turns %s into %o', (key, expected) => {
    expect(pressKeys(panelState(threads, { cursor: 0, selected: [] }), [key]).calls).toEqual([
      expected,
    ]);
  });

  it.each(['escape', 'q', 't'])('closes on %s', (key) => {
    const run = pressKeys(panelState(threads, { cursor: 1, selected: ['a'] }), [key]);
    expect(run.state.mode).toMatchObject({ kind: 'session', threads: null });
    expect(run.calls).toEqual([]);
  });
});

describe('the session view', () => {
  it('lists the unresolved threads folded under the transcript', () => {
    const frame = renderFrame(
      panelState(
        [thread('a'), thread('b', { path: 'README.md', line: 2, state: 'answered' })],
        null,
      ),
    );
    expect(frame.text).toContain('── Review threads on PR #7: 2 unresolved (t: pick and send) ──');
    expect(frame.text).toContain('src/app.ts:12  alice: Rename this.');
    expect(frame.text).toContain('README.md:2  alice: Rename this. [answered]');
  });

  it('draws the panel with the cursor and the picks', () => {
    const frame = renderFrame(
      panelState([thread('a'), thread('b')], { cursor: 1, selected: ['a'] }),
    );
    expect(frame.text).toContain('Review threads (2 unresolved)');
    expect(frame.text).toContain('1 picked: Enter sends them');
    expect(frame.lines.find((l) => l.includes('[x] src/app.ts:12'))).toBeDefined();
    expect(frame.lines.find((l) => l.includes('▶ [ ] src/app.ts:12'))).toBeDefined();
  });
});

describe('the reducer', () => {
  it('keeps the threads and the last fetch error per session', () => {
    const state = reduce(appState(), {
      type: 'reviewThreadsLoaded',
      sessionId: 'x',
      threads: [thread('a')],
      error: 'GitHub refused',
    });
    expect(state.reviewThreads['x']).toEqual({ threads: [thread('a')], error: 'GitHub refused' });
  });
});

describe('toGraphqlForgeError', () => {
  const graphqlError = (type: string, message: string, headers: Record<string, string> = {}) => ({
    name: 'GraphqlResponseError',
    errors: [{ type, message }],
    headers,
  });

  it('words GraphQL refusals, a missing GraphQL API and rate limits', () => {
    const url = 'https://ghe.example.com/api/graphql';
    expect(
      toGraphqlForgeError(
        graphqlError('FORBIDDEN', 'Resource not accessible by integration'),
        'acme/widgets',
        url,
      ).message,
    ).toBe(
      'GitHub refused: Resource not accessible by integration. The token needs the `repo` scope (or pull-request write access) on acme/widgets.',
    );
    expect(
      toGraphqlForgeError(
        { status: 404, response: { headers: {}, data: { message: 'Not Found' } } },
        'acme/widgets',
        url,
      ),
    ).toMatchObject({
      reason: 'no_graphql',
      message: expect.stringContaining(
        'GitHub answered 404 at https://ghe.example.com/api/graphql: this server has no GraphQL API',
      ) as unknown,
    });
    const reset = Date.UTC(2031, 0, 1, 17, 45) / 1000;
    const limited = toGraphqlForgeError(
      graphqlError('RATE_LIMITED', 'API rate limit exceeded', {
        'x-ratelimit-reset': String(reset),
      }),
      'acme/widgets',
      url,
    );
    expect(limited).toMatchObject({ reason: 'rate_limited', resetAt: reset * 1000 });
    expect(
      toGraphqlForgeError(
        { status: 401, response: { headers: {}, data: { message: 'Bad credentials' } } },
        'acme/widgets',
        url,
      ).reason,
    ).toBe('bad_credentials');
  });
});
