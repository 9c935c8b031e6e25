import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { gate } from '../helpers/fake-model/server.js';
import { git } from '../helpers/grove-env.js';
import { makeReviewWorld, reply, waitFor, type ReviewWorld } from '../helpers/review-world.js';

// `r` and `c` pressed while the agent is still working.

let w: ReviewWorld;

beforeEach(async () => {
  w = await makeReviewWorld();
  w.server.script('anthropic', [
    { when: 'Write a title for a coding task', text: reply('Draft the plan') },
    {
      when: 'Write the git commit message for the changes',
      text: reply('Draft the plan\n\nA first plan.'),
    },
  ]);
});

afterEach(async () => {
  await w.close();
});

function statusTrail(sessionId: string): string[] {
  return w.events.flatMap((e) =>
    e.type === 'sessionUpdated' && e.session.id === sessionId ? [e.session.status] : [],
  );
}

/** Starts a turn that writes plan.md, then keeps the model busy until `until` settles. */
async function busySession(
  prompt: string,
  until: Promise<unknown>,
): Promise<{ id: string; worktree: string; branch: string }> {
  w.server.script('anthropic', [
    {
      when: prompt,
      toolCall: { kind: 'write_file', path: 'plan.md', content: '# Plan\n\nstep one\n' },
    },
    { when: prompt, until, then: { text: reply('Planned.') } },
  ]);
  const session = await w.controller.sessions.create(
    w.projectId,
    { agent: 'claude', model: 'sonnet', reasoning: 'high' },
    w.app.state.settings,
  );
  await w.controller.sessions.whenReady(session.id);
  expect(await w.controller.submitPrompt(session.id, prompt)).toBeNull();
  await waitFor('the agent to write plan.md', () =>
    existsSync(join(session.worktreePath, 'plan.md')),
  );
  expect((await w.get(session.id)).status).toBe('InProgress');
  return { id: session.id, worktree: session.worktreePath, branch: session.branch };
}

describe('while a turn runs', () => {
  it('queues a rebase behind the running turn, then rebases the committed work onto main', async () => {
    const queued = gate();
    const s = await busySession('Draft the plan please', queued.opened);
    const mainHead = w.commitOnMain({ 'main.txt': 'main moved\n' }, 'Main moves on');

    w.controller.rebase(s.id);
    await waitFor('the queued notice', () =>
      w.events.some(
        (e) => e.type === 'notice' && /queued behind the running turn/.test(e.notice?.text ?? ''),
      ),
    );
    expect((await w.get(s.id)).status).toBe('InProgress');
    queued.open();

    await waitFor('the rebase to run', () => statusTrail(s.id).includes('Rebasing'));
    await waitFor('the rebase to end', async () => (await w.get(s.id)).status === 'Review');
    await w.controller.workers.idle(s.id);
    await w.controller.turns.settled();

    const trail = statusTrail(s.id);
    expect(trail.indexOf('Rebasing')).toBeGreaterThan(trail.indexOf('InProgress'));
    expect(trail.slice(trail.indexOf('InProgress')).filter((x, i, a) => x !== a[i - 1])).toEqual([
      'InProgress',
      'Review',
      'Rebasing',
      'Review',
    ]);
    expect(git(w.repo, 'rev-parse', `${s.branch}~1`)).toBe(mainHead);
    expect(git(w.repo, 'show', `${s.branch}:plan.md`)).toBe('# Plan\n\nstep one');
    expect(git(w.repo, 'log', '-1', '--format=%s', s.branch)).toBe('Draft the plan');
    expect((await w.notices(s.id)).at(-1)).toBe('[Rebase] Rebased onto main.');
    expect(readFileSync(join(s.worktree, 'main.txt'), 'utf8')).toBe('main moved\n');
  });

  it('cancels a working session without losing what the agent already wrote', async () => {
    // Never answered: the cancel ends the turn.
    const never = gate();
    const s = await busySession('Draft a long plan', never.opened);

    w.controller.requestCancel(s.id);
    const lines = await waitFor('the cancel confirmation', () =>
      w.app.state.popup?.kind === 'confirm' ? w.app.state.popup.lines : undefined,
    );
    expect(lines.join('\n')).toMatch(/1 uncommitted change\(s\).*the branch is kept/);
    w.controller.confirmCancel(s.id);
    await waitFor(
      'the session to be canceled',
      async () => (await w.get(s.id)).status === 'Canceled',
    );

    const after = await w.get(s.id);
    expect(after.keptBranch).toBe(s.branch);
    expect(existsSync(s.worktree)).toBe(false);
    expect(git(w.repo, 'show', `${s.branch}:plan.md`)).toBe('# Plan\n\nstep one');
    expect(git(w.repo, 'rev-list', '--count', 'main')).toBe('1');
    const notices = await w.notices(s.id);
    expect(notices.at(-1)).toContain(`The work is kept on branch ${s.branch}`);
    // The agent process is gone: no operation of the session is still running.
    expect(
      (await w.infra.store.operations.listUnfinished(s.id)).filter((op) => op.status === 'running'),
    ).toEqual([]);
  });
});
