import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeReviewWorld, reply, waitFor, type ReviewWorld } from '../helpers/review-world.js';

// A fork's first turn, on real git and SQLite with the real Claude Code CLI
// against the fake model server: the agent gets the parent's context before
// the task, but the title is written from the task the person typed.

let w: ReviewWorld;

beforeEach(async () => {
  w = await makeReviewWorld();
});

afterEach(async () => {
  await w.close();
});

describe('a fork', () => {
  it("titles its session from the person's task, not from the fork's context", async () => {
    const parent = await w.session({
      files: { 'parser.js': 'export const parse = () => 1;\n' },
      message: 'Add the parser',
      title: 'Add the parser',
    });
    await w.infra.store.sessions.update(
      parent.id,
      { summary: { turn: 'Added it', session: 'Parser added with tests for every rule' } },
      w.infra.clock.now(),
    );
    w.controller.fork(parent.id);
    const child = await waitFor('the fork', () =>
      w.app.state.sessions.find((s) => s.parentSessionId === parent.id),
    );
    // The title prompt comes first in the queue: it quotes the task too.
    w.server.script('anthropic', [
      { when: 'Write a title for a coding task', text: reply('Error messages for the parser') },
      { when: 'Now add error messages', text: reply('Added them.') },
    ]);

    expect(await w.controller.submitPrompt(child.id, 'Now add error messages')).toBeNull();

    const titled = await waitFor('the generated title', async () => {
      const s = await w.get(child.id);
      return s.titleProvisional ? null : s;
    });
    expect(titled.title).toBe('Error messages for the parser');
    // The title can come back before the turn's request is made: wait for that one too.
    await waitFor('the fork turn', () =>
      w.server
        .modelRequests('anthropic')
        .some(
          (r) =>
            JSON.stringify(r.body).includes('Now add error messages') &&
            !JSON.stringify(r.body).includes('Write a title'),
        ),
    );
    const bodies = w.server.modelRequests('anthropic').map((r) => JSON.stringify(r.body));
    const titleAsk = bodies.find((b) => b.includes('Write a title for a coding task')) ?? '';
    expect(titleAsk).toContain('Now add error messages');
    expect(titleAsk).not.toContain('Parser added with tests');
    expect(titleAsk).not.toContain('this session is a fork');
    // The agent itself still gets the parent's context before the task.
    const turn = bodies.find(
      (b) => b.includes('Now add error messages') && !b.includes('Write a title'),
    );
    expect(turn).toContain('Parser added with tests for every rule');
  }, 90_000);
});
