import { describe, expect, it } from 'vitest';
import type { BudgetView } from '../../src/app/state.js';
import { appState, renderFrame } from '../helpers/render.js';
import { makeSession } from '../helpers/session-factory.js';

// Budgets on screen: the project's spending in the header, the session's in
// the session view, and a session held at a limit in the list.

const session = makeSession('Review', { id: 's-1', title: 'Add rate limiting' });
const budget: BudgetView = {
  project: { spent: { tokens: 1_200_000, usd: 3.1, unpriced: [] }, tokens: 20_000_000, usd: 50 },
  sessions: {
    's-1': { spent: { tokens: 2_100_000, usd: 1.5, unpriced: [] }, tokens: 2_000_000, usd: null },
  },
  held: { 's-1': { scope: 'session', measure: 'tokens', used: 2_100_000, limit: 2_000_000 } },
};

describe('budgets on screen', () => {
  it("shows the project's spending and what is left in the header, and how many sessions are held", () => {
    const frame = renderFrame(appState({ sessions: [session], selectedSessionId: 's-1', budget }));

    expect(frame.lines[0]).toContain(
      'budget 1.2M of 20.0M tokens (18.8M left) · $3.10 of $50.00 ($46.90 left)',
    );
    expect(frame.lines[0]).toContain('1 held at a budget limit');
  });

  it('marks a held session in the list', () => {
    const frame = renderFrame(appState({ sessions: [session], selectedSessionId: 's-1', budget }));

    expect(frame.text).toMatch(/Add rate limiting\s+\[budget reached\]/);
  });

  it("shows the session's spending against its limit, and why its prompts are held, in the session view", () => {
    const frame = renderFrame(
      appState({
        sessions: [session],
        selectedSessionId: 's-1',
        budget,
        transcripts: { 's-1': [] },
        mode: { kind: 'session', sessionId: 's-1', scrollBack: 0, composer: null, question: null },
      }),
    );

    expect(frame.text).toContain('budget 2.1M of 2.0M tokens (limit reached)');
    expect(frame.text).toContain(
      "This session's token budget is reached: 2.1M tokens used of 2.0M tokens. Queued prompts are held",
    );
  });

  it("shows a session's total with the part Grove's own calls took, and for what", () => {
    const frame = renderFrame(
      appState({
        sessions: [session],
        selectedSessionId: 's-1',
        budget: {
          project: { spent: { tokens: 12_400, usd: 0, unpriced: [] }, tokens: null, usd: null },
          sessions: {
            's-1': {
              spent: {
                tokens: 12_400,
                usd: 0,
                unpriced: [],
                groveTokens: 2_100,
                groveRoles: ['title', 'commit', 'review'],
              },
              tokens: null,
              usd: null,
            },
          },
          held: {},
        },
        transcripts: { 's-1': [] },
        mode: { kind: 'session', sessionId: 's-1', scrollBack: 0, composer: null, question: null },
      }),
    );

    expect(frame.text).toContain('spent 12.4k tokens (2.1k by Grove: title, commit, review)');
  });

  describe('with no budget set', () => {
    const unlimited: BudgetView = {
      project: { spent: { tokens: 10_800, usd: 0.05, unpriced: [] }, tokens: null, usd: null },
      sessions: {
        's-1': { spent: { tokens: 10_800, usd: 0.05, unpriced: [] }, tokens: null, usd: null },
      },
      held: {},
    };

    it('says what the project spent in the header, not a budget', () => {
      const frame = renderFrame(
        appState({ sessions: [session], selectedSessionId: 's-1', budget: unlimited }),
      );

      expect(frame.lines[0]).toContain('spent 10.8k tokens · $0.05');
      expect(frame.lines[0]).not.toContain('budget');
    });

    it('says what the session spent in the session header, not a budget', () => {
      const frame = renderFrame(
        appState({
          sessions: [session],
          selectedSessionId: 's-1',
          budget: unlimited,
          transcripts: { 's-1': [] },
          mode: {
            kind: 'session',
            sessionId: 's-1',
            scrollBack: 0,
            composer: null,
            question: null,
          },
        }),
      );

      expect(frame.text).toContain('spent 10.8k tokens · $0.05');
      expect(frame.text).not.toMatch(/budget \d/);
    });
  });
});
