import type { Operation } from '../../../domain/operation.js';
import {
  reviewThreadsPrompt,
  threadReplyBody,
  type ReviewThread,
} from '../../../domain/review-thread.js';
import type { Session } from '../../../domain/session.js';
import type { ForgeConnection } from '../../ports.js';
import type { ReviewContext } from './context.js';

const REMOTE = 'origin';
/** What a turn that answers review threads carries in its operation payload. */
export const THREADS_PAYLOAD_KEY = 'reviewThreads';

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The review-thread ids a turn was sent with (none for an ordinary prompt). */
export function threadsOf(operation: Pick<Operation, 'payload'>): string[] {
  const ids = operation.payload[THREADS_PAYLOAD_KEY];
  return Array.isArray(ids) ? ids.filter((id): id is string => typeof id === 'string') : [];
}

export async function connectFor(
  ctx: ReviewContext,
  session: Session,
  signal: AbortSignal,
): Promise<ForgeConnection> {
  const project = await ctx.deps.store.projects.get(session.projectId);
  if (!project) throw new Error('The project is no longer registered.');
  const url = await ctx.deps.git.remoteUrl(project.path, REMOTE);
  if (!url) throw new Error(`The project has no "${REMOTE}" remote.`);
  return ctx.deps.forge.connect(url, signal);
}

async function emitStored(
  ctx: ReviewContext,
  sessionId: string,
  error: string | null,
): Promise<ReviewThread[]> {
  const threads = await ctx.deps.store.reviewThreads.list(sessionId);
  ctx.deps.app.emit({ type: 'reviewThreadsLoaded', sessionId, threads, error });
  return threads;
}

/**
 * Fetches the pull request's unresolved review threads and stores them
 * (Grove's progress on known threads is kept); with `fetch` false (the
 * poller saw the pull request unchanged) only the stored ones are looked
 * at. A thread left `sent` by a turn that is over without answering it
 * (failed, stopped, a restart) is open again.
 */
export async function refreshThreads(
  ctx: ReviewContext,
  session: Session,
  connection: ForgeConnection,
  signal: AbortSignal,
  fetch = true,
): Promise<ReviewThread[]> {
  const { store } = ctx.deps;
  const link = session.reviewRequest;
  if (!link) return [];
  // Not fetched (the pull request did not change): the stored threads are checked alone.
  const fetched = fetch ? await connection.reviewThreads(link.number, signal) : null;
  await store.transaction(async (tx) => {
    const stored = fetched
      ? await tx.reviewThreads.replaceFetched(session.id, link.number, fetched, ctx.now())
      : await tx.reviewThreads.list(session.id);
    const stale: string[] = [];
    for (const thread of stored) {
      if (thread.state !== 'sent' || thread.operationId === null) continue;
      const op = await tx.operations.get(thread.operationId);
      if (!op || (op.status !== 'queued' && op.status !== 'running')) stale.push(thread.id);
    }
    await tx.reviewThreads.reopen(session.id, stale);
  });
  return emitStored(ctx, session.id, null);
}

/** Shows what is stored for the session (after a restart, before the poller's first look). */
export async function loadThreads(ctx: ReviewContext, sessionId: string): Promise<void> {
  await emitStored(ctx, sessionId, ctx.deps.app.state.reviewThreads[sessionId]?.error ?? null);
}

/** Fetches now; a failure is kept with the threads, in words. Resolves with the threads. */
export async function refreshNow(
  ctx: ReviewContext,
  sessionId: string,
  signal: AbortSignal,
): Promise<ReviewThread[]> {
  const session = await ctx.deps.store.sessions.get(sessionId);
  if (!session?.reviewRequest)
    return emitStored(ctx, sessionId, 'The session has no pull request yet: publish it first (p).');
  try {
    return await refreshThreads(ctx, session, await connectFor(ctx, session, signal), signal);
  } catch (error) {
    await emitStored(ctx, sessionId, errorText(error));
    throw error;
  }
}

export type SendRefusal = string;

/**
 * Queues the turn that asks the agent to address the threads (`null`: every
 * open one). The prompt holds each thread's file, line and comments.
 * Resolves with the operation id, or a refusal in words.
 */
export async function queueThreadsTurn(
  ctx: ReviewContext,
  sessionId: string,
  threadIds: readonly string[] | null,
): Promise<{ operationId: string; count: number } | { refused: SendRefusal }> {
  const { store, runtime } = ctx.deps;
  const session = await store.sessions.get(sessionId);
  if (!session) return { refused: 'The session no longer exists.' };
  if (!session.reviewRequest)
    return { refused: 'The session has no pull request: publish it first.' };
  if (!['Review', 'AgentReview', 'Question', 'InProgress'].includes(session.status))
    return { refused: `This session is ${session.status}; it takes no prompts now.` };
  const all = await store.reviewThreads.list(sessionId);
  const chosen =
    threadIds === null
      ? all.filter((t) => t.state === 'open')
      : all.filter((t) => threadIds.includes(t.id) && t.state !== 'sent');
  if (chosen.length === 0) {
    const waiting = all.filter((t) => t.state === 'answered').length;
    const sent = all.filter((t) => t.state === 'sent').length;
    return {
      refused:
        all.length === 0
          ? 'The pull request has no unresolved review threads.'
          : `No open review thread to send (${sent} already sent, ${waiting} answered and waiting to be resolved).`,
    };
  }
  const prompt = reviewThreadsPrompt(chosen, session.reviewRequest.number);
  const operationId = await store.transaction(async (tx) => {
    const id = await tx.operations.enqueue(
      sessionId,
      'reply',
      { prompt, [THREADS_PAYLOAD_KEY]: chosen.map((t) => t.id), headBefore: session.headCommit },
      ctx.now(),
      runtime.owner,
    );
    await tx.reviewThreads.markSent(
      sessionId,
      chosen.map((t) => t.id),
      id,
    );
    return id;
  });
  await emitStored(ctx, sessionId, null);
  ctx.deps.queue.notify(sessionId);
  return { operationId, count: chosen.length };
}

/** A threads turn that did not finish: its threads are open again. */
export async function reopenThreadsOf(ctx: ReviewContext, operation: Operation): Promise<void> {
  const ids = (await ctx.deps.store.reviewThreads.listByOperation(operation.id))
    .filter((t) => t.state === 'sent')
    .map((t) => t.id);
  if (ids.length === 0) return;
  await ctx.deps.store.reviewThreads.reopen(operation.sessionId, ids);
  await emitStored(ctx, operation.sessionId, null);
}

async function lastAnswer(ctx: ReviewContext, sessionId: string): Promise<string> {
  const entries = await ctx.deps.store.transcript.list(sessionId);
  return entries.filter((e) => e.kind === 'assistant_answer').at(-1)?.content ?? '';
}

/**
 * After the agent's turn on review threads (the branch already pushed, or
 * not: `pushed`): replies on each thread with what changed and the commit,
 * then asks the person whether to resolve them. Failures are noted in words
 * and leave the threads open.
 */
export async function answerThreads(
  ctx: ReviewContext,
  operation: Operation,
  signal: AbortSignal,
  pushed: boolean,
): Promise<ReviewThread[]> {
  const { store, app } = ctx.deps;
  const sessionId = operation.sessionId;
  const threads = (await store.reviewThreads.listByOperation(operation.id)).filter(
    (t) => t.state === 'sent',
  );
  if (threads.length === 0) return [];
  const session = await store.sessions.get(sessionId);
  const reopen = async (text: string): Promise<ReviewThread[]> => {
    await store.reviewThreads.reopen(
      sessionId,
      threads.map((t) => t.id),
    );
    await ctx.note(sessionId, text);
    await emitStored(ctx, sessionId, null);
    return [];
  };
  if (!session) return [];
  if (session.status === 'Question')
    return reopen(
      `[Review Threads] The agent asked questions first, so the ${threads.length} review threads were not answered on GitHub. Answer them, then send the threads again (t).`,
    );
  if (!pushed)
    return reopen(
      '[Review Threads] The change was not pushed, so the review threads were not answered on GitHub; they stay open. Publish again (p), then send them again (t).',
    );
  const commit = session.headCommit;
  const before =
    typeof operation.payload['headBefore'] === 'string' ? operation.payload['headBefore'] : null;
  const whatChanged = session.summary?.turn || (await lastAnswer(ctx, sessionId));
  const body = threadReplyBody({
    commit,
    branch: session.publishedBranch ?? session.branch,
    changed: commit !== before,
    whatChanged,
  });
  const answered: ReviewThread[] = [];
  try {
    const connection = await connectFor(ctx, session, signal);
    for (const thread of threads) {
      const reply = await connection.replyToThread(thread.id, body, signal);
      await store.reviewThreads.markAnswered(sessionId, thread.id, commit, reply.id);
      answered.push(thread);
    }
  } catch (error) {
    const left = threads.filter((t) => !answered.includes(t)).map((t) => t.id);
    await store.reviewThreads.reopen(sessionId, left);
    await ctx.note(
      sessionId,
      `[Review Threads Error] ${errorText(error)}${answered.length > 0 ? ` (${answered.length} of ${threads.length} threads were answered first)` : ''}. The threads not answered stay open.`,
    );
  }
  if (answered.length > 0) {
    await ctx.note(
      sessionId,
      `[Review Threads] Replied on ${answered.length} review ${answered.length === 1 ? 'thread' : 'threads'} of pull request #${session.reviewRequest?.number ?? '?'} with commit ${(commit ?? '').slice(0, 12)}. Resolve ${answered.length === 1 ? 'it' : 'them'} when you agree (asked now; later: t, then x).`,
    );
  }
  const stored = await emitStored(ctx, sessionId, null);
  const toResolve = stored.filter((t) => answered.some((a) => a.id === t.id));
  // Asked only where a person watches (the TUI; the reducer does not replace another question);
  // a headless command says how to resolve instead.
  if (toResolve.length > 0) app.emit({ type: 'threadsAnswered', sessionId, threads: toResolve });
  return toResolve;
}

/** Resolves the threads on GitHub and drops them from the list. Resolves with how many were resolved. */
export async function resolveThreads(
  ctx: ReviewContext,
  sessionId: string,
  threadIds: readonly string[],
  signal: AbortSignal,
): Promise<number> {
  const { store } = ctx.deps;
  const session = await store.sessions.get(sessionId);
  if (!session || threadIds.length === 0) return 0;
  let known = (await store.reviewThreads.list(sessionId)).filter((t) => threadIds.includes(t.id));
  const done: string[] = [];
  try {
    const connection = await connectFor(ctx, session, signal);
    // Looked at again on GitHub right before: a thread the reviewer wrote on again since the
    // question (open again) or resolved there is left alone.
    known = (await refreshThreads(ctx, session, connection, signal)).filter(
      (t) => threadIds.includes(t.id) && t.state === 'answered',
    );
    for (const thread of known) {
      await connection.resolveThread(thread.id, signal);
      done.push(thread.id);
    }
  } catch (error) {
    await store.reviewThreads.remove(sessionId, done);
    await emitStored(ctx, sessionId, null);
    await ctx.note(
      sessionId,
      `[Review Threads Error] ${errorText(error)}${done.length > 0 ? ` (${done.length} of ${known.length} threads were resolved first)` : ''}.`,
    );
    throw error;
  }
  await store.reviewThreads.remove(sessionId, done);
  await emitStored(ctx, sessionId, null);
  const left = threadIds.length - done.length;
  await ctx.note(
    sessionId,
    `[Review Threads] Resolved ${done.length} review ${done.length === 1 ? 'thread' : 'threads'} on GitHub.${left > 0 ? ` Left ${left} alone: changed on GitHub since Grove answered (a new comment, or resolved there).` : ''}`,
  );
  return done.length;
}
