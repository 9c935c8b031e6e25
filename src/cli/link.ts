// grove link ID --issue N|URL, grove link ID --unlink: the GitHub issue a session works on.
import type { Infra } from '../compose.js';
import { readIssue, sessionIssue } from '../app/services/issues.js';
import type { HeadlessCommand } from './args.js';
import { printJson } from './command-json.js';
import { CommandError, EXIT, findSession, type HeadlessIo } from './headless.js';

export async function linkCommand(
  infra: Infra,
  io: HeadlessIo,
  command: Extract<HeadlessCommand, { kind: 'link' }>,
): Promise<number> {
  const session = await findSession(infra, command.id);
  const project = await infra.store.projects.get(session.projectId);
  if (!project) throw new CommandError('The session has no project.', EXIT.failed);
  let issue = null;
  if (command.issue !== null) {
    const read = await readIssue(
      { git: infra.git, forge: infra.forge },
      project.path,
      command.issue,
      AbortSignal.timeout(60_000),
    ).catch((error: unknown) => {
      const message = error instanceof Error ? error.message : String(error);
      throw new CommandError(`${message}\nThe session's link was not changed.`, EXIT.failed);
    });
    issue = sessionIssue(read);
  }
  await infra.store.sessions.update(session.id, { issue }, infra.clock.now());
  if (command.json) {
    printJson(io, { sessionId: session.id, issue });
    return EXIT.ok;
  }
  io.stdout.write(
    issue
      ? `Linked to issue #${issue.number} ${issue.title}: ${issue.url}\nIts pull request will say Closes #${issue.number} (the next publish adds it).\n`
      : session.issue
        ? `Unlinked from issue #${session.issue.number}.\n`
        : 'The session was not linked to an issue.\n',
  );
  return EXIT.ok;
}
