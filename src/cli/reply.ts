// grove reply: the next turn of a session (a prompt, or its pull request's review threads).
import type { Infra } from '../compose.js';
import type { Session } from '../domain/session.js';
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

/** What a reply takes besides the session (grove reply's options; grove answer gives the same). */
export type ReplyOptions = Omit<Extract<HeadlessCommand, { kind: 'reply' }>, 'kind' | 'id'>;

export async function replyCommand(
  infra: Infra,
  io: HeadlessIo,
  command: Extract<HeadlessCommand, { kind: 'reply' }>,
): Promise<number> {
  return replyTo(infra, io, await findSession(infra, command.id), command);
}

/** Runs the next turn of `session` (shared by grove reply and grove answer); resolves with the exit code. */
export async function replyTo(
  infra: Infra,
  io: HeadlessIo,
  session: Session,
  command: ReplyOptions,
): Promise<number> {
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
