import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EXIT } from '../../src/cli/headless.js';
import { APPROVAL_TIMEOUT_KEY } from '../../src/domain/approval.js';
import type { InboxItem } from '../../src/domain/inbox.js';
import { grove, heldItem, script, session as sessionOf, turnOver } from '../helpers/approvals.js';
import { makeReviewWorld, waitFor, type ReviewWorld } from '../helpers/review-world.js';

// Every decision on a held request is recorded in the session's transcript
// and in Grove's log (issue 25, item 2). The log is the real file Grove
// writes under GROVE_HOME (logs/grove.log); the requests come from the real,
// pinned Gemini CLI over ACP in a Read Only session (Claude Code refuses a
// command with control characters itself), and each names a command with
// escape sequences in it, which must reach the log only as the sanitizer's
// visible placeholders.

let w: ReviewWorld;

beforeEach(async () => {
  w = await makeReviewWorld();
});

afterEach(async () => {
  await w.controller.shutdown();
  await w.close();
});

/** A window title (OSC 0 … BEL), a screen clear (CSI 2J), an 8-bit CSI and a bidi override. */
const HOSTILE = '\u001b]0;owned\u0007\u001b[2J\u009b31m\u202e';
/** The same as the sanitizer shows it. */
const SHOWN = '␛]0;owned␇␛[2J␛[31m\\u202E';

const command = (letter: string): string => `printf ${letter} >> log.txt # ${letter}${HOSTILE}`;
const shown = (letter: string): string => `run \`printf ${letter} >> log.txt # ${letter}${SHOWN}\``;

interface LogLine {
  readonly level: string;
  readonly message: string;
  readonly detail: Record<string, unknown>;
}

/** Grove's log file, as written, and its lines about approvals. */
function groveLog(): { raw: string; approvals: LogLine[] } {
  const raw = readFileSync(join(w.world.groveHome, 'logs', 'grove.log'), 'utf8');
  const approvals = raw
    .split('\n')
    .map((line) => /^\S+ (\w+) (approval [^{]*?)(?: (\{.*\}))?$/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null)
    .map(([, level = '', message = '', detail]) => ({
      level,
      message,
      detail: detail ? (JSON.parse(detail) as Record<string, unknown>) : {},
    }));
  return { raw, approvals };
}

/** The control and bidi characters in `text` besides newline and tab, as code points. */
function controls(text: string): string[] {
  return [...text]
    .map((c) => c.codePointAt(0) ?? 0)
    .filter(
      (n) =>
        (n < 0x20 && n !== 0x0a && n !== 0x09) ||
        (n >= 0x7f && n <= 0x9f) ||
        (n >= 0x202a && n <= 0x202e) ||
        (n >= 0x2066 && n <= 0x2069),
    )
    .map((n) => `U+${n.toString(16).toUpperCase().padStart(4, '0')}`);
}

/** The session's next held request, once one other than `seen` waits. */
function nextHeld(sessionId: string, seen: readonly InboxItem[]): Promise<InboxItem> {
  return waitFor(
    'the next request held',
    async () =>
      (await w.controller.inbox()).find(
        (i) =>
          i.kind === 'approval' &&
          i.sessionId === sessionId &&
          !seen.some((s) => s.approvalId === i.approvalId),
      ),
    60_000,
  );
}

describe('approval decisions in the log', () => {
  it('approve once, approve for the session, deny and timeout are each logged with the session and the sanitized request', async () => {
    script(w, 'gemini', 'Log decisions', [command('a'), command('b'), command('b'), command('c')]);
    const session = await sessionOf(w, 'gemini', 'read_only');
    expect(await w.controller.submitPrompt(session.id, 'Log decisions')).toBeNull();

    const once = await heldItem(w, session.id);
    expect((await grove(w, 'approve', once.approvalId ?? '')).code).toBe(EXIT.ok);
    const forSession = await nextHeld(session.id, [once]);
    expect((await grove(w, 'approve', forSession.approvalId ?? '', '--session')).code).toBe(
      EXIT.ok,
    );
    // The second `b` passes by the session's grant; `c` is held next.
    const denied = await nextHeld(session.id, [once, forSession]);
    expect((await grove(w, 'deny', denied.approvalId ?? '')).code).toBe(EXIT.ok);
    await turnOver(w, session.id);
    expect(readFileSync(join(session.worktreePath, 'log.txt'), 'utf8')).toBe('abb');

    w.controller.setSetting(APPROVAL_TIMEOUT_KEY, '2s');
    await waitFor('the setting', () => w.app.state.settings[APPROVAL_TIMEOUT_KEY] === '2s');
    script(w, 'gemini', 'Then wait', [command('d')]);
    expect(await w.controller.submitPrompt(session.id, 'Then wait')).toBeNull();
    const late = await nextHeld(session.id, [once, forSession, denied]);
    await turnOver(w, session.id);
    expect(readFileSync(join(session.worktreePath, 'log.txt'), 'utf8')).toBe('abb');

    // The transcript has every decision, sanitized.
    const notices = await w.notices(session.id);
    expect(notices.filter((n) => /^\[(Approved|Denied)\]/.test(n))).toEqual([
      `[Approved] Gemini CLI asked to ${shown('a')}; you approved it once.`,
      `[Approved] Gemini CLI asked to ${shown('b')}; you approved it for this session.`,
      `[Approved] Gemini CLI asked to ${shown('b')}; it passed, as you approved it for this session earlier.`,
      `[Denied] Gemini CLI asked to ${shown('c')}; you denied it.`,
      `[Denied] Gemini CLI asked to ${shown('d')}; Grove denied it on timeout: nobody answered within 2s.`,
    ]);

    // The log has every decision: what the person chose, and what the waiting turn was answered.
    const { raw, approvals } = groveLog();
    const line = (message: string, id: string | undefined, what: string) => ({
      level: 'INFO',
      message,
      detail: expect.objectContaining({
        ...(id === undefined ? {} : { id }),
        sessionId: session.id,
        agent: 'Gemini CLI',
        what,
      }) as unknown,
    });
    // The person's line and the turn's come from two desks (the headless command's, the turn's).
    const decisions = approvals.filter((l) => l.message !== 'approval held');
    expect(decisions).toHaveLength(8);
    expect(decisions).toEqual(
      expect.arrayContaining([
        line('approval approved once by the person', once.approvalId, shown('a')),
        line('approval approved once', once.approvalId, shown('a')),
        line('approval approved for this session by the person', forSession.approvalId, shown('b')),
        line('approval approved for this session', forSession.approvalId, shown('b')),
        line('approval granted by a session grant', undefined, shown('b')),
        line('approval denied by the person', denied.approvalId, shown('c')),
        line('approval denied', denied.approvalId, shown('c')),
        line('approval denied on timeout', late.approvalId, shown('d')),
      ]),
    );
    expect(approvals.filter((l) => l.message === 'approval held')).toHaveLength(4);

    // No byte of the escape sequences reaches the log as it was sent.
    expect(raw).toContain('␛]0;owned␇␛[2J␛[31m');
    expect(controls(raw)).toEqual([]);
  }, 240_000);
});
