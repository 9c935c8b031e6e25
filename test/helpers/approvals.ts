// Helpers of the approval tests (test/integration/approvals-*.test.ts): a
// headless command on the world's store, the held request's inbox item, the
// end of a session's turn.
import { PassThrough } from 'node:stream';
import { parseHeadless } from '../../src/cli/args.js';
import { runHeadless } from '../../src/cli/dispatch.js';
import type { InboxItem } from '../../src/domain/inbox.js';
import { waitFor, type ReviewWorld } from './review-world.js';

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
