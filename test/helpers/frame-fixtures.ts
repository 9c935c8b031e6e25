import type { AppState, DiffFileView } from '../../src/app/state.js';
import type { SessionGroup } from '../../src/domain/best-of.js';
import type { DiffComment } from '../../src/domain/diff-comment.js';
import type { ReviewThread } from '../../src/domain/review-thread.js';
import type { ReviewRequest, Session } from '../../src/domain/session.js';
import type { SessionStatus } from '../../src/domain/session-status.js';
import type { TranscriptEntry } from '../../src/domain/transcript.js';
import { appState } from './render.js';
import { makeSession } from './session-factory.js';

// Fixed data for the frame snapshots (test/helpers/frames.ts): no clock, no
// temp folder, no counter shared with other test files, so a frame is the same
// on every machine and Node version. Wide text (CJK, emoji) sits next to
// ASCII so the snapshots show the columns staying aligned.

export const CJK_TITLE = '修复登录页面的错误提示并锁定账户';
export const EMOJI_TITLE = '🚀 Ship the 🌲 release notes ✅';

/**
 * A session with every field that makeSession derives from its shared counter
 * (branch, worktree, times) set from `n`, so the frame does not depend on
 * which test files ran before.
 */
export function frameSession(
  status: SessionStatus,
  n: number,
  fields: Partial<Session> = {},
): Session {
  return makeSession(status, {
    id: `f${n}`,
    title: `Session ${n}`,
    branch: `grove/f${n}`,
    worktreePath: `/home/dev/.grove/worktrees/demo/f${n}`,
    createdAt: n,
    updatedAt: n,
    ...fields,
  });
}

/** The open pull request of a published session. */
export const pullRequest: ReviewRequest = {
  number: 42,
  url: 'https://github.com/acme/demo/pull/42',
  state: 'open',
  isDraft: false,
  reviewDecision: null,
  checksSummary: null,
  headBranch: 'grove/f5',
  baseBranch: 'main',
};

/** A list with every group, badges, a PR, wide titles, a best-of group and spending. */
export const listSessions: readonly Session[] = [
  frameSession('Review', 1, {
    title: 'Fix the login flow for people with very long names',
    addedLines: 120,
    deletedLines: 7,
    inputTokens: 12_300,
    outputTokens: 700,
    activeSeconds: 754,
    size: 'M',
    questions: [
      { text: 'Which?', options: [] },
      { text: 'Where?', options: [] },
    ],
  }),
  frameSession('InProgress', 2, {
    title: CJK_TITLE,
    addedLines: 3,
    deletedLines: 1,
    inputTokens: 980,
    outputTokens: 40,
    activeSeconds: 65,
  }),
  frameSession('Question', 3, {
    title: EMOJI_TITLE,
    agent: 'codex',
    model: 'gpt-5.5',
    reasoning: 'medium',
    questions: [{ text: 'Which date format?', options: ['ISO', 'Local'] }],
  }),
  frameSession('Queued', 4, { title: 'Rename the config loader', size: 'S' }),
  frameSession('Review', 5, {
    title: 'Add a dark theme 🌙 to the docs site',
    reviewRequest: pullRequest,
    addedLines: 48,
    deletedLines: 12,
  }),
  frameSession('Review', 6, { title: '测试：缓存失效', agent: 'gemini', model: 'gemini-2.5-pro' }),
  frameSession('Draft', 7, { title: 'Try the new parser', prompt: null }),
  frameSession('Done', 8, { title: 'Bump dependencies', addedLines: 30, deletedLines: 30 }),
  frameSession('Merged', 9, { title: '合并 README 的翻译 📝' }),
  frameSession('Canceled', 10, { title: 'Spike: websockets' }),
];

const bestOf: SessionGroup = {
  id: 'g',
  projectId: 1,
  prompt: 'Fix the login flow',
  status: 'ranked',
  members: [
    { sessionId: 'f1', position: 1, check: null },
    { sessionId: 'f6', position: 2, check: null },
  ],
  ranking: [
    { sessionId: 'f1', rank: 1, reason: 'smaller diff' },
    { sessionId: 'f6', rank: 2, reason: '' },
  ],
  note: null,
  chosenSessionId: null,
  createdAt: 0,
};

/** The sessions list with everything it can show, at `columns` × `rows`. */
export function busyList(columns: number, rows: number, fields: Partial<AppState> = {}): AppState {
  return appState({
    columns,
    rows,
    sessions: listSessions,
    selectedSessionId: 'f2',
    groups: { g: bestOf },
    attention: { f1: 'review', f3: 'question' },
    marked: ['f7'],
    git: {
      branch: 'main',
      upstream: 'origin/main',
      ahead: 1,
      behind: 2,
      sessions: { f1: { ahead: 1, behind: 0 } },
      conflicts: ['f5'],
      overlaps: {
        f1: [{ sessionId: 'f6', files: ['src/login.ts'], conflicts: [] }],
        f6: [{ sessionId: 'f1', files: ['src/login.ts'], conflicts: [] }],
      },
      error: null,
    },
    progress: { f2: 'Reading src/login.ts' },
    ...fields,
  });
}

const entry = (
  position: number,
  kind: TranscriptEntry['kind'],
  content: string,
): TranscriptEntry => ({ position, kind, content, createdAt: 0 });

/** A finished turn: the prompt, tool calls, a markdown answer in English, Chinese and emoji, a notice. */
export const transcript: readonly TranscriptEntry[] = [
  entry(0, 'user_prompt', `Fix the login error message. 登录失败时提示要清楚 🙏`),
  entry(1, 'tool', 'Read src/login.ts\n1  export function login() {}'),
  entry(2, 'tool', 'Edit src/login.ts (+12 -3)'),
  entry(3, 'tool', 'Bash npm test -- login\n✓ 14 tests passed'),
  entry(
    4,
    'assistant_answer',
    [
      '## Done ✅',
      '',
      'The login page now says **why** it failed. 登录页面现在会显示失败原因，三次错误后锁定账户十五分钟。',
      '',
      '- `src/login.ts`: the message 🔐',
      '- `src/i18n/zh.ts`: 中文文案',
      '',
      '```ts',
      "throw new LoginError('密码错误');",
      '```',
    ].join('\n'),
  ),
  entry(5, 'notice', '[Usage] 12.3k in / 700 out'),
];

/** The session view of `session` (in `sessions`), with `mode` fields. */
export function sessionScreen(
  columns: number,
  rows: number,
  session: Session,
  mode: Partial<Extract<AppState['mode'], { kind: 'session' }>> = {},
  fields: Partial<AppState> = {},
): AppState {
  return appState({
    columns,
    rows,
    sessions: [session],
    transcripts: { [session.id]: transcript },
    mode: {
      kind: 'session',
      sessionId: session.id,
      scrollBack: 0,
      composer: null,
      question: null,
      ...mode,
    },
    ...fields,
  });
}

export const reviewThreads: readonly ReviewThread[] = [
  {
    id: 't1',
    sessionId: 'f5',
    pullNumber: 42,
    path: 'docs/theme.css',
    line: 12,
    startLine: null,
    isOutdated: false,
    state: 'open',
    operationId: null,
    repliedCommit: null,
    replyCommentId: null,
    comments: [
      {
        id: 'c1',
        author: 'reviewer',
        body: 'Use the palette variable here 🎨',
        createdAt: '2025-01-01T00:00:00Z',
        url: 'https://github.com/acme/demo/pull/42#c1',
      },
    ],
  },
  {
    id: 't2',
    sessionId: 'f5',
    pullNumber: 42,
    path: 'docs/夜间模式.md',
    line: 3,
    startLine: 1,
    isOutdated: false,
    state: 'answered',
    operationId: null,
    repliedCommit: 'abc1234',
    replyCommentId: 'r1',
    comments: [
      {
        id: 'c2',
        author: '李雷',
        body: '这里的翻译不太通顺',
        createdAt: '2025-01-01T00:00:00Z',
        url: 'https://github.com/acme/demo/pull/42#c2',
      },
    ],
  },
];

/** Three files, one with Chinese and emoji lines, one binary. */
export const diffFiles: readonly DiffFileView[] = [
  {
    path: 'src/login.ts',
    status: 'M',
    added: 4,
    deleted: 2,
    binary: false,
    patch: [
      '@@ -10,6 +10,8 @@ export function login(user: User) {',
      '   const attempts = count(user);',
      '-  if (attempts > 3) throw new Error("locked");',
      '-  return check(user);',
      "+  if (attempts > 3) throw new LoginError('账户已锁定，请十五分钟后再试 🔒');",
      '+  const ok = check(user);',
      "+  if (!ok) throw new LoginError('密码错误');",
      '+  return ok;',
      ' }',
      ' ',
      ' export function logout() {}',
    ].join('\n'),
    summarized: null,
  },
  {
    path: 'src/i18n/中文.ts',
    status: 'A',
    added: 2,
    deleted: 0,
    binary: false,
    patch: [
      '@@ -0,0 +1,2 @@',
      "+export const locked = '账户已锁定';",
      "+export const wrong = '密码错误 ❌';",
    ].join('\n'),
    summarized: null,
  },
  {
    path: 'assets/logo.png',
    status: 'M',
    added: 0,
    deleted: 0,
    binary: true,
    patch: '',
    summarized: null,
  },
];

export const diffComments: readonly DiffComment[] = [
  {
    id: 'k1',
    sessionId: 'f1',
    path: 'src/login.ts',
    side: 'new',
    startLine: 12,
    endLine: 12,
    body: 'Say how long the lock lasts 🕒',
    excerpt: "+  if (attempts > 3) throw new LoginError('账户已锁定，请十五分钟后再试 🔒');",
    hunk: '@@ -10,6 +10,8 @@',
    severity: 'medium',
    origin: 'person',
    status: 'draft',
    createdAt: 0,
    updatedAt: 0,
  },
  {
    id: 'k2',
    sessionId: 'f1',
    path: 'src/login.ts',
    side: 'new',
    startLine: 13,
    endLine: 14,
    body: '错误信息需要翻译',
    excerpt: '+  const ok = check(user);',
    hunk: '@@ -10,6 +10,8 @@',
    severity: null,
    origin: 'review',
    status: 'sent',
    createdAt: 0,
    updatedAt: 0,
  },
];
