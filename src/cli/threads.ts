import { threadSummary, type ReviewThread } from '../domain/review-thread.js';
import { shortId, type Session } from '../domain/session.js';
import { CommandError, EXIT, type HeadlessContext } from './headless.js';

const GITHUB_TIMEOUT_MS = 60_000;

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function needPullRequest(session: Session): number {
  if (!session.reviewRequest) {
    throw new CommandError(
      `session ${shortId(session.id)} has no pull request; publish it first (grove publish ${shortId(session.id)}).`,
      EXIT.failed,
    );
  }
  return session.reviewRequest.number;
}

function threadJson(thread: ReviewThread) {
  return {
    id: thread.id,
    path: thread.path,
    line: thread.line,
    startLine: thread.startLine,
    outdated: thread.isOutdated,
    state: thread.state,
    repliedCommit: thread.repliedCommit,
    comments: thread.comments.map((c) => ({
      author: c.author,
      body: c.body,
      createdAt: c.createdAt,
      url: c.url,
    })),
  };
}

/**
 * `grove threads ID [--json] [--resolve]`: fetches the unresolved review
 * threads, optionally resolves the answered ones, and lists them. When
 * GitHub cannot be asked it says why and lists what is stored (exit 1).
 */
export async function listThreads(
  ctx: HeadlessContext,
  session: Session,
  json: boolean,
  resolve: boolean,
): Promise<number> {
  const { io, infra } = ctx;
  const number = needPullRequest(session);
  const signal = AbortSignal.timeout(GITHUB_TIMEOUT_MS);
  let failure: string | null = null;
  let resolved: number | null = null;
  try {
    await ctx.intents.refreshThreads(session.id, signal);
    if (resolve) {
      const answered = (await infra.store.reviewThreads.list(session.id))
        .filter((t) => t.state === 'answered')
        .map((t) => t.id);
      resolved = await ctx.intents.resolveThreads(session.id, answered, signal);
    }
  } catch (error) {
    failure = errorText(error);
  }
  const threads = await infra.store.reviewThreads.list(session.id);
  if (json) {
    io.stdout.write(`${JSON.stringify(threads.map(threadJson), null, 2)}\n`);
  } else {
    if (resolved !== null)
      io.stdout.write(
        `Resolved ${resolved} review ${resolved === 1 ? 'thread' : 'threads'} on GitHub.\n`,
      );
    const when = failure ? ' (as last fetched)' : '';
    if (threads.length === 0)
      io.stdout.write(`Pull request #${number} has no unresolved review threads${when}.\n`);
    else
      io.stdout.write(
        `Pull request #${number}: ${threads.length} unresolved review ${threads.length === 1 ? 'thread' : 'threads'}${when}\n`,
      );
    for (const thread of threads) io.stdout.write(`${thread.id}  ${threadSummary(thread)}\n`);
  }
  if (failure) {
    io.stderr.write(`grove: ${failure}\n`);
    return EXIT.failed;
  }
  return EXIT.ok;
}

/**
 * `grove reply ID --threads`: fetches the threads and queues the open ones
 * as the next turn. Resolves with the operation and its prompt.
 */
export async function submitThreadsTurn(
  ctx: HeadlessContext,
  session: Session,
): Promise<{ operationId: string; prompt: string }> {
  needPullRequest(session);
  try {
    await ctx.intents.refreshThreads(session.id, AbortSignal.timeout(GITHUB_TIMEOUT_MS));
  } catch (error) {
    throw new CommandError(`could not fetch the review threads: ${errorText(error)}`, EXIT.failed);
  }
  const queued = await ctx.intents.sendReviewThreads(session.id, null);
  if ('refused' in queued) throw new CommandError(queued.refused, EXIT.failed);
  ctx.progress(
    `Sent ${queued.count} review ${queued.count === 1 ? 'thread' : 'threads'} to the agent.`,
  );
  const operation = await ctx.infra.store.operations.get(queued.operationId);
  const prompt =
    typeof operation?.payload['prompt'] === 'string' ? operation.payload['prompt'] : '';
  return { operationId: queued.operationId, prompt };
}
