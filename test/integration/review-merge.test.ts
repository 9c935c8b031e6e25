import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { git } from '../helpers/grove-env.js';
import { makeReviewWorld, reply, waitFor, writeFiles, type ReviewWorld } from '../helpers/review-world.js';

// Landing sessions on main through the merge queue: real git, real SQLite,
// the real Claude Code CLI (against the fake model server) for conflicts.

let w: ReviewWorld;

beforeEach(async () => {
  w = await makeReviewWorld();
});

afterEach(async () => {
  await w.close();
});

/** Presses `m` and confirms, as the session view does. */
function merge(sessionId: string): void {
  w.controller.requestMerge(sessionId);
  expect(w.app.state.popup).toMatchObject({ kind: 'confirm', intent: { kind: 'merge', sessionId } });
  w.controller.confirmMerge(sessionId);
}

async function settled(sessionId: string, statuses: readonly string[]): Promise<void> {
  await waitFor(`session ${sessionId} to reach ${statuses.join('/')}`, async () => statuses.includes((await w.get(sessionId)).status));
  await w.controller.workers.idle(sessionId);
}

/** Statuses the session went through, from the app events. */
function statusTrail(sessionId: string): string[] {
  return w.events.flatMap((e) => (e.type === 'sessionUpdated' && e.session.id === sessionId ? [e.session.status] : []));
}

/** Waits for a merge of the session to start and end (Done, or back to Review). */
async function mergeEnded(sessionId: string): Promise<void> {
  await waitFor(`the merge of ${sessionId} to start`, () => statusTrail(sessionId).includes('Merging'));
  await settled(sessionId, ['Done', 'Review']);
}

describe('merge', () => {
  it('squash-merges a session the agent worked on, with its commit message, and removes the worktree and branch', async () => {
    const prompt = 'Write the notes file';
    w.server.script('anthropic', [
      { when: 'Write a title for a coding task', text: reply('Write the notes') },
      { when: 'Write the git commit message for the changes', text: reply('Add team notes\n\nNotes for the team.') },
      { when: prompt, toolCall: { kind: 'write_file', path: 'notes.md', content: '# Notes\n\nline one\n' } },
      { when: prompt, text: reply('Wrote notes.md') },
    ]);
    const session = await w.controller.sessions.create(w.projectId, { agent: 'claude', model: 'sonnet', reasoning: 'high' }, w.app.state.settings);
    await w.controller.sessions.whenReady(session.id);
    expect(await w.controller.submitPrompt(session.id, prompt)).toBeNull();
    await settled(session.id, ['Review']);
    await w.controller.turns.settled();
    const before = await w.get(session.id);
    expect(before.commitMessage).toContain('Add team notes');
    expect(git(before.worktreePath, 'log', '-1', '--format=%s')).toBe('Add team notes');

    merge(session.id);
    await mergeEnded(session.id);

    const after = await w.get(session.id);
    expect(after.status).toBe('Done');
    const head = git(w.repo, 'rev-parse', 'main');
    expect(after.mergedCommit).toBe(head);
    expect(git(w.repo, 'log', '-1', '--format=%B', 'main')).toBe('Add team notes\n\nNotes for the team.');
    // One squashed commit on top of the initial one, with the agent's file.
    expect(git(w.repo, 'rev-list', '--count', 'main')).toBe('2');
    expect(git(w.repo, 'rev-list', '--parents', '-n', '1', 'main').split(' ')).toHaveLength(2);
    expect(readFileSync(join(w.repo, 'notes.md'), 'utf8')).toBe('# Notes\n\nline one\n');
    expect(git(w.repo, 'status', '--porcelain')).toBe('');
    expect(existsSync(before.worktreePath)).toBe(false);
    expect(git(w.repo, 'branch', '--list', before.branch)).toBe('');
    expect(git(w.repo, 'worktree', 'list', '--porcelain')).not.toContain(before.worktreePath);
    expect((await w.notices(session.id)).at(-1)).toMatch(new RegExp(`Merged into main as ${head.slice(0, 12)}`));
  });
});
