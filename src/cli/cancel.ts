// grove cancel: a session stopped and canceled (its work kept on a branch), --yes when work is at risk.
import type { Infra } from '../compose.js';
import {
  CommandError,
  EXIT,
  findSession,
  headlessContext,
  stopOtherProcesses,
  type HeadlessIo,
} from './headless.js';
import { cancelLines } from '../app/popups.js';
import type { HeadlessCommand } from './args.js';
import { cancelJson, printJson } from './command-json.js';

export async function cancelCommand(
  infra: Infra,
  io: HeadlessIo,
  command: Extract<HeadlessCommand, { kind: 'cancel' }>,
): Promise<number> {
  const session = await findSession(infra, command.id);
  const project = await infra.store.projects.get(session.projectId);
  const ctx = await headlessContext(infra, io, project?.path ?? command.dir, io.stderrIsTTY);
  if (['Done', 'Canceled', 'Merged', 'Merging', 'Rebasing'].includes(session.status))
    throw new CommandError(`a ${session.status} session cannot be canceled.`, EXIT.failed);
  const risk = await ctx.queries.workAtRisk(session);
  // Nothing can be lost without work on the branch or in the worktree (or a turn that may be making some).
  const atRisk =
    risk.uncommitted > 0 || risk.unmergedCommits > 0 || session.status === 'InProgress';
  if (!command.yes && atRisk) {
    throw new CommandError(
      `${cancelLines(session, risk).join('\n')}\nRun again with --yes to cancel.`,
      EXIT.usage,
    );
  }
  await stopOtherProcesses(ctx, session.id);
  await ctx.intents.cancelSession(session.id);
  const final = (await infra.store.sessions.get(session.id)) ?? session;
  if (command.json) printJson(io, cancelJson(final));
  else
    io.stdout.write(
      `${final.status}${final.keptBranch ? ` (work kept on branch ${final.keptBranch})` : ''}\n`,
    );
  return final.status === 'Canceled' ? EXIT.ok : EXIT.failed;
}
