import { describe, expect, it } from 'vitest';
import {
  approvalScope,
  approvalTimeoutMs,
  approvalWhat,
  type HeldApproval,
} from '../../src/domain/approval.js';
import { deriveInbox, type InboxItem } from '../../src/domain/inbox.js';
import { hardDenial, holdRequest, type ApprovalAsk } from '../../src/infra/agent/approval.js';
import { parseHeadless } from '../../src/cli/args.js';
import { makeSession } from '../helpers/session-factory.js';
import { pressKeys } from '../helpers/keys.js';
import { bareState } from '../helpers/state.js';

// Which denials the person may grant (never what Grove's trust rules
// forbid), what a session approval covers, and the inbox item of a held
// request.

const WT = '/home/me/.grove/wt/project-1234abcd';

const command = (over: Partial<Extract<ApprovalAsk, { kind: 'command' }>> = {}): ApprovalAsk => ({
  kind: 'command',
  command: 'npm test',
  cwd: WT,
  paths: [],
  escalation: true,
  ...over,
});

describe('holdRequest', () => {
  it('holds an escalated command inside the worktree, with its command line and no folder', () => {
    expect(holdRequest('Codex', WT, command(), 'it asked to run outside the sandbox')).toEqual({
      agent: 'Codex',
      kind: 'command',
      subject: 'npm test',
      cwd: null,
      reason: 'it asked to run outside the sandbox',
    });
  });

  it('names a sub-folder the command runs in, relative to the worktree', () => {
    expect(holdRequest('Codex', WT, command({ cwd: `${WT}/pkg` }), 'r')?.cwd).toBe('pkg');
  });

  it.each([
    ['a command that runs outside the worktree', command({ cwd: '/home/me' })],
    ['a command naming a path outside it', command({ command: 'cp a ../elsewhere/a' })],
    ['a command naming a secret in the home folder', command({ command: 'cat ~/.ssh/id_ed25519' })],
    ['a command writing into .git', command({ command: 'printf x > .git/hooks/pre-commit' })],
    ['a command whose actions name .git', command({ paths: ['.git/config'] })],
    [
      'an edit outside the worktree',
      { kind: 'edit', paths: ['/home/me/.bashrc'], grantRoot: null },
    ],
    [
      'an edit into .git',
      { kind: 'edit', paths: [`${WT}/.git/hooks/post-merge`], grantRoot: null },
    ],
    ['an edit whose files are not known', { kind: 'edit', paths: [], grantRoot: WT }],
    ['more permissions', { kind: 'permissions', what: 'network access' }],
  ] as [string, ApprovalAsk][])('never holds %s: Grove denies it itself', (_name, ask) => {
    expect(hardDenial(WT, ask)).not.toBeNull();
    expect(holdRequest('Codex', WT, ask, 'the session is in Read Only mode')).toBeNull();
  });

  it('holds an edit of files inside the worktree (Read Only would deny it)', () => {
    const ask: ApprovalAsk = { kind: 'edit', paths: [`${WT}/src/a.ts`, 'b.ts'], grantRoot: null };
    expect(holdRequest('Gemini CLI', WT, ask, 'the session is in Read Only mode')).toMatchObject({
      kind: 'edit',
      subject: 'src/a.ts, b.ts',
    });
  });

  it('lets a command name system folders', () => {
    expect(
      hardDenial(WT, command({ command: '/bin/bash -lc "ls /usr/lib > /dev/null"' })),
    ).toBeNull();
  });
});

describe('approvalScope', () => {
  it('of a network request is its host and port, in any case, and no other port', () => {
    expect(approvalScope('network', 'Example.ORG:443', null)).toBe(
      approvalScope('network', 'example.org:443', null),
    );
    expect(approvalScope('network', 'example.org:8443', null)).not.toBe(
      approvalScope('network', 'example.org:443', null),
    );
  });

  it('is the same for the same command line (white space aside) in the same folder', () => {
    expect(approvalScope('command', 'npm  test', null)).toBe(
      approvalScope('command', 'npm test', null),
    );
  });

  it('differs for a longer command, another folder, or an edit', () => {
    const base = approvalScope('command', 'npm test', null);
    expect(approvalScope('command', 'npm test -- --watch', null)).not.toBe(base);
    expect(approvalScope('command', 'npm test', 'pkg')).not.toBe(base);
    expect(approvalScope('edit', 'npm test', null)).not.toBe(base);
  });

  it('covers the same set of files in any order for an edit', () => {
    expect(approvalScope('edit', 'b.ts, a.ts', null)).toBe(
      approvalScope('edit', 'a.ts, b.ts', null),
    );
    expect(approvalScope('edit', 'a.ts', null)).not.toBe(approvalScope('edit', 'a.ts, b.ts', null));
  });
});

describe('the approval timeout setting', () => {
  it.each([
    ['30s', 30_000],
    ['10m', 600_000],
    ['1h', 3_600_000],
    ['soon', null],
    ['0s', null],
  ] as const)('reads %s', (text, ms) => {
    expect(approvalTimeoutMs(text)).toBe(ms);
  });
});

const NOW = 1_800_000_000_000;

function held(sessionId: string, over: Partial<HeldApproval> = {}): HeldApproval {
  return {
    id: '1a2b3c4d-0000-4000-8000-000000000000',
    sessionId,
    agent: 'Codex',
    kind: 'command',
    subject: 'curl https://x \x1b[2Jrm -rf /tmp/y',
    cwd: null,
    reason: 'it asked to run outside the sandbox',
    scope: 's',
    status: 'waiting',
    createdAt: NOW - 1000,
    expiresAt: NOW + 60_000,
    decidedAt: null,
    ...over,
  };
}

describe('an approval in the inbox', () => {
  const session = makeSession('InProgress', { projectId: 1 });
  const inbox = (approvals: HeldApproval[]): InboxItem[] =>
    deriveInbox(
      {
        projects: [{ id: 1, displayName: 'alpha' }],
        sessions: [session],
        operations: [],
        reviewThreads: [],
        budgetStops: new Map(),
        approvals,
      },
      NOW,
    );

  it('shows the exact command sanitized, the agent, the session, and how to answer', () => {
    const [item] = inbox([held(session.id)]);
    expect(item).toMatchObject({
      id: 'approval:1a2b3c4d-0000-4000-8000-000000000000',
      kind: 'approval',
      sessionId: session.id,
      until: NOW + 60_000,
      approvalId: '1a2b3c4d-0000-4000-8000-000000000000',
    });
    expect(item?.text).toMatch(
      /^Codex asks to run `curl https:\/\/x .*rm -rf \/tmp\/y` \(it asked/,
    );
    expect(item?.text).not.toContain('\x1b');
    expect(item?.action).toContain('grove approve 1a2b3c4d');
    expect(approvalWhat(held(session.id))).not.toContain('\x1b');
  });

  it('shows a network request with its host and port, sanitized, and offers L', () => {
    const [item] = inbox([
      held(session.id, {
        agent: 'Claude Code',
        kind: 'network',
        subject: 'ev\x1b[2Jil.test:443',
        reason: 'not in agents.network.allow',
      }),
    ]);
    expect(item?.text).toMatch(
      /^Claude Code asks to connect to ev.*il\.test:443 \(not in agents\.network\.allow\)$/,
    );
    expect(item?.text).not.toContain('\x1b');
    expect(item?.approvalKind).toBe('network');
    expect(item?.action).toContain('L: add to the allowed hosts');
    expect(item?.action).toContain('--allow-list');
  });

  it('leaves out a request that was decided or has expired', () => {
    expect(inbox([held(session.id, { status: 'once' })])).toEqual([]);
    expect(inbox([held(session.id, { expiresAt: NOW })])).toEqual([]);
  });
});

describe('the inbox keys on an approval', () => {
  const approval: InboxItem = {
    id: 'approval:abc',
    kind: 'approval',
    sessionId: 's1',
    projectId: 1,
    project: 'p',
    session: 't',
    since: 1,
    until: 2,
    text: 'Codex asks to run `x`',
    action: 'a / A / d',
    approvalId: 'abc',
  };
  const network: InboxItem = { ...approval, approvalKind: 'network' };
  const question: InboxItem = { ...approval, id: 'question:s1', kind: 'question' };
  delete (question as { approvalId?: string }).approvalId;

  it.each([
    ['a', 'once'],
    ['A', 'session'],
    ['d', 'denied'],
  ] as const)('%s answers the highlighted request (%s)', (key, choice) => {
    const run = pressKeys(bareState({ inbox: [approval], inboxView: { cursor: 0 } }), [key]);
    expect(run.calls).toEqual([{ method: 'decideApproval', args: ['abc', choice] }]);
  });

  it('L adds a network request to the allow list', () => {
    const run = pressKeys(bareState({ inbox: [network], inboxView: { cursor: 0 } }), ['L']);
    expect(run.calls).toEqual([{ method: 'decideApproval', args: ['abc', 'allowList'] }]);
  });

  it('L does nothing on an approval that is no network request', () => {
    const run = pressKeys(bareState({ inbox: [approval], inboxView: { cursor: 0 } }), ['L']);
    expect(run.calls).toEqual([]);
  });

  it('does nothing on an item that is no approval', () => {
    const run = pressKeys(bareState({ inbox: [question], inboxView: { cursor: 0 } }), ['a', 'd']);
    expect(run.calls).toEqual([]);
  });
});

describe('grove approve and grove deny', () => {
  it.each([
    [
      ['1a2b3c4d'],
      { kind: 'approve', item: '1a2b3c4d', session: false, allowList: false, json: false },
    ],
    [
      ['1a2b3c4d', '--once'],
      { kind: 'approve', item: '1a2b3c4d', session: false, allowList: false, json: false },
    ],
    [
      ['approval:1a2b', '--session'],
      { kind: 'approve', item: 'approval:1a2b', session: true, allowList: false, json: false },
    ],
    [
      ['1a2b3c4d', '--allow-list'],
      { kind: 'approve', item: '1a2b3c4d', session: false, allowList: true, json: false },
    ],
    [
      ['1a2b3c4d', '--json'],
      { kind: 'approve', item: '1a2b3c4d', session: false, allowList: false, json: true },
    ],
  ] as const)('grove approve %j', (args, parsed) => {
    expect(parseHeadless('approve', args)).toEqual(parsed);
  });

  it('grove deny ITEM [--json]', () => {
    expect(parseHeadless('deny', ['1a2b3c4d'])).toEqual({
      kind: 'deny',
      item: '1a2b3c4d',
      json: false,
    });
    expect(parseHeadless('deny', ['1a2b3c4d', '--json'])).toMatchObject({ json: true });
  });

  it.each([
    ['approve', ['1a2b', '--once', '--session'], /one of --once, --session, --allow-list/],
    ['approve', ['1a2b', '--session', '--allow-list'], /one of --once, --session, --allow-list/],
    ['approve', [], /approve needs an ITEM/],
    ['deny', [], /deny needs an ITEM/],
    ['deny', ['1a2b', '--session'], /session/],
  ] as const)('grove %s %j is a usage error', (name, args, message) => {
    expect(() => parseHeadless(name, args)).toThrow(message);
  });
});
