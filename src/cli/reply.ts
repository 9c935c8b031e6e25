// grove reply: the next turn of a session (a prompt, or its pull request's review threads).
import { eventPrinter } from './event-printer.js';
import type { Infra } from '../compose.js';
import {
  exitCodeFor,
  findSession,
  headlessContext,
  printResult,
  readPrompt,
  reportOutcome,
  submitTurn,
  waitForOperation,
  showProgress,
  type HeadlessIo,
} from './headless.js';
import { submitThreadsTurn } from './threads.js';
import type { HeadlessCommand } from './args.js';

export async function replyCommand(
  infra: Infra,
  io: HeadlessIo,
  command: Extract<HeadlessCommand, { kind: 'reply' }>,
): Promise<number> {
  const session = await findSession(infra, command.id);
  let prompt = command.threads ? '' : await readPrompt(io, command.prompt);
  const project = await infra.store.projects.get(session.projectId);
  const ctx = await headlessContext(
    infra,
    io,
    project?.path ?? command.dir,
    showProgress(io, command.progress),
  );
  const startedAt = infra.clock.now();
  const since = await infra.store.transcript.count(session.id);
  ctx.app.subscribe(eventPrinter(ctx, session.id, command.output));
  if (command.mode) await ctx.controller.sessions.setPermissionMode(session.id, command.mode);
  let operationId: string;
  if (command.threads) ({ operationId, prompt } = await submitThreadsTurn(ctx, session));
  else operationId = await submitTurn(ctx, session.id, prompt);
  const outcome = await waitForOperation(ctx, session.id, operationId, command.timeoutMs);
  const final = (await infra.store.sessions.get(session.id)) ?? session;
  await printResult(ctx, final, since, prompt, command.output, startedAt);
  await reportOutcome(ctx, outcome, final, since);
  return exitCodeFor(outcome, final);
}
