import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { EXIT } from '../../src/cli/headless.js';
import { grove, heldItem } from '../helpers/approvals.js';
import { reply, waitFor, type ReviewWorld } from '../helpers/review-world.js';
import { hookVars, ownVars, setUpHookWorld } from '../helpers/session-hooks-world.js';

// Session hooks on real git and SQLite with the real Claude Code CLI against
// the fake model server: the project's hook command runs when a session's
// turn ends in Review, when it is merged or its merge fails, with what
// happened in GROVE_* variables; confined unless trusted, time-limited, its
// failures told in the session's transcript. The published and failed-turn
// events: session-hooks-events.test.ts.

const hooks = setUpHookWorld();
const { setHook, recorded } = hooks;
let w: ReviewWorld;

beforeEach(() => {
  w = hooks.w;
});

async function merged(sessionId: string): Promise<void> {
  w.controller.confirmMerge(sessionId);
  await waitFor('the merge', async () => (await w.get(sessionId)).status === 'Done', 60_000);
}

async function hookNotice(sessionId: string): Promise<string> {
  return waitFor(
    'the hook notice',
    async () => (await w.notices(sessionId)).find((n) => n.startsWith('[Hook]')) ?? null,
    60_000,
  );
}

describe('session hooks', () => {
  it('runs the hook when a turn ends in Review and when the session is merged, with what happened in GROVE_* variables', async () => {
    const session = await w.session({ files: { 'a.txt': 'a\n' }, message: 'Add a' });
    w.server.script('anthropic', [{ when: 'Tidy up', text: reply('Tidied.') }]);
    expect(await w.controller.submitPrompt(session.id, 'Tidy up')).toBeNull();
    const review = await waitFor('the review hook', () => recorded()[0] ?? null, 60_000);

    expect(ownVars(w, review)).toEqual(
      await hookVars(w, session, { event: 'review', detail: '', status: 'Review' }),
    );
    expect(review['GROVE_SESSION_TITLE']).toBe('Add a');

    await merged(session.id);
    const merge = await waitFor('the merged hook', () => recorded()[1] ?? null, 60_000);
    expect(merge).toMatchObject({
      GROVE_EVENT: 'merged',
      GROVE_SESSION_ID: session.id,
      GROVE_SESSION_STATUS: 'Done',
    });
    expect(recorded()).toHaveLength(2);
  }, 120_000);

  it('runs the needs-you hook when a budget limit holds a queued prompt, once however often the gate looks', async () => {
    const session = await w.session({ files: { 'g.txt': 'g\n' }, message: 'Add g' });
    w.server.script('anthropic', [{ when: 'Spend some', text: reply('Spent.') }]);
    expect(await w.controller.submitPrompt(session.id, 'Spend some')).toBeNull();
    await waitFor('the review hook', () => recorded()[0] ?? null, 60_000);
    await w.infra.store.settings.setProject(w.projectId, 'budget.sessionTokens', '1');

    expect(await w.controller.submitPrompt(session.id, 'Spend more')).toBeNull();

    const held = await waitFor('the needs-you hook', () => recorded()[1] ?? null, 60_000);
    expect(held).toMatchObject({
      GROVE_EVENT: 'needs-you',
      GROVE_EVENT_DETAIL: 'budget',
      GROVE_SESSION_ID: session.id,
    });
    // The gate looks again: the same held prompt runs no second hook (hooks of a session run in order).
    w.controller.workers.notify(session.id);
    await w.controller.workers.idle(session.id);
    w.server.script('anthropic', [{ when: 'Spend more', text: reply('Spent more.') }]);
    await w.infra.store.settings.setProject(w.projectId, 'budget.sessionTokens', '');
    w.controller.workers.notify(session.id);
    await waitFor(
      'the next review hook',
      () => recorded()[2]?.['GROVE_EVENT'] === 'review',
      60_000,
    );
    expect(recorded().map((r) => r['GROVE_EVENT'])).toEqual(['review', 'needs-you', 'review']);
  }, 120_000);

  it("runs the needs-you hook when an agent's request is held for approval, and the review hook when the turn ends", async () => {
    w.server.script('gemini', [
      {
        when: 'Write approved.txt',
        toolCall: { kind: 'shell', command: 'printf x > approved.txt' },
      },
      { when: 'Write approved.txt', text: reply('Finished.') },
    ]);
    const session = await w.controller.sessions.create(
      w.projectId,
      { agent: 'gemini', model: 'gemini-test', reasoning: 'default' },
      w.app.state.settings,
      'read_only',
    );
    await w.controller.sessions.whenReady(session.id);
    expect(await w.controller.submitPrompt(session.id, 'Write approved.txt')).toBeNull();

    const item = await heldItem(w, session.id);
    const held = await waitFor('the needs-you hook', () => recorded()[0] ?? null, 60_000);
    expect(held).toMatchObject({
      GROVE_EVENT: 'needs-you',
      GROVE_EVENT_DETAIL: 'approval',
      GROVE_SESSION_ID: session.id,
    });
    expect((await grove(w, 'approve', item.approvalId ?? '')).code).toBe(EXIT.ok);
    await waitFor('the review hook', () => recorded()[1] ?? null, 60_000);
    expect(recorded().map((r) => r['GROVE_EVENT'])).toEqual(['needs-you', 'review']);
  }, 120_000);

  it('runs the failed hook when a merge stops on conflicts', async () => {
    const session = await w.session({ files: { 'same.txt': 'session\n' }, message: 'Add same' });
    w.commitOnMain({ 'same.txt': 'main\n' }, 'Main adds same');

    w.controller.confirmMerge(session.id);

    const failed = await waitFor('the failed hook', () => recorded()[0] ?? null, 60_000);
    expect(failed).toMatchObject({
      GROVE_EVENT: 'failed',
      GROVE_EVENT_DETAIL: 'merge',
      GROVE_SESSION_ID: session.id,
    });
  }, 90_000);

  it('passes a hostile title intact in its variable and never runs it', async () => {
    const pwned = join(w.world.dir, 'pwned');
    const title = `It's "done" $(touch '${pwned}') \`touch '${pwned}'\`\n; touch '${pwned}' \x1b]0;evil\x07\x1b[2J`;
    const session = await w.session({ files: { 'b.txt': 'b\n' }, message: 'Add b', title });

    await merged(session.id);

    const run = await waitFor('the merged hook', () => recorded()[0] ?? null, 60_000);
    // As stored (the store keeps control characters as visible placeholders), quotes and all.
    expect(run.GROVE_SESSION_TITLE).toBe((await w.get(session.id)).title);
    expect(run.GROVE_SESSION_TITLE).toContain(`It's "done" $(touch '${pwned}') \`touch`);
    expect(existsSync(pwned)).toBe(false);
  }, 90_000);

  it("runs a hook confined like the agent: it writes its worktree but nothing outside it, nor reads the person's secrets in their home; a trusted hook can", async () => {
    const outside = join(w.world.dir, 'hook-outside');
    mkdirSync(join(w.world.home, '.ssh'), { recursive: true });
    const secret = join(w.world.home, '.ssh', 'id_ed25519');
    writeFileSync(secret, 'the secret\n');
    const command = `echo inside > inside.txt; echo out > '${outside}'; cat '${secret}' > read.txt; echo > done.txt`;
    await setHook(command, false);
    const confined = await w.session({ files: { 'c.txt': 'c\n' }, message: 'Add c' });
    w.server.script('anthropic', [{ when: 'Confined turn', text: reply('Done.') }]);
    expect(await w.controller.submitPrompt(confined.id, 'Confined turn')).toBeNull();
    const inside = join(confined.worktreePath, 'inside.txt');
    await waitFor(
      'the confined hook',
      () => existsSync(join(confined.worktreePath, 'done.txt')),
      60_000,
    );

    expect(readFileSync(inside, 'utf8')).toBe('inside\n');
    expect(existsSync(outside)).toBe(false);
    expect(readFileSync(join(confined.worktreePath, 'read.txt'), 'utf8')).not.toContain(
      'the secret',
    );

    await setHook(command, true);
    const trusted = await w.session({ files: { 'd.txt': 'd\n' }, message: 'Add d' });
    w.server.script('anthropic', [{ when: 'Trusted turn', text: reply('Done.') }]);
    expect(await w.controller.submitPrompt(trusted.id, 'Trusted turn')).toBeNull();
    await waitFor('the trusted hook', () => existsSync(outside), 60_000);
    await waitFor('its read', () => existsSync(join(trusted.worktreePath, 'done.txt')), 60_000);
    expect(readFileSync(join(trusted.worktreePath, 'read.txt'), 'utf8')).toBe('the secret\n');
  }, 120_000);

  it('ends a hook that hangs at its time limit, its children too, and says so in the transcript', async () => {
    const pidFile = join(w.world.dir, 'sleeper.pid');
    await setHook(`sleep 300 & echo $! > '${pidFile}'; echo waiting; wait`, true, '10s');
    const session = await w.session({ files: { 'e.txt': 'e\n' }, message: 'Add e' });

    await merged(session.id);

    const notice = await hookNotice(session.id);
    expect(notice).toBe('[Hook] The merged hook was stopped at its time limit (10 s).\nwaiting');
    const pid = Number(readFileSync(pidFile, 'utf8').trim());
    await waitFor('the sleeper ended', () => {
      try {
        process.kill(pid, 0);
        return false;
      } catch {
        return true;
      }
    });
  }, 90_000);

  it("tells a failing hook's exit code and the end of its output, sanitized, in the transcript", async () => {
    await setHook(`echo first; printf 'boom \\033[31mred\\n'; exit 3`, false);
    const session = await w.session({ files: { 'f.txt': 'f\n' }, message: 'Add f' });

    await merged(session.id);

    const notice = await hookNotice(session.id);
    expect(notice).toMatch(/^\[Hook\] The merged hook failed \(exit code 3\)\.\nfirst\nboom /);
    expect(notice).not.toContain('\x1b');
  }, 90_000);
});
