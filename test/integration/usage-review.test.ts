import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { shutdownContexts } from '../../src/cli/headless.js';
import { makeReviewWorld, waitFor, type ReviewWorld } from '../helpers/review-world.js';

// The focused review sends the session's whole diff to a model: its tokens
// are the session's (role 'review'), in its total and its budget. Real
// Claude Code against the fake model server (120 in / 40 out a request).

let w: ReviewWorld;

beforeEach(async () => {
  w = await makeReviewWorld();
});

afterEach(async () => {
  await shutdownContexts();
  await w.close();
});

describe("the focused review's usage", () => {
  it("is counted in the session's usage as 'review', and in its total", async () => {
    const session = await w.session({ files: { 'a.txt': 'a\n' }, message: 'Add a' });
    const before = await w.get(session.id);

    w.controller.forceReview(session.id);
    await waitFor(
      'the focused review',
      async () => (await w.get(session.id)).focusedReviewStatus === 'ready',
      60_000,
    );

    const rows = (await w.infra.store.usage.bySession(session.id)).filter(
      (r) => r.role === 'review',
    );
    expect(rows.map((r) => [r.requests, r.inputTokens, r.outputTokens])).toEqual([[1, 120, 40]]);
    const after = await w.get(session.id);
    expect(after.inputTokens + after.outputTokens).toBe(
      before.inputTokens + before.outputTokens + 160,
    );
    // The session view's spending follows without another turn: Grove's part, and for what.
    const shown = await waitFor('the spending in the snapshot', () => {
      const spent = w.app.state.budget?.sessions[session.id]?.spent;
      return spent?.groveRoles?.includes('review') ? spent : null;
    });
    expect(shown.groveTokens).toBeGreaterThanOrEqual(160);
  });
});
