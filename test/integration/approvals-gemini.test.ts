import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
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
import { makeReviewWorld, waitFor, type ReviewWorld } from '../helpers/review-world.js';
import { ApprovalDecisionSchema } from './headless-schema.js';

// Approvals that can be granted with the real, pinned Gemini CLI over ACP on
// real SQLite: in a Read Only session the scripted model asks to run a shell
// command inside the worktree (session/request_permission), which the mode
// would reject; Grove holds it in the inbox, and the person's answer is the
// option Gemini CLI gets. A rejection carries no words over ACP: Gemini CLI
// tells its model the call was canceled (the functionResponse's error).

let w: ReviewWorld;

beforeEach(async () => {
  w = await makeReviewWorld();
});

afterEach(async () => {
  await w.controller.shutdown();
  await w.close();
});

const readOnlySession = (): Promise<Session> => sessionOf(w, 'gemini', 'read_only');
const script = (task: string, commands: readonly string[]): void =>
  scriptOn(w, 'gemini', task, commands);
/** What Gemini CLI tells its model of a rejected call (its functionResponse's error, `Tool "run_shell_command" was canceled by the user.`). */
const REJECTED = 'was canceled by the user';

describe('Gemini CLI approvals', () => {
  it('holds a shell command a Read Only session would reject; approved once, it runs', async () => {
    script('Write approved.txt', ['printf x > approved.txt']);
    const session = await readOnlySession();
    expect(await w.controller.submitPrompt(session.id, 'Write approved.txt')).toBeNull();

    const item = await heldItem(w, session.id);
    expect(item.text).toBe(
      'Gemini CLI asks to run `printf x > approved.txt` (the session is in Read Only mode)',
    );
    expect(existsSync(join(session.worktreePath, 'approved.txt'))).toBe(false);
    expect((await grove(w, 'approve', item.approvalId ?? '')).code).toBe(EXIT.ok);
    await turnOver(w, session.id);

    expect(readFileSync(join(session.worktreePath, 'approved.txt'), 'utf8')).toBe('x');
    expect(await w.notices(session.id)).toContainEqual(
      '[Approved] Gemini CLI asked to run `printf x > approved.txt`; you approved it once.',
    );
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
    expect(notices.filter((n) => n.startsWith('[Approved]'))).toHaveLength(2);
  }, 120_000);

  it('denied, the command does not run and is one [Denied] line, not also a failed tool', async () => {
    script('Write denied.txt', ['printf x > denied.txt']);
    const session = await readOnlySession();
    expect(await w.controller.submitPrompt(session.id, 'Write denied.txt')).toBeNull();

    const item = await heldItem(w, session.id);
    const denied = await grove(w, 'deny', item.approvalId ?? '', '--json');
    expect(denied.code).toBe(EXIT.ok);
    expect(ApprovalDecisionSchema.parse(JSON.parse(denied.out))).toMatchObject({
      approvalId: item.approvalId,
      sessionId: session.id,
      decision: 'denied',
      agent: 'Gemini CLI',
      kind: 'command',
      subject: expect.stringContaining('printf x > denied.txt') as unknown,
    });
    await turnOver(w, session.id);

    expect(toldModel(w, 'gemini', REJECTED)).toBe(true);
    expect(existsSync(join(session.worktreePath, 'denied.txt'))).toBe(false);
    const entries = await w.infra.store.transcript.list(session.id);
    expect(entries.map((e) => e.content)).toContainEqual(
      '[Denied] Gemini CLI asked to run `printf x > denied.txt`; you denied it.',
    );
    expect(entries.filter((e) => e.content.includes('(failed)'))).toEqual([]);
  }, 120_000);

  it('a request nobody answers is denied when the approval timeout passes, and the model is told', async () => {
    w.controller.setSetting(APPROVAL_TIMEOUT_KEY, '2s');
    await waitFor('the setting', () => w.app.state.settings[APPROVAL_TIMEOUT_KEY] === '2s');
    script('Write late.txt', ['printf x > late.txt']);
    const session = await readOnlySession();
    expect(await w.controller.submitPrompt(session.id, 'Write late.txt')).toBeNull();

    const item = await heldItem(w, session.id);
    expect(item.text).toBe(
      'Gemini CLI asks to run `printf x > late.txt` (the session is in Read Only mode)',
    );
    await turnOver(w, session.id);

    expect(toldModel(w, 'gemini', REJECTED)).toBe(true);
    expect(existsSync(join(session.worktreePath, 'late.txt'))).toBe(false);
    const entries = (await w.infra.store.transcript.list(session.id)).map((e) => e.content);
    expect(entries).toContainEqual(
      '[Denied] Gemini CLI asked to run `printf x > late.txt`; Grove denied it on timeout: nobody answered within 2s.',
    );
    expect(entries.filter((e) => e.startsWith('[Denied]'))).toHaveLength(1);
    expect(entries.filter((e) => e.includes('(failed)'))).toEqual([]);
    expect(await w.infra.store.approvals.get(item.approvalId ?? '')).toMatchObject({
      status: 'timedOut',
    });
    expect((await w.controller.inbox()).filter((i) => i.kind === 'approval')).toEqual([]);
  }, 120_000);
});
