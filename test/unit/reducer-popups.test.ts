import { describe, expect, it } from 'vitest';
import type { AppEvent, SyncReport } from '../../src/app/events.js';
import { reduce } from '../../src/app/reducer.js';
import type { Popup } from '../../src/app/state.js';
import type { ReviewThread } from '../../src/domain/review-thread.js';
import { makeSession } from '../helpers/session-factory.js';
import { bareState } from '../helpers/state.js';

// Services report facts that need the person; the reducer decides what the screen asks.

const state = bareState;

const session = makeSession('Review', {
  id: 'aaaa1111',
  title: 'Add login',
  branch: 'grove/login',
  worktreePath: '/wt/login',
});
const other = makeSession('Review', { id: 'bbbb2222', title: 'Fix nav' });

const thread: ReviewThread = {
  id: 'T1',
  sessionId: session.id,
  pullNumber: 7,
  state: 'answered',
  operationId: null,
  repliedCommit: 'abc',
  replyCommentId: 'C2',
  path: 'src/a.ts',
  line: 3,
  startLine: null,
  isOutdated: false,
  comments: [{ id: 'C1', author: 'rev', body: 'Rename this', createdAt: '', url: '' }],
};

const report: SyncReport = {
  upstream: 'origin/main',
  incoming: ['Their change'],
  outgoing: ['Our change'],
  resolved: ['shared.txt'],
};

const info = (title: string, lines: string[], busy = false): Popup => ({
  kind: 'info',
  title,
  lines,
  busy,
});

const cases: [string, AppEvent, Popup][] = [
  [
    'mergeNeedsConfirmation asks to merge, naming the sessions that will need a rebase',
    { type: 'mergeNeedsConfirmation', sessionId: session.id },
    {
      kind: 'confirm',
      title: 'Merge "Add login"?',
      lines: [
        'It is rebased onto main, squashed into one commit there, and its worktree and branch are removed.',
        '1 other session changed the same files and will need a rebase after this merge:',
        '  "Fix nav" (bbbb2222): also changes f.ts',
      ],
      intent: { kind: 'merge', sessionId: session.id },
      yes: false,
    },
  ],
  [
    'cancelNeedsConfirmation asks to cancel, saying the work at risk is kept',
    {
      type: 'cancelNeedsConfirmation',
      session,
      risk: { uncommitted: 2, unmergedCommits: 1 },
    },
    {
      kind: 'confirm',
      title: 'Cancel "Add login"?',
      lines: [
        'The agent is stopped and the worktree /wt/login is removed.',
        'It holds 2 uncommitted change(s) and 1 commit(s) not on main: they are committed to grove/login first and the branch is kept, so nothing is lost.',
      ],
      intent: { kind: 'cancelSession', sessionId: session.id },
      yes: false,
    },
  ],
  [
    'cancelNeedsConfirmation with no work at risk says the branch is deleted',
    { type: 'cancelNeedsConfirmation', session, risk: { uncommitted: 0, unmergedCommits: 0 } },
    {
      kind: 'confirm',
      title: 'Cancel "Add login"?',
      lines: [
        'The agent is stopped and the worktree /wt/login is removed.',
        'It holds no work that is not on main; the branch grove/login is deleted.',
      ],
      intent: { kind: 'cancelSession', sessionId: session.id },
      yes: false,
    },
  ],
  [
    'reviewRegenerationNeedsConfirmation asks before replacing the focused review',
    { type: 'reviewRegenerationNeedsConfirmation', sessionId: session.id },
    {
      kind: 'confirm',
      title: 'Regenerate the focused review?',
      lines: ['The current review is replaced by a new one.'],
      intent: { kind: 'regenerateReview', sessionId: session.id },
      yes: false,
    },
  ],
  [
    'publishNeedsBranch asks for the remote branch, starting from the session branch',
    { type: 'publishNeedsBranch', sessionId: session.id, suggested: 'grove/login' },
    {
      kind: 'input',
      title: 'Publish: remote branch name',
      purpose: { kind: 'publishBranch', sessionId: session.id },
      buffer: { text: 'grove/login', cursor: 11, undo: [], redo: [] },
    },
  ],
  [
    'threadsAnswered asks to resolve the answered threads on GitHub',
    { type: 'threadsAnswered', sessionId: session.id, threads: [thread] },
    {
      kind: 'confirm',
      title: 'Resolve 1 review thread on GitHub?',
      lines: [
        '• src/a.ts:3  rev: Rename this [answered]',
        '',
        'Grove replied on each with the commit. Resolve them now?',
      ],
      intent: { kind: 'resolveThreads', sessionId: session.id, threadIds: ['T1'] },
      yes: false,
    },
  ],
  [
    'budgetReached asks to raise the limit to another full budget',
    {
      type: 'budgetReached',
      sessionId: session.id,
      stop: { scope: 'session', measure: 'usd', used: 5, limit: 5 },
    },
    {
      kind: 'confirm',
      title: 'Budget reached: "Add login"',
      lines: [
        "This session's spending limit is reached: $5.00 used of $5.00.",
        'The turn under way finished; the queued prompt is held and nothing more is spent.',
        "Yes: raise the session's limit to $10.00 and send it.",
        'No: stop here (the prompt stays held; raise the budget in Settings to go on, or Ctrl+C in the session drops it).',
      ],
      intent: {
        kind: 'raiseBudget',
        sessionId: session.id,
        scope: 'session',
        measure: 'usd',
        limit: 10,
      },
      yes: false,
    },
  ],
  [
    'syncChecking says the sync is being worked out',
    { type: 'syncChecking', project: 'demo' },
    info('Sync', ['Checking what a sync of demo would pull and push…'], true),
  ],
  [
    'syncPlanned asks first, listing what would be pushed and pulled',
    {
      type: 'syncPlanned',
      plan: {
        branch: 'main',
        upstream: 'origin/main',
        head: 'h1',
        outgoing: ['Ours'],
        incoming: ['Theirs'],
        fetchError: null,
      },
    },
    {
      kind: 'confirm',
      title: 'Sync main with origin/main?',
      lines: [
        'Push 1 commit from main to origin/main:',
        '  ↑ Ours',
        'Pull 1 commit from origin/main into main (yours are rebased on top):',
        '  ↓ Theirs',
      ],
      intent: { kind: 'syncMain', branch: 'main', head: 'h1' },
      yes: false,
    },
  ],
  [
    'syncPlanned with a failed fetch says what would be pulled is unknown',
    {
      type: 'syncPlanned',
      plan: {
        branch: 'main',
        upstream: 'origin/main',
        head: 'h1',
        outgoing: [],
        incoming: [],
        fetchError: 'no route',
      },
    },
    {
      kind: 'confirm',
      title: 'Sync main with origin/main?',
      lines: [
        'Nothing to push: origin/main already has every commit of main.',
        'What would be pulled is unknown: fetching origin failed (no route).',
      ],
      intent: { kind: 'syncMain', branch: 'main', head: 'h1' },
      yes: false,
    },
  ],
  [
    'syncPlanned with nothing to move tells, asking nothing',
    {
      type: 'syncPlanned',
      plan: {
        branch: 'main',
        upstream: 'origin/main',
        head: 'h1',
        outgoing: [],
        incoming: [],
        fetchError: null,
      },
    },
    info('Nothing to sync', ['main and origin/main are in step. Nothing was changed.']),
  ],
  [
    'syncStarted says the sync runs',
    { type: 'syncStarted', project: 'demo' },
    info('Syncing', ['Syncing demo…'], true),
  ],
  [
    'syncResolving says the agent is resolving conflicts',
    { type: 'syncResolving', files: ['a.txt'], attempt: 1, attempts: 3 },
    info(
      'Syncing',
      ['Conflicts in a.txt: asking the agent to resolve them (attempt 1 of 3)…'],
      true,
    ),
  ],
  [
    'syncFinished lists what came in, what was resolved and what went out',
    { type: 'syncFinished', report },
    info('Sync finished', [
      'Pulled 1 commit(s) from origin/main:',
      '  ↓ Their change',
      'Resolved conflicts in: shared.txt',
      'Pushed 1 commit(s) to origin/main:',
      '  ↑ Our change',
    ]),
  ],
  [
    'syncFinished with nothing outgoing says there was nothing to push',
    { type: 'syncFinished', report: { ...report, incoming: [], outgoing: [], resolved: [] } },
    info('Sync finished', ['Nothing new on origin/main.', 'Nothing to push.']),
  ],
  [
    'syncStopped on a dirty checkout says nothing was changed',
    { type: 'syncStopped', reason: { kind: 'dirty', dir: '/repo' } },
    info('Sync stopped', [
      '/repo has uncommitted changes. Commit or stash them, then sync again. Nothing was changed.',
    ]),
  ],
  [
    'syncStopped on conflicts the agent could not resolve says the rebase was aborted',
    {
      type: 'syncStopped',
      reason: { kind: 'conflicts', files: ['a.txt'], agentError: 'timed out' },
    },
    info('Sync stopped', [
      'Pulling stopped on conflicts in a.txt; the agent could not resolve them: timed out',
      'The rebase was aborted; your branch is as it was.',
    ]),
  ],
  [
    'syncStopped on a failed push says what was pulled and why the push failed',
    { type: 'syncStopped', reason: { kind: 'pushFailed', report, error: 'rejected' } },
    info('Sync stopped', [
      'Pulled 1 commit(s) from origin/main:',
      '  ↓ Their change',
      'Resolved conflicts in: shared.txt',
      'Push failed: rejected',
    ]),
  ],
  [
    'syncStopped because the branch moved says the sync was not started',
    { type: 'syncStopped', reason: { kind: 'moved', branch: 'main' } },
    info('Sync not started', [
      'main changed after the confirmation was shown, so nothing was pushed. Press s again to see what a sync would do now.',
    ]),
  ],
];

const before = state({
  sessions: [session, other],
  git: {
    branch: 'main',
    upstream: null,
    ahead: 0,
    behind: 0,
    conflicts: [],
    sessions: {},
    overlaps: { [session.id]: [{ sessionId: other.id, files: ['f.ts'], conflicts: [] }] },
    error: null,
  },
});

describe('reducer: facts that need the person become popups', () => {
  it.each(cases)('%s', (_name, event, popup) => {
    expect(reduce(before, event).popup).toEqual(popup);
  });

  it('shows what the agent guard put back in the merge dialog, whose yes acknowledges it', () => {
    const flag = 'The agent changed refs/heads/main (moved from aaa to bbb); Grove put it back.';
    const flagged = makeSession('Review', { id: 'cccc3333', title: 'Flagged', guardFlag: flag });
    const next = reduce(state({ sessions: [flagged] }), {
      type: 'mergeNeedsConfirmation',
      sessionId: flagged.id,
    });
    expect(next.popup).toMatchObject({
      kind: 'confirm',
      intent: { kind: 'merge', sessionId: flagged.id, acknowledge: true },
    });
    expect(next.popup?.kind === 'confirm' ? next.popup.lines : []).toContain(flag);
  });

  it('does not ask to merge a session it does not know', () => {
    const next = reduce(state(), { type: 'mergeNeedsConfirmation', sessionId: 'gone' });
    expect(next.popup).toBeNull();
  });

  it('does not replace another question with the threads to resolve', () => {
    const asked = reduce(before, { type: 'syncStarted', project: 'demo' });
    const next = reduce(asked, {
      type: 'threadsAnswered',
      sessionId: session.id,
      threads: [thread],
    });
    expect(next).toBe(asked);
  });

  it('keeps a budget question already on screen', () => {
    const stop = { scope: 'session', measure: 'usd', used: 5, limit: 5 } as const;
    const asked = reduce(before, { type: 'budgetReached', sessionId: session.id, stop });
    const next = reduce(asked, { type: 'budgetReached', sessionId: other.id, stop });
    expect(next).toBe(asked);
  });

  it('says where to act, with a notice, when another question is on screen at a budget limit', () => {
    const asked = reduce(before, { type: 'reviewRegenerationNeedsConfirmation', sessionId: 'x' });
    const next = reduce(asked, {
      type: 'budgetReached',
      sessionId: session.id,
      stop: { scope: 'project', measure: 'usd', used: 5, limit: 5 },
    });
    expect(next.popup).toBe(asked.popup);
    expect(next.notice).toEqual({
      level: 'warn',
      text: "The project's spending limit is reached: $5.00 used of $5.00. A prompt is held: send it again, or raise the budget in Settings, to go on.",
    });
  });

  it('opens the diff view at a comment and marks the diff as loading', () => {
    const next = reduce(before, {
      type: 'diffOpened',
      sessionId: session.id,
      generation: 4,
      comment: 2,
    });
    expect(next.mode).toMatchObject({
      kind: 'diff',
      sessionId: session.id,
      focus: 'comments',
      commentIndex: 2,
      cursor: 0,
    });
    expect(next.diff).toMatchObject({ sessionId: session.id, generation: 4, loading: true });
  });

  it('opens the diff view on its patch pane when no comment is named', () => {
    const next = reduce(before, { type: 'diffOpened', sessionId: session.id, generation: 1 });
    expect(next.mode).toMatchObject({ kind: 'diff', focus: 'patch', commentIndex: 0 });
  });
});
