import { describe, expect, it } from 'vitest';
import {
  MCP_IRREVERSIBLE_KEY,
  clientName,
  confirmWhat,
  type Confirmation,
} from '../../src/domain/confirmation.js';
import { deriveInbox, inboxItemJson, type InboxItem } from '../../src/domain/inbox.js';
import { SETTING_ROWS } from '../../src/domain/settings.js';
import { inboxCommandLine } from '../../src/domain/webhook.js';
import { makeSession } from '../helpers/session-factory.js';
import { pressKeys } from '../helpers/keys.js';
import { bareState } from '../helpers/state.js';

// An MCP client's irreversible request (issue 25, item 4) as the inbox shows
// it: the client is an agent, so its name and the argument it passed are
// shown sanitized, on one line; only a waiting, unexpired request is listed;
// the inbox's keys answer it.

const NOW = 1_800_000_000_000;

function confirmation(sessionId: string, over: Partial<Confirmation> = {}): Confirmation {
  return {
    id: '9f8e7d6c-0000-4000-8000-000000000000',
    sessionId,
    action: 'merge',
    detail: null,
    client: 'claude-code',
    owner: 'host:1:1',
    status: 'waiting',
    outcome: null,
    createdAt: NOW - 5_000,
    expiresAt: NOW + 60_000,
    decidedAt: null,
    ...over,
  };
}

function inboxOf(session: ReturnType<typeof makeSession>, confirmations: Confirmation[]) {
  return deriveInbox(
    {
      projects: [{ id: session.projectId, displayName: 'alpha' }],
      sessions: [session],
      operations: [],
      reviewThreads: [],
      budgetStops: new Map(),
      confirmations,
    },
    NOW,
  );
}

describe('a confirmation in the inbox', () => {
  it('says which client asks what, sanitized, with the keys and commands that answer it', () => {
    const s = makeSession('Review', { title: 'Add \x1b[2Jlogin', baseBranch: 'main' });
    const [item] = inboxOf(s, [
      confirmation(s.id, {
        action: 'publish',
        client: 'evil\x1b]0;title\x07\nclient',
        detail: 'feat\x1b[31m\nx',
      }),
    ]);
    expect(item).toMatchObject({
      id: 'confirm:9f8e7d6c-0000-4000-8000-000000000000',
      kind: 'confirm',
      confirmationId: '9f8e7d6c-0000-4000-8000-000000000000',
      until: NOW + 60_000,
    });
    expect(item?.text).toMatch(/^the MCP client evil.*asks to publish session Add .*login/);
    expect([...(item?.text ?? '')].filter((ch) => ch < ' ')).toEqual([]);
    expect(item?.action).toContain('grove approve 9f8e7d6c');
    expect(inboxItemJson(item as InboxItem)).toMatchObject({
      confirmationId: item?.confirmationId,
    });
    expect(inboxCommandLine(item as InboxItem)).toBe(
      'grove approve 9f8e7d6c (or grove deny 9f8e7d6c)',
    );
  });

  it.each([
    ['decided', { status: 'refused' as const }],
    ['expired', { expiresAt: NOW }],
  ])('is not listed once %s', (_, over) => {
    const s = makeSession('Review');
    expect(inboxOf(s, [confirmation(s.id, over)])).toEqual([]);
  });

  it('names each action in words', () => {
    const request = { detail: null };
    expect(confirmWhat({ ...request, action: 'merge' }, 'T', 'main')).toBe(
      'merge session T into main',
    );
    expect(confirmWhat({ ...request, action: 'cancel' }, 'T', 'main')).toBe('cancel session T');
    expect(confirmWhat({ action: 'approve', detail: 'ab12cd34 (Codex …)' }, 'T', 'main')).toBe(
      'approve request ab12cd34 (Codex …) of session T once',
    );
    expect(clientName('  ')).toBe('an MCP client');
  });

  it("cuts a long detail at 200 characters and says so with …, so an agent's request never hides its end", () => {
    const command = `echo ${'a'.repeat(250)}; rm -rf ~`;
    const what = confirmWhat(
      { action: 'approve', detail: `ab12cd34 (Claude Code asks to run \`${command}\`)` },
      'T',
      'main',
    );
    expect(what).toMatch(
      /^approve request ab12cd34 \(Claude Code asks to run `echo a+… of session T once$/,
    );
    expect(what.length).toBe('approve request '.length + 200 + ' of session T once'.length);
    const short = confirmWhat({ action: 'publish', detail: 'feature/x' }, 'T', 'main');
    expect(short).toBe('publish session T as a pull request from branch feature/x');
  });
});

describe('the inbox keys on a confirmation', () => {
  const item: InboxItem = {
    id: 'confirm:abc',
    kind: 'confirm',
    sessionId: 's1',
    projectId: 1,
    project: 'p',
    session: 't',
    since: 1,
    until: 2,
    text: 'the MCP client x asks to merge session t into main',
    action: 'a / d',
    confirmationId: 'abc',
  };

  it.each([
    ['a', true],
    ['A', true],
    ['d', false],
  ] as const)('%s answers it (confirm: %s)', (key, confirm) => {
    const run = pressKeys(bareState({ inbox: [item], inboxView: { cursor: 0 } }), [key]);
    expect(run.calls).toEqual([{ method: 'decideConfirmation', args: ['abc', confirm] }]);
  });
});

describe('the mcp.irreversibleTools setting', () => {
  it('is global, off unless the person turns it on', () => {
    const row = SETTING_ROWS.find((r) => r.key === MCP_IRREVERSIBLE_KEY);
    expect(row).toMatchObject({ scope: 'global', kind: 'choice' });
    expect(row?.fallback({})).toBe('off');
    expect(row?.choices({})).toEqual(['off', 'on']);
  });
});
