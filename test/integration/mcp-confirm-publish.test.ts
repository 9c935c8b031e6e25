import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  env,
  github,
  grove,
  load,
  model,
  remoteHead,
  repo,
  store,
  workId,
} from '../helpers/github-world.js';
import { git } from '../helpers/grove-env.js';
import {
  inboxJson,
  setUpMcpClients,
  textOf,
  waitingItem,
  type InboxJson,
  type ToolResult,
} from '../helpers/mcp-client.js';
import { reply, setUpPublishWorld } from '../helpers/publish-world.js';
import { LandSchema } from './headless-schema.js';

// grove mcp's grove_publish and grove_approve end to end (issue 25, item 4):
// the MCP SDK's own client on the built binary, the GitHub stand-in, the real
// Claude Code CLI against the fake model server holding a real request in a
// Read Only session, real git and SQLite. A call only asks; the pull request
// is opened, or the agent's request approved, only once the person confirms
// with `grove approve confirm:ID` from another process, and a refusal does
// nothing. grove_merge and grove_cancel: mcp-confirm.test.ts.

setUpPublishWorld();
const mcp = setUpMcpClients();

/** A client of `grove mcp` on the project, with mcp.irreversibleTools on. */
async function client() {
  await store().store.settings.setGlobal('mcp.irreversibleTools', 'on');
  return mcp.connect(env, repo);
}

/** Calls `name` and leaves it waiting for the person (up to 5 minutes). */
function ask(c: Awaited<ReturnType<typeof client>>, name: string, args: Record<string, unknown>) {
  return c.callTool({ name, arguments: { ...args, waitSeconds: 300 } }, undefined, {
    timeout: 600_000,
  });
}

/** The waiting confirmation, as `grove inbox --json` shows it. */
const confirmation = (): Promise<InboxJson> => waitingItem(grove, 'confirm');

function expectOk(result: ToolResult): void {
  expect(result.isError ?? false, textOf(result)).toBe(false);
}

function expectRefused(result: ToolResult): void {
  expect(result.isError, textOf(result)).toBe(true);
  expect(textOf(result)).toContain('did not confirm it (refused)');
}

describe('grove_publish', () => {
  it('opens the pull request only once the person confirms it', async () => {
    const session = await load(workId);
    const c = await client();
    const call = ask(c, 'grove_publish', { id: workId });

    const item = await confirmation();
    expect(item.text).toContain('asks to publish session Add a greeting file');
    // Asked, not done: nothing pushed, no pull request.
    expect(remoteHead(session.branch)).toBeNull();
    expect(github.pulls).toEqual([]);

    const approved = await grove(['approve', item.id]);
    expect(approved.code, approved.stderr).toBe(0);

    const result = await call;
    expectOk(result);
    // What `grove publish --json` prints (LandSchema), with the warnings.
    const { warnings, ...landed } = JSON.parse(textOf(result)) as Record<string, unknown>;
    expect(warnings).toEqual([]);
    expect(LandSchema.parse(landed)).toMatchObject({
      sessionId: workId,
      pullRequest: { number: 1, url: 'https://github.com/acme/widgets/pull/1', state: 'open' },
    });
    expect(github.pulls.map((p) => p.head)).toEqual([session.branch]);
    expect(remoteHead(session.branch)).toBe((await load(workId)).headCommit);
    expect((await load(workId)).reviewRequest?.number).toBe(1);
    expect((await inboxJson(grove)).filter((i) => i.kind === 'confirm')).toEqual([]);
  });

  it('publishes to the remote branch the client names, shown in the request, once confirmed', async () => {
    const c = await client();
    const call = ask(c, 'grove_publish', { id: workId, branch: 'feature/greeting' });

    const item = await confirmation();
    expect(item.text).toContain(
      'asks to publish session Add a greeting file as a pull request from branch feature/greeting',
    );
    expect(remoteHead('feature/greeting')).toBeNull();
    expect((await grove(['approve', item.id])).code).toBe(0);

    expectOk(await call);
    expect(github.pulls.map((p) => p.head)).toEqual(['feature/greeting']);
    expect(remoteHead('feature/greeting')).toBe((await load(workId)).headCommit);
  });

  it('refuses at once, asking nothing, to publish to the base branch', async () => {
    const c = await client();
    const main = git(repo, 'rev-parse', 'main');

    const result = await ask(c, 'grove_publish', { id: workId, branch: 'main' });

    expect(result.isError, textOf(result)).toBe(true);
    expect(textOf(result)).toContain(`"main" is the session's base branch`);
    expect(await inboxJson(grove)).toEqual([]);
    expect(remoteHead('main')).toBe(main);
    expect(github.pulls).toEqual([]);
  });

  it('pushes nothing and opens nothing when the person refuses', async () => {
    const session = await load(workId);
    const c = await client();
    const call = ask(c, 'grove_publish', { id: workId });
    const item = await confirmation();

    const denied = await grove(['deny', item.id]);
    expect(denied.code, denied.stderr).toBe(0);

    expectRefused(await call);
    expect(remoteHead(session.branch)).toBeNull();
    expect(github.pulls).toEqual([]);
    expect((await load(workId)).reviewRequest).toBeNull();
    expect(await inboxJson(grove)).toEqual([]);
  });
});

describe('grove_approve', () => {
  /** `grove run` in a Read Only session whose agent runs a Bash command: held for the person. */
  async function heldRun() {
    model.script('anthropic', [
      { when: 'Write a title for a coding task', text: reply('Append a mark') },
      { when: 'Write the git commit message for the changes', text: reply('Append a mark') },
      { when: 'Append a mark', toolCall: { kind: 'shell', command: 'printf x >> mark.txt' } },
      { when: 'Append a mark', text: reply('Appended.') },
    ]);
    const run = grove(['run', '--mode', 'read-only', '--output', 'json', 'Append a mark']);
    const held = await waitingItem(grove, 'approval');
    const session = await load(held.sessionId);
    const mark = join(session.worktreePath, 'mark.txt');
    return { run, held, mark };
  }

  it("approves the agent's held request only once the person confirms it", async () => {
    const { run, held, mark } = await heldRun();
    const c = await client();
    const call = ask(c, 'grove_approve', { item: held.approvalId });

    const item = await confirmation();
    expect(item.sessionId).toBe(held.sessionId);
    expect(item.text).toContain('asks to approve');
    expect(item.text).toContain('printf x >> mark.txt');
    // Asked, not done: the agent's request still waits, and nothing ran.
    expect((await inboxJson(grove)).map((i) => i.kind).sort()).toEqual(['approval', 'confirm']);
    expect(existsSync(mark)).toBe(false);

    const approved = await grove(['approve', item.id]);
    expect(approved.code, approved.stderr).toBe(0);

    const result = await call;
    expectOk(result);
    expect(textOf(result)).toBe('approved once: Claude Code asked to run `printf x >> mark.txt`');
    const ended = await run;
    expect(ended.code, ended.stderr).toBe(0);
    expect(readFileSync(mark, 'utf8')).toBe('x');
    expect(await inboxJson(grove)).toEqual([]);
  });

  it("leaves the agent's request waiting when the person refuses, and the command never runs", async () => {
    const { run, held, mark } = await heldRun();
    const c = await client();
    const call = ask(c, 'grove_approve', { item: held.approvalId });
    const item = await confirmation();

    const denied = await grove(['deny', item.id]);
    expect(denied.code, denied.stderr).toBe(0);

    expectRefused(await call);
    expect((await inboxJson(grove)).map((i) => [i.kind, i.approvalId])).toEqual([
      ['approval', held.approvalId],
    ]);
    expect(existsSync(mark)).toBe(false);

    // The person denies the request itself: the turn goes on without it.
    expect((await grove(['deny', held.approvalId ?? ''])).code).toBe(0);
    const ended = await run;
    expect(ended.code, ended.stderr).toBe(0);
    expect(existsSync(mark)).toBe(false);
  });
});
