// Frame snapshots of the inbox page (every kind of item, an approval too, Chinese and emoji
// next to ASCII, a long list scrolled to the highlighted item) and the
// header's count. Text in __snapshots__/frames/inbox-*.txt; after a
// deliberate layout change: `npx vitest run -u test/unit/frames-inbox.test.ts`.
import { describe, it } from 'vitest';
import type { AppState } from '../../src/app/state.js';
import type { InboxItem, InboxKind } from '../../src/domain/inbox.js';
import { FRAME_SIZES, expectFrame } from '../helpers/frames.js';
import { CJK_TITLE, EMOJI_TITLE, busyList } from '../helpers/frame-fixtures.js';

const NOW = 1_800_000_000_000;

function item(kind: InboxKind, minutes: number, fields: Partial<InboxItem> = {}): InboxItem {
  return {
    id: `${kind}:${minutes}`,
    kind,
    sessionId: `f${minutes}`,
    projectId: 1,
    project: 'grove',
    session: 'Fix the login error message',
    since: NOW - minutes * 60_000,
    until: null,
    text: 'A question: Which database should the sessions table use?',
    action: 'Answer it (Enter on the session, or grove reply f1 "...")',
    ...fields,
  };
}

const items: readonly InboxItem[] = [
  item('question', 95, { session: CJK_TITLE, text: 'A question: 错误提示用哪种语气？' }),
  item('budget', 60, {
    project: 'website',
    text: "This session's token budget is reached: 1.2k tokens used of 1k. A prompt is held.",
    action: 'Raise the limit (Enter on the session) or cancel the prompt',
  }),
  item('usageLimit', 42, {
    until: NOW + 90 * 60_000,
    text: "codex's usage limit: the prompt runs in 1h 30m",
    action: 'Wait, or cancel the prompt (grove cancel f42)',
  }),
  item('conflict', 30, {
    session: EMOJI_TITLE,
    text: '[Rebase Error] Conflicts in src/login.ts (still conflicted after 2 attempts).',
    action:
      'Resolve it in the worktree or reply to the agent, then rebase again (grove rebase f30)',
  }),
  item('reviewThreads', 20, { text: '2 review threads to send to the agent: Please rename' }),
  item('failedTurn', 5, { text: 'The turn failed: claude exited with code 1' }),
  item('failedGit', 1, { text: 'The publish failed: push rejected' }),
  item('approval', 0, {
    id: 'approval:1a2b3c4d-0000-4000-8000-000000000000',
    approvalId: '1a2b3c4d-0000-4000-8000-000000000000',
    until: NOW + 10 * 60_000,
    text: 'Codex asks to run `npm install left-pad` (it asked to run outside the sandbox)',
    action:
      'a: approve once, A: for this session, d: deny (grove approve 1a2b3c4d [--session] / grove deny 1a2b3c4d)',
  }),
];

const withInbox = (columns: number, rows: number, fields: Partial<AppState>): AppState =>
  busyList(columns, rows, { now: NOW, inbox: items, ...fields });

describe.each(FRAME_SIZES)('the inbox at %i×%i', (columns, rows) => {
  it('draws every kind of item, the highlighted one with what to do', async () => {
    await expectFrame('inbox-page', withInbox(columns, rows, { inboxView: { cursor: 3 } }));
  });

  it('draws a held approval highlighted, with its keys and commands', async () => {
    await expectFrame('inbox-approval', withInbox(columns, rows, { inboxView: { cursor: 7 } }));
  });

  it('draws an empty inbox', async () => {
    await expectFrame(
      'inbox-empty',
      withInbox(columns, rows, { inbox: [], inboxView: { cursor: 0 } }),
    );
  });

  it('shows the count in the header of the sessions list', async () => {
    await expectFrame('inbox-header', withInbox(columns, rows, { inboxView: null }));
  });
});
