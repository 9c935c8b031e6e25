// Helpers of the approval tests (test/integration/approvals-*.test.ts): a
// session of an agent in a mode, the model's scripted commands, a headless
// command on the world's store, the held request's inbox item, the end of a
// session's turn, and what the agent told its model.
import { PassThrough } from 'node:stream';
import { parseHeadless } from '../../src/cli/args.js';
import { runHeadless } from '../../src/cli/dispatch.js';
import type { InboxItem } from '../../src/domain/inbox.js';
import type { PermissionMode } from '../../src/domain/permission-mode.js';
import type { Session } from '../../src/domain/session.js';
import type { ApiName } from './fake-model/server.js';
import { reply, waitFor, type ReviewWorld } from './review-world.js';

/** The agents of the approval tests, with the model each asks the fake server for. */
export const AGENTS = {
  claude: { agent: 'claude', model: 'sonnet', reasoning: 'high' },
  codex: { agent: 'codex', model: 'gpt-5.5', reasoning: 'high' },
  gemini: { agent: 'gemini', model: 'gemini-test', reasoning: 'default' },
} as const;

/** A ready session of `agent` in `mode` (the project's default mode when absent), shown in the app. */
export async function session(
  w: ReviewWorld,
  agent: keyof typeof AGENTS,
  mode?: PermissionMode,
): Promise<Session> {
  const created = await w.controller.sessions.create(
    w.projectId,
    AGENTS[agent],
    w.app.state.settings,
    mode,
  );
  await w.controller.sessions.whenReady(created.id);
  w.app.emit({ type: 'sessionUpdated', session: created });
  return created;
}

/** The model's steps for `task`: each command as a shell tool call (Codex: asked with escalation), then the reply. */
export function script(
  w: ReviewWorld,
  api: ApiName,
  task: string,
  commands: readonly string[],
  escalate = false,
): void {
  w.server.script(api, [
    ...commands.map((command) => ({
      when: task,
      toolCall: { kind: 'shell' as const, command, ...(escalate ? { escalate } : {}) },
    })),
    { when: task, text: reply('Finished.') },
  ]);
}

/** True when a request the agent sent its model carries `text` (a tool result it was given). */
export function toldModel(w: ReviewWorld, api: ApiName, text: string): boolean {
  return w.server.modelRequests(api).some((r) => JSON.stringify(r.body).includes(text));
}

/** Runs a headless command as `grove NAME ARGS` would, on the world's store. */
export async function grove(
  w: ReviewWorld,
  name: 'approve' | 'deny' | 'inbox',
  ...rest: string[]
): Promise<{ code: number; out: string; err: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (d: Buffer) => (out += d.toString()));
  stderr.on('data', (d: Buffer) => (err += d.toString()));
  const code = await runHeadless(parseHeadless(name, rest), w.infra, {
    stdout,
    stderr,
    stdin: Object.assign(new PassThrough(), { isTTY: false }),
    stderrIsTTY: false,
    env: process.env,
    cwd: w.repo,
  });
  return { code, out, err };
}

/** The session's approval item, once the request is held. */
export function heldItem(w: ReviewWorld, sessionId: string): Promise<InboxItem> {
  return waitFor(
    'the request held in the inbox',
    async () =>
      (await w.controller.inbox()).find((i) => i.kind === 'approval' && i.sessionId === sessionId),
    60_000,
  );
}

/** Resolves when the session has no unfinished operation left (its turn is over). */
export async function turnOver(w: ReviewWorld, sessionId: string): Promise<void> {
  await waitFor(
    'the turn to end',
    async () => (await w.infra.store.operations.listUnfinished(sessionId)).length === 0,
    60_000,
  );
}
