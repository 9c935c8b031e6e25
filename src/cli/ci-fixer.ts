// grove ci-fixer ID on|off|project: a session's own CI fixer switch over the
// project's github.ciFixer setting.
import type { Infra } from '../compose.js';
import { ciFixerOn, ciFixerSwitchNote } from '../domain/ci-fixer.js';
import { loadSettings } from '../app/services/projects.js';
import type { HeadlessCommand } from './args.js';
import { printJson } from './command-json.js';
import { EXIT, findSession, type HeadlessIo } from './headless.js';

export async function ciFixerCommand(
  infra: Infra,
  io: HeadlessIo,
  command: Extract<HeadlessCommand, { kind: 'ci-fixer' }>,
): Promise<number> {
  const session = await findSession(infra, command.id);
  const now = infra.clock.now();
  await infra.store.sessions.update(session.id, { ciFixer: command.own }, now);
  const settings = await loadSettings(infra.store, session.projectId);
  // The same line the TUI's /ci-fixer leaves in the transcript.
  const note = ciFixerSwitchNote(settings, command.own);
  await infra.store.transcript.append(session.id, 'notice', note, now);
  if (command.json) {
    printJson(io, {
      sessionId: session.id,
      ciFixer: command.own,
      on: ciFixerOn(settings, command.own),
    });
    return EXIT.ok;
  }
  io.stdout.write(`${note.replace(/^\[CI Fixer\] /, 'CI fixer: ')}\n`);
  return EXIT.ok;
}
