// grove reply: the next turn of a session (a prompt, or its pull request's review threads).
import type { Infra } from '../compose.js';
import {
  findSession,
  headlessContext,
  readPrompt,
  submitTurn,
  showProgress,
  type HeadlessIo,
} from './headless.js';
import { finishTurn, followTurn } from './turn-result.js';
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
  followTurn(ctx, session.id, command);
  if (command.mode) await ctx.intents.setPermissionMode(session.id, command.mode);
  let operationId: string;
  if (command.threads) ({ operationId, prompt } = await submitThreadsTurn(ctx, session));
  else operationId = await submitTurn(ctx, session.id, prompt);
  return finishTurn(ctx, session, { operationId, prompt, since, startedAt }, command);
}
