import { execFileSync } from 'node:child_process';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { describe, expect, it } from 'vitest';
import {
  inboxJson,
  setUpMcpClients,
  textOf,
  waitingItem,
  type InboxJson,
} from '../helpers/mcp-client.js';
import { withStore } from '../helpers/seed.js';
import { expectExit, fromSnapshot, reply, until, type Harness } from './headless-harness.js';
import { ConfirmationDecisionSchema } from './headless-schema.js';

// grove mcp's irreversible tools (issue 25, item 4), driven by the MCP SDK's
// own client against the built binary, a real repository and the real store:
// they exist only with mcp.irreversibleTools on, and even then a call only
// asks: nothing is merged until the person confirms the request from another
// process (`grove approve`), and the client can never confirm it itself.

const IRREVERSIBLE = [
  'grove_approve',
  'grove_cancel',
  'grove_deny',
  'grove_merge',
  'grove_publish',
];

const state = fromSnapshot(async (h) => {
  // A session in Review with one commit to merge; its title is hostile.
  h.utilities('Greet \u001b[2J\u001b]0;owned\u0007everyone');
  h.server.script('anthropic', [
    {
      when: 'Greet the team',
      toolCall: { kind: 'write_file', path: 'hello.txt', content: 'hi\n' },
    },
    { when: 'Greet the team', text: reply('Wrote it.') },
  ]);
  const run = await h.grove(['run', '--output', 'json', 'Greet the team']);
  expectExit(run, 0);
  return { sessionId: (JSON.parse(run.stdout) as { sessionId: string }).sessionId };
});

const mcp = setUpMcpClients();

async function setTools(h: Harness, value: string): Promise<void> {
  await withStore(h.world.groveHome, (store) =>
    store.settings.setGlobal('mcp.irreversibleTools', value),
  );
}

function connect(h: Harness, name?: string): Promise<Client> {
  return mcp.connect(h.env, h.repo, name);
}

function mainTip(h: Harness): string {
  return execFileSync('git', ['-C', h.repo, 'rev-parse', 'main'], { encoding: 'utf8' }).trim();
}

function mainHas(h: Harness, path: string): boolean {
  const files = execFileSync('git', ['-C', h.repo, 'ls-tree', '--name-only', 'main'], {
    encoding: 'utf8',
  });
  return files.split('\n').includes(path);
}

/** The confirmation the inbox shows (read by `grove inbox --json`, another process), once it is there. */
function waitingConfirmation(h: Harness): Promise<InboxJson> {
  return waitingItem((args) => h.grove(args), 'confirm');
}

async function sessionStatus(h: Harness, id: string): Promise<string> {
  const show = await h.grove(['show', id, '--json']);
  expectExit(show, 0);
  return (JSON.parse(show.stdout) as { status: string }).status;
}

describe('grove mcp with mcp.irreversibleTools', () => {
  it('offers none of the irreversible tools while the setting is off', async () => {
    const { h } = state;
    await setTools(h, 'off');
    const names = (await (await connect(h)).listTools()).tools.map((t) => t.name);
    expect(names).toContain('grove_reply');
    expect(names.filter((n) => IRREVERSIBLE.includes(n))).toEqual([]);
  });

  it('merges only once the person confirms the request from another process', async () => {
    const { h, made } = state;
    await setTools(h, 'on');
    const c = await connect(h, 'evil\u001b[31mclient');
    const names = (await c.listTools()).tools.map((t) => t.name);
    expect(names.filter((n) => IRREVERSIBLE.includes(n)).sort()).toEqual(IRREVERSIBLE);
    const before = mainTip(h);

    const call = c.callTool(
      { name: 'grove_merge', arguments: { id: made.sessionId, waitSeconds: 300 } },
      undefined,
      { timeout: 600_000 },
    );
    const item = await waitingConfirmation(h);
    // What the client and the session's agent wrote is shown without escape sequences.
    expect(item.text).toContain('asks to merge session Greet');
    expect(item.text).toContain('into main');
    expect(item.text).not.toContain('\u001b');
    expect(item.text).not.toContain('\u0007');
    // Asked, not done.
    expect(mainTip(h)).toBe(before);
    expect(await sessionStatus(h, made.sessionId)).toBe('Review');

    const approve = await h.grove(['approve', (item.confirmationId ?? '').slice(0, 8)]);
    expectExit(approve, 0);
    expect(approve.stdout).toContain('confirmed');

    const result = await call;
    expect(result.isError ?? false, textOf(result)).toBe(false);
    expect(JSON.parse(textOf(result))).toMatchObject({ sessionId: made.sessionId });
    expect(mainTip(h)).not.toBe(before);
    expect(mainHas(h, 'hello.txt')).toBe(true);
  });

  it('merges nothing when the person refuses, and the tool says so', async () => {
    const { h, made } = state;
    await setTools(h, 'on');
    const c = await connect(h);
    const before = mainTip(h);
    const call = c.callTool(
      { name: 'grove_merge', arguments: { id: made.sessionId, waitSeconds: 300 } },
      undefined,
      { timeout: 600_000 },
    );
    const item = await waitingConfirmation(h);
    const deny = await h.grove(['deny', item.id, '--json']);
    expectExit(deny, 0);
    expect(ConfirmationDecisionSchema.parse(JSON.parse(deny.stdout))).toMatchObject({
      confirmationId: item.confirmationId,
      sessionId: made.sessionId,
      decision: 'refused',
      action: 'merge',
      detail: null,
      client: 'grove-test',
    });

    const result = await call;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('did not confirm it (refused)');
    expect(mainTip(h)).toBe(before);
    expect(await sessionStatus(h, made.sessionId)).toBe('Review');
    const inbox = await inboxJson((args) => h.grove(args));
    expect(inbox.filter((i) => i.kind === 'confirm')).toEqual([]);
  });

  it('cancels the session only once the person confirms it (grove approve confirm:ID)', async () => {
    const { h, made } = state;
    await setTools(h, 'on');
    const c = await connect(h);
    const call = c.callTool(
      { name: 'grove_cancel', arguments: { id: made.sessionId, waitSeconds: 300 } },
      undefined,
      { timeout: 600_000 },
    );
    const item = await waitingConfirmation(h);
    expect(item.text).toContain('asks to cancel session Greet');
    expect(await sessionStatus(h, made.sessionId)).toBe('Review');
    expectExit(await h.grove(['approve', item.id]), 0);
    const result = await call;
    expect(result.isError ?? false, textOf(result)).toBe(false);
    expect(JSON.parse(textOf(result))).toMatchObject({ status: 'Canceled' });
    expect(await sessionStatus(h, made.sessionId)).toBe('Canceled');
  });

  it('returns "waiting for confirmation" when nobody answered in time, and cannot confirm its own request', async () => {
    const { h, made } = state;
    await setTools(h, 'on');
    const c = await connect(h);
    const before = mainTip(h);
    const waiting = await c.callTool({
      name: 'grove_merge',
      arguments: { id: made.sessionId, waitSeconds: 0 },
    });
    expect(waiting.isError ?? false).toBe(false);
    const asked = JSON.parse(textOf(waiting)) as { waiting: boolean; confirmation: string };
    expect(asked.waiting).toBe(true);
    expect(asked.confirmation).toMatch(/^confirm:/);

    for (const item of [asked.confirmation, asked.confirmation.slice('confirm:'.length, 16)]) {
      const self = await c.callTool({ name: 'grove_approve', arguments: { item } });
      expect(self.isError, textOf(self)).toBe(true);
      expect(textOf(self)).toContain('only the person answers one');
      const deny = await c.callTool({ name: 'grove_deny', arguments: { item } });
      expect(deny.isError, textOf(deny)).toBe(true);
    }
    // Still waiting for the person, and nothing merged.
    const item = await waitingConfirmation(h);
    expect(`confirm:${item.confirmationId ?? ''}`).toBe(asked.confirmation);
    expect(mainTip(h)).toBe(before);

    // The server ends: its request is refused (nobody would do it), and leaves the inbox.
    await mcp.close();
    await until('the request refused', async () => {
      const inbox = await inboxJson((args) => h.grove(args));
      return !inbox.some((i) => i.kind === 'confirm');
    });
    const late = await h.grove(['approve', asked.confirmation]);
    expectExit(late, 1);
    expect(late.stderr).toContain('already refused');
    expect(mainTip(h)).toBe(before);
  });
});
