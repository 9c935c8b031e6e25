import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EXIT } from '../../src/cli/headless.js';
import { APPROVAL_TIMEOUT_KEY } from '../../src/domain/approval.js';
import type { Session } from '../../src/domain/session.js';
import {
  grove as groveOn,
  heldItem as heldOn,
  script as scriptOn,
  session as sessionOf,
  toldModel,
  turnOver as overOn,
} from '../helpers/approvals.js';
import { makeReviewWorld, reply, waitFor, type ReviewWorld } from '../helpers/review-world.js';
import { ApprovalDecisionSchema } from './headless-schema.js';

// Approvals that can be granted (issue 25, item 2) with the real, pinned
// Codex on real SQLite: the scripted model asks to run a command outside
// Codex's sandbox (an escalation, which Auto Edit would deny); Grove holds
// the request in the inbox, the turn waits, and the person's answer (given
// here through the headless `grove approve` / `grove deny`, the TUI's a / A /
// d through the controller) is what Codex gets.

let w: ReviewWorld;

beforeEach(async () => {
  w = await makeReviewWorld();
});

afterEach(async () => {
  await w.controller.shutdown();
  await w.close();
});

const grove = (name: 'approve' | 'deny' | 'inbox', ...rest: string[]) => groveOn(w, name, ...rest);
const heldItem = (sessionId: string) => heldOn(w, sessionId);
const turnOver = (sessionId: string) => overOn(w, sessionId);

const codexSession = (): Promise<Session> => sessionOf(w, 'codex');
const script = (task: string, commands: readonly string[]): void =>
  scriptOn(w, 'openai', task, commands, true);
/** What Codex tells its model of a command Grove declined (its function_call_output, `Rejected("rejected by user")`). */
const REJECTED = 'rejected by user';

describe('Codex approvals', () => {
  it('holds an escalated command in the inbox with its exact command; approved once, it runs and the turn goes on', async () => {
    script('Write approved.txt', ['printf x > approved.txt']);
    const session = await codexSession();
    expect(await w.controller.submitPrompt(session.id, 'Write approved.txt')).toBeNull();

    const item = await heldItem(session.id);
    expect(item.text).toMatch(
      /^Codex asks to run `.*printf x > approved\.txt.*` \(it asked to run outside the sandbox/,
    );
    expect(item.approvalId).toBeDefined();
    expect(existsSync(join(session.worktreePath, 'approved.txt'))).toBe(false);
    const listed = await grove('inbox', '--json');
    expect(JSON.parse(listed.out)).toEqual([
      expect.objectContaining({ kind: 'approval', approvalId: item.approvalId }),
    ]);

    const approved = await grove('approve', (item.approvalId ?? '').slice(0, 8));
    expect(approved).toMatchObject({ code: EXIT.ok });
    expect(approved.out).toMatch(/approved once: Codex asked to run/);
    await turnOver(session.id);

    expect(readFileSync(join(session.worktreePath, 'approved.txt'), 'utf8')).toBe('x');
    expect((await w.controller.inbox()).filter((i) => i.kind === 'approval')).toEqual([]);
    const notices = await w.notices(session.id);
    expect(notices.filter((n) => n.startsWith('[Approval] Codex asks to run'))).toHaveLength(1);
    expect(notices).toContainEqual(
      expect.stringMatching(/^\[Approved\] Codex asked to run .*; you approved it once\.$/),
    );
    // Decided once: a second answer is refused.
    const again = await grove('deny', (item.approvalId ?? '').slice(0, 8), '--json');
    expect(again.code).toBe(EXIT.failed);
    expect(again.out).toBe('');
    expect(again.err).toContain('already approved once');
  }, 120_000);

  it('approved for the session, the same command again later passes without asking', async () => {
    script('Append twice', ['printf x >> twice.txt', 'printf x >> twice.txt']);
    const session = await codexSession();
    expect(await w.controller.submitPrompt(session.id, 'Append twice')).toBeNull();

    const item = await heldItem(session.id);
    const approved = await grove('approve', item.id, '--session', '--json');
    expect(approved.code).toBe(EXIT.ok);
    expect(ApprovalDecisionSchema.parse(JSON.parse(approved.out))).toMatchObject({
      approvalId: item.approvalId,
      sessionId: session.id,
      decision: 'session',
      agent: 'Codex',
      kind: 'command',
      subject: expect.stringContaining('printf x >> twice.txt') as unknown,
    });
    await turnOver(session.id);

    expect(readFileSync(join(session.worktreePath, 'twice.txt'), 'utf8')).toBe('xx');
    const notices = await w.notices(session.id);
    expect(notices.filter((n) => n.startsWith('[Approval]'))).toHaveLength(1);
    expect(notices.filter((n) => n.startsWith('[Approved]'))).toEqual([
      expect.stringMatching(/; you approved it for this session\.$/),
      expect.stringMatching(/; it passed, as you approved it for this session earlier\.$/),
    ]);
  }, 120_000);

  it('denied in the TUI (d on the item), the command does not run and the transcript says so', async () => {
    script('Write denied.txt', ['printf x > denied.txt']);
    const session = await codexSession();
    expect(await w.controller.submitPrompt(session.id, 'Write denied.txt')).toBeNull();

    const item = await heldItem(session.id);
    w.controller.decideApproval(item.approvalId ?? '', 'denied');
    await turnOver(session.id);

    expect(toldModel(w, 'openai', REJECTED)).toBe(true);
    expect(existsSync(join(session.worktreePath, 'denied.txt'))).toBe(false);
    expect(await w.notices(session.id)).toContainEqual(
      expect.stringMatching(/^\[Denied\] Codex asked to run .*denied\.txt.*; you denied it\.$/),
    );
    expect((await w.controller.inbox()).filter((i) => i.kind === 'approval')).toEqual([]);
  }, 120_000);

  it('holds an edit a Read Only session would decline, with its file; approved once, it is written', async () => {
    w.server.script('openai', [
      {
        when: 'Write hello.txt',
        toolCall: { kind: 'write_file', path: 'hello.txt', content: 'hi\n' },
      },
      { when: 'Write hello.txt', text: reply('Finished.') },
    ]);
    const session = await sessionOf(w, 'codex', 'read_only');
    expect(await w.controller.submitPrompt(session.id, 'Write hello.txt')).toBeNull();

    const item = await heldItem(session.id);
    expect(item.text).toBe('Codex asks to edit hello.txt (the session is in Read Only mode)');
    expect((await grove('approve', item.approvalId ?? '')).code).toBe(EXIT.ok);
    await turnOver(session.id);

    expect(readFileSync(join(session.worktreePath, 'hello.txt'), 'utf8')).toBe('hi\n');
  }, 120_000);

  it('a request nobody answers is denied when the approval timeout passes, and the model is told', async () => {
    w.controller.setSetting(APPROVAL_TIMEOUT_KEY, '2s');
    await waitFor('the setting', () => w.app.state.settings[APPROVAL_TIMEOUT_KEY] === '2s');
    script('Write late.txt', ['printf x > late.txt']);
    const session = await codexSession();
    expect(await w.controller.submitPrompt(session.id, 'Write late.txt')).toBeNull();

    await heldItem(session.id);
    await turnOver(session.id);

    expect(toldModel(w, 'openai', REJECTED)).toBe(true);
    expect(existsSync(join(session.worktreePath, 'late.txt'))).toBe(false);
    expect(await w.notices(session.id)).toContainEqual(
      expect.stringMatching(
        /^\[Denied\] Codex asked to run .*late\.txt.*; Grove denied it on timeout: nobody answered within 2s\.$/,
      ),
    );
    expect((await w.controller.inbox()).filter((i) => i.kind === 'approval')).toEqual([]);
  }, 120_000);
});
