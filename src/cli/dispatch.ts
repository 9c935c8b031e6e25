// The headless CLI's command switch: each `grove COMMAND` to its own file.
import { migrationsDir, type Infra } from '../compose.js';
import { grovePaths } from '../infra/paths.js';
import type { HeadlessCommand } from './args.js';
import { COMMAND_HELP } from './args.js';
import { EXIT, findSession, headlessContext, type HeadlessIo } from './headless.js';
import { runDoctor } from './doctor.js';
import { sessionDiff } from './session-diff.js';
import { listThreads } from './threads.js';
import { runGc } from './parallel.js';
import { runCommand } from './run.js';
import { replyCommand } from './reply.js';
import { answerCommand } from './answer.js';
import { lsCommand } from './ls.js';
import { inboxCommand } from './inbox.js';
import { watchCommand } from './watch.js';
import { mcpCommand } from './mcp.js';
import { approveCommand } from './approve.js';
import { denyCommand } from './deny.js';
import { showCommand } from './show.js';
import { ciFixerCommand } from './ci-fixer.js';
import { linkCommand } from './link.js';
import { landCommand } from './land.js';
import { cancelCommand } from './cancel.js';
import { hostCommand } from './host.js';
import { diffJson, printJson } from './command-json.js';

/** Runs one headless command; resolves with the exit code. */
export async function runHeadless(
  command: HeadlessCommand,
  infra: Infra,
  io: HeadlessIo,
): Promise<number> {
  switch (command.kind) {
    case 'help':
      io.stdout.write(`${COMMAND_HELP[command.command as keyof typeof COMMAND_HELP]}\n`);
      return EXIT.ok;
    case 'gc':
      return runGc(infra, io, command);
    case 'doctor':
      // Needs no infra: it must work when the database does not open.
      return runDoctor({
        json: command.json,
        env: io.env,
        paths: grovePaths(io.env),
        migrationsDir: migrationsDir(),
        stdout: io.stdout,
      });
    case 'run':
      return runCommand(infra, io, command);
    case 'reply':
      return replyCommand(infra, io, command);
    case 'answer':
      return answerCommand(infra, io, command);
    case 'ls':
      return lsCommand(infra, io, command);
    case 'inbox':
      return inboxCommand(infra, io, command);
    case 'watch':
      return watchCommand(infra, io, command);
    case 'mcp':
      return mcpCommand(infra, io, command);
    case 'approve':
      return approveCommand(infra, io, command);
    case 'deny':
      return denyCommand(infra, io, command);
    case 'show':
      return showCommand(infra, io, command);
    case 'link':
      return linkCommand(infra, io, command);
    case 'ci-fixer':
      return ciFixerCommand(infra, io, command);
    case 'diff': {
      const session = await findSession(infra, command.id);
      const diff = await sessionDiff(infra, io, session);
      if (command.json) printJson(io, diffJson(session, diff));
      else io.stdout.write(diff.patch);
      return EXIT.ok;
    }
    case 'merge':
    case 'rebase':
    case 'publish':
      return landCommand(infra, io, command);
    case 'threads': {
      const session = await findSession(infra, command.id);
      const project = await infra.store.projects.get(session.projectId);
      const ctx = await headlessContext(infra, io, project?.path ?? command.dir, false);
      return listThreads(ctx, session, command.json, command.resolve);
    }
    case 'cancel':
      return cancelCommand(infra, io, command);
    case 'host':
      return hostCommand(infra, io, command);
    default:
      return EXIT.usage;
  }
}
