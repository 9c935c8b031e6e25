import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DiffView } from '../../src/app/state.js';
import { lineSnapshot } from '../../src/domain/diff-rows.js';
import {
  makeReviewWorld,
  reply,
  waitFor,
  writeFiles,
  type ReviewWorld,
} from '../helpers/review-world.js';

// The diff view's services on real git, a real SQLite store and the real
// Claude Code (talking to the fake model): canceled sessions, stopping a
// load, inline comments sent as a turn, and focused-review findings as drafts.

let w: ReviewWorld;

beforeEach(async () => {
  w = await makeReviewWorld();
});

afterEach(async () => {
  await w.close();
});

function loaded(sessionId: string): Promise<DiffView> {
  return waitFor('the diff to load', () =>
    w.app.state.diff?.sessionId === sessionId && !w.app.state.diff.loading
      ? w.app.state.diff
      : undefined,
  );
}

const NOTES = '# Notes\n\nline one\nline two\nline three\n';

describe('the diff of a canceled session', () => {
  it('is read from its kept branch', async () => {
    const session = await w.session({
      files: { 'feature.txt': 'feature\n' },
      message: 'Add the feature',
    });
    w.controller.confirmCancel(session.id);
    await waitFor(
      'the session to be canceled',
      async () => (await w.get(session.id)).status === 'Canceled',
    );

    w.controller.openDiff(session.id);
    const view = await loaded(session.id);

    expect(view.error).toBeNull();
    expect(view.source).toBe(`${session.branch} (kept branch)`);
    expect(view.files.map((f) => [f.path, f.added, f.deleted])).toEqual([['feature.txt', 1, 0]]);
    expect(view.files[0]?.patch).toContain('+feature');
  });
});

describe('loading the diff', () => {
  it('drops a load that was stopped, and shows the one started after it', async () => {
    const session = await w.session({ files: { 'a.txt': 'a\n' }, message: 'A' });
    w.controller.openDiff(session.id);
    const first = w.app.state.diff?.generation ?? 0;
    w.controller.cancelDiff(session.id);

    w.controller.openDiff(session.id);
    const view = await loaded(session.id);

    expect(view.generation).toBeGreaterThan(first);
    const finished = w.events.filter((e) => e.type === 'diffLoaded' && !e.diff.loading);
    expect(finished.map((e) => (e.type === 'diffLoaded' ? e.diff.generation : null))).toEqual([
      view.generation,
    ]);
  });
});

describe('inline comments', () => {
  it('go to the agent as one turn with file, lines and hunk, shown in short in the transcript, and are marked after it', async () => {
    const session = await w.session({ files: { 'notes.md': NOTES }, message: 'Add notes' });
    w.server.script('anthropic', [
      { when: 'A reviewer left', text: reply('Left them as they are.') },
    ]);
    w.controller.openDiff(session.id);
    const view = await loaded(session.id);
    const rows = view.files[0]?.rows ?? [];
    const anchor = { side: 'new' as const, startLine: 3, endLine: 4 };
    w.controller.saveDiffComment(session.id, {
      id: null,
      path: 'notes.md',
      ...anchor,
      body: 'Number these.',
      excerpt: lineSnapshot(rows, anchor),
      hunk: '@@ -0,0 +1,5 @@\n+# Notes',
    });
    await waitFor('the draft', () => w.app.state.diffComments[session.id]?.length === 1);

    w.controller.submitDiffComments(session.id);

    const marked = await waitFor(
      'the comment to be marked after the turn',
      () => {
        const c = w.app.state.diffComments[session.id]?.[0];
        return c && c.status !== 'draft' && c.status !== 'sent' ? c : undefined;
      },
      60_000,
    );
    // The agent changed nothing: the lines are as they were.
    expect(marked.status).toBe('open');
    const request = JSON.stringify(
      w.server
        .modelRequests('anthropic')
        .find((r) => JSON.stringify(r.body).includes('A reviewer left'))?.body,
    );
    expect(request).toContain('`notes.md`, lines 3-4');
    expect(request).toContain('Number these.');
    expect(request).toContain('@@ -0,0 +1,5 @@');
    const prompts = (await w.infra.store.transcript.list(session.id))
      .filter((e) => e.kind === 'user_prompt')
      .map((e) => e.content);
    expect(prompts.at(-1)).toBe('Review comments (1):\n▸ notes.md:3-4: Number these.');
  });

  it('are marked possibly addressed when the lines they point at changed', async () => {
    const session = await w.session({ files: { 'notes.md': NOTES }, message: 'Add notes' });
    w.controller.openDiff(session.id);
    const rows = (await loaded(session.id)).files[0]?.rows ?? [];
    const store = w.infra.store;
    const changed = await store.diffComments.insert(
      {
        sessionId: session.id,
        path: 'notes.md',
        side: 'new',
        startLine: 3,
        endLine: 3,
        body: 'a',
        excerpt: lineSnapshot(rows, { side: 'new', startLine: 3, endLine: 3 }),
      },
      1,
    );
    const kept = await store.diffComments.insert(
      {
        sessionId: session.id,
        path: 'notes.md',
        side: 'new',
        startLine: 5,
        endLine: 5,
        body: 'b',
        excerpt: lineSnapshot(rows, { side: 'new', startLine: 5, endLine: 5 }),
      },
      2,
    );
    await store.diffComments.setStatus([changed.id, kept.id], 'sent', 3);
    writeFiles(session.worktreePath, { 'notes.md': '# Notes\n\nline ONE\nline two\nline three\n' });

    await w.controller.review.comments.markAfterTurn(session.id, [changed.id, kept.id]);

    const after = await store.diffComments.listBySession(session.id);
    expect(after.map((c) => [c.body, c.status])).toEqual([
      ['a', 'addressed'],
      ['b', 'open'],
    ]);
  });

  it('take the focused review findings as drafts with their location, severity and hunk', async () => {
    const session = await w.session({
      files: { 'notes.md': NOTES, 'src/app.ts': 'export const a = 1;\nexport const b = 2;\n' },
      message: 'Add notes',
    });
    const review =
      '## Review\n### Project Impact\nSmall.\n### Suggestions\n- [High] `src/app.ts:2` — b is never used.\n- [Low] notes.md — add a title.\n- [Medium] Write tests.';
    await w.infra.store.sessions.update(
      session.id,
      { focusedReviewText: review, focusedReviewStatus: 'ready' },
      Date.now(),
    );
    await w.controller.sessions.publishSession(session.id);
    await waitFor(
      'the review in the snapshot',
      () => w.app.state.sessions.find((s) => s.id === session.id)?.focusedReviewText === review,
    );

    w.controller.reviewToComments(session.id);

    const drafts = await waitFor('the drafts', () =>
      w.app.state.diffComments[session.id]?.length === 2
        ? w.app.state.diffComments[session.id]
        : undefined,
    );
    expect(
      drafts.map((c) => [
        c.path,
        c.side,
        c.startLine,
        c.endLine,
        c.severity,
        c.origin,
        c.status,
        c.body,
      ]),
    ).toEqual([
      ['src/app.ts', 'new', 2, 2, 'high', 'review', 'draft', 'b is never used.'],
      ['notes.md', 'file', null, null, 'low', 'review', 'draft', 'add a title.'],
    ]);
    expect(drafts[0]?.hunk).toBe('@@ -0,0 +1,2 @@\n+export const a = 1;\n+export const b = 2;');
    await waitFor(
      'the diff view on the comments',
      () => w.app.state.mode.kind === 'diff' && w.app.state.mode.focus === 'comments',
    );

    // Taking them again adds nothing.
    w.controller.reviewToComments(session.id);
    await waitFor(
      'the notice',
      () => w.app.state.notice?.text === 'The review findings are already draft comments.',
    );
    expect(await w.infra.store.diffComments.listBySession(session.id)).toHaveLength(2);
  });
});
