// grove ls: the project's sessions (the archive with --all), as lines or JSON.
import type { Infra } from '../compose.js';
import { orderedSessions } from '../domain/session-order.js';
import { activeWorkSeconds, formatDuration, shortId } from '../domain/session.js';
import { EXIT, openProject, type HeadlessIo } from './headless.js';
import { listItem, sampleAgents, worktreeBytes } from './session-json.js';
import type { HeadlessCommand } from './args.js';

export async function lsCommand(
  infra: Infra,
  io: HeadlessIo,
  command: Extract<HeadlessCommand, { kind: 'ls' }>,
): Promise<number> {
  const project = await openProject(infra, io, command.dir);
  // Without --all, only the live sessions are read (the archive has its own index).
  const sessions = orderedSessions(
    command.all
      ? await infra.store.sessions.listByProject(project.id)
      : await infra.store.sessions.listLive(project.id),
    await infra.store.groups.listByProject(project.id),
  );
  const now = infra.clock.now();
  if (command.json) {
    const sample = await sampleAgents(infra.paths.run);
    const items = [];
    for (const s of sessions) items.push(listItem(s, now, sample, await worktreeBytes(s)));
    io.stdout.write(`${JSON.stringify(items, null, 2)}\n`);
    return EXIT.ok;
  }
  if (sessions.length === 0) {
    io.stdout.write(
      command.all ? 'No sessions.\n' : 'No active sessions (grove ls --all shows the archive).\n',
    );
    return EXIT.ok;
  }
  for (const s of sessions) {
    io.stdout.write(
      `${shortId(s.id)}  ${s.status.padEnd(11)} [${s.size}]`.padEnd(30) +
        ` ${formatDuration(activeWorkSeconds(s, now)).padStart(7)}  ${s.agent}/${s.model}${s.host ? ` @${s.host}` : ''}  ${s.title || '(untitled)'}\n`,
    );
  }
  return EXIT.ok;
}
