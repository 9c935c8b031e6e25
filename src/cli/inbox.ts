// grove inbox: everything waiting on the person, across every project, as lines or JSON.
import type { Infra } from '../compose.js';
import { readInbox } from '../app/queries.js';
import { inboxItemJson, inboxLine } from '../domain/inbox.js';
import { EXIT, type HeadlessIo } from './headless.js';
import type { HeadlessCommand } from './args.js';

/** The JSON shape of one item of `grove inbox --json` (documented in docs/usage/cli.md). */
export const inboxJson = inboxItemJson;

export async function inboxCommand(
  infra: Infra,
  io: HeadlessIo,
  command: Extract<HeadlessCommand, { kind: 'inbox' }>,
): Promise<number> {
  const items = await readInbox({ store: infra.store, runtime: infra.runtime });
  if (command.json) {
    io.stdout.write(`${JSON.stringify(items.map(inboxJson), null, 2)}\n`);
    return EXIT.ok;
  }
  if (items.length === 0) {
    io.stdout.write('Nothing waits on you.\n');
    return EXIT.ok;
  }
  const now = infra.clock.now();
  for (const item of items) io.stdout.write(`${inboxLine(item, now)}\n`);
  return EXIT.ok;
}
