import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EXIT } from '../../src/cli/headless.js';
import { APPROVAL_TIMEOUT_KEY } from '../../src/domain/approval.js';
import type { Session } from '../../src/domain/session.js';
import {
  grove,
  heldItem,
  script as scriptOn,
  session as sessionOf,
  toldModel,
  turnOver,
} from '../helpers/approvals.js';
import { makeReviewWorld, reply, waitFor, type ReviewWorld } from '../helpers/review-world.js';

// Approvals that can be granted with the real, pinned Claude Code on real
// SQLite: in a Read Only session the scripted model runs a Bash command,
// which Claude Code asks Grove about over its stdio permission prompt
// (control_request can_use_tool); Grove holds it in the inbox, and the
// person's answer is the control_response Claude Code gets.

let w: ReviewWorld;

beforeEach(async () => {
  w = await makeReviewWorld();
});

afterEach(async () => {
  await w.controller.shutdown();
  await w.close();
});

const readOnlySession = (): Promise<Session> => sessionOf(w, 'claude', 'read_only');
const script = (task: string, commands: readonly string[]): void =>
  scriptOn(w, 'anthropic', task, commands);

describe('Claude Code approvals', () => {
  it('holds a Bash command a Read Only session would deny; approved once, it runs, and the same command asks again', async () => {
    script('Append twice', ['printf x >> once.txt', 'printf x >> once.txt']);
    const session = await readOnlySession();
    expect(await w.controller.submitPrompt(session.id, 'Append twice')).toBeNull();

    const first = await heldItem(w, session.id);
    expect(first.text).toBe(
      'Claude Code asks to run `printf x >> once.txt` (the session is in Read Only mode)',
    );
    expect(existsSync(join(session.worktreePath, 'once.txt'))).toBe(false);
    const approved = await grove(w, 'approve', (first.approvalId ?? '').slice(0, 8));
    expect(approved.code).toBe(EXIT.ok);
    expect(approved.out).toMatch(/approved once: Claude Code asked to run/);

    // Approved once: the identical second request is held again.
    const second = await waitFor(
      'the second request held',
      async () =>
        (await w.controller.inbox()).find(
          (i) =>
            i.kind === 'approval' &&
            i.sessionId === session.id &&
            i.approvalId !== first.approvalId,
        ),
      60_000,
    );
    expect(readFileSync(join(session.worktreePath, 'once.txt'), 'utf8')).toBe('x');
    expect((await grove(w, 'approve', second.approvalId ?? '')).code).toBe(EXIT.ok);
    await turnOver(w, session.id);

    expect(readFileSync(join(session.worktreePath, 'once.txt'), 'utf8')).toBe('xx');
    const notices = await w.notices(session.id);
    expect(notices.filter((n) => n.startsWith('[Approval] Claude Code asks to run'))).toHaveLength(
      2,
    );
    expect(notices.filter((n) => n.startsWith('[Approved]'))).toEqual([
      '[Approved] Claude Code asked to run `printf x >> once.txt`; you approved it once.',
      '[Approved] Claude Code asked to run `printf x >> once.txt`; you approved it once.',
    ]);
  }, 120_000);

  it('approved for the session, the same command again passes without asking', async () => {
    script('Append twice', ['printf x >> twice.txt', 'printf x >> twice.txt']);
    const session = await readOnlySession();
    expect(await w.controller.submitPrompt(session.id, 'Append twice')).toBeNull();

    const item = await heldItem(w, session.id);
    w.controller.decideApproval(item.approvalId ?? '', 'session');
    await turnOver(w, session.id);

    expect(readFileSync(join(session.worktreePath, 'twice.txt'), 'utf8')).toBe('xx');
    const notices = await w.notices(session.id);
    expect(notices.filter((n) => n.startsWith('[Approval]'))).toHaveLength(1);
    expect(notices.filter((n) => n.startsWith('[Approved]'))).toEqual([
      expect.stringMatching(/; you approved it for this session\.$/),
      expect.stringMatching(/; it passed, as you approved it for this session earlier\.$/),
    ]);
  }, 120_000);

  it('denied, the command does not run, the model is told, and it is one [Denied] line', async () => {
    script('Write denied.txt', ['printf x > denied.txt']);
    const session = await readOnlySession();
    expect(await w.controller.submitPrompt(session.id, 'Write denied.txt')).toBeNull();

    const item = await heldItem(w, session.id);
    expect((await grove(w, 'deny', item.approvalId ?? '')).code).toBe(EXIT.ok);
    await turnOver(w, session.id);

    expect(existsSync(join(session.worktreePath, 'denied.txt'))).toBe(false);
    expect(toldModel(w, 'anthropic', 'The person denied this request in Grove.')).toBe(true);
    const entries = (await w.infra.store.transcript.list(session.id)).map((e) => e.content);
    expect(entries).toContainEqual(
      '[Denied] Claude Code asked to run `printf x > denied.txt`; you denied it.',
    );
    expect(entries.filter((e) => e.startsWith('[Denied]'))).toHaveLength(1);
    expect(entries.filter((e) => e.includes('(failed)'))).toEqual([]);
  }, 120_000);

  it('a request nobody answers is denied when the approval timeout passes, and the model is told', async () => {
    w.controller.setSetting(APPROVAL_TIMEOUT_KEY, '2s');
    await waitFor('the setting', () => w.app.state.settings[APPROVAL_TIMEOUT_KEY] === '2s');
    script('Write late.txt', ['printf x > late.txt']);
    const session = await readOnlySession();
    expect(await w.controller.submitPrompt(session.id, 'Write late.txt')).toBeNull();

    await heldItem(w, session.id);
    await turnOver(w, session.id);

    expect(existsSync(join(session.worktreePath, 'late.txt'))).toBe(false);
    expect(toldModel(w, 'anthropic', 'nobody answered it in time')).toBe(true);
    expect(await w.notices(session.id)).toContainEqual(
      '[Denied] Claude Code asked to run `printf x > late.txt`; Grove denied it on timeout: nobody answered within 2s.',
    );
    expect((await w.controller.inbox()).filter((i) => i.kind === 'approval')).toEqual([]);
  }, 120_000);

  it('a request for a path outside the worktree or in the main checkout is denied at once, never held', async () => {
    const main = join(w.repo, 'escape.txt');
    const session = await readOnlySession();
    // The fake model names a file from the worktree: the main checkout's, through `..`.
    w.server.script('anthropic', [
      { when: 'Escape', toolCall: { kind: 'shell', command: 'printf x > ../outside.txt' } },
      {
        when: 'Escape',
        toolCall: {
          kind: 'write_file',
          path: relative(session.worktreePath, main),
          content: 'x',
        },
      },
      { when: 'Escape', text: reply('Finished.') },
    ]);
    expect(await w.controller.submitPrompt(session.id, 'Escape')).toBeNull();
    await turnOver(w, session.id);

    expect(existsSync(join(dirname(session.worktreePath), 'outside.txt'))).toBe(false);
    expect(existsSync(main)).toBe(false);
    expect(toldModel(w, 'anthropic', 'Grove denied this request: it names ../outside.txt')).toBe(
      true,
    );
    const notices = await w.notices(session.id);
    expect(notices.filter((n) => n.startsWith('[Approval]'))).toEqual([]);
    expect(notices.filter((n) => n.startsWith('[Denied]'))).toEqual([
      '[Denied] Claude Code asked to use Bash: `printf x > ../outside.txt`; Grove denied it: it names ../outside.txt, outside what the agent may write.',
      `[Denied] Claude Code asked to use Write on ${main}; Grove denied it: it writes ${main}, outside what the agent may write.`,
    ]);
    expect(await w.infra.store.approvals.findByPrefix('')).toEqual([]);
  }, 120_000);
});
