// Pull-request review threads: what GitHub's reviewers wrote on lines of a
// published session, and Grove's own progress with each (sent to the agent,
// answered on GitHub). Pure data and text; the forge adapter fills it in,
// already sanitized.

export interface ReviewThreadComment {
  /** GitHub's node id of the comment. */
  readonly id: string;
  readonly author: string;
  readonly body: string;
  /** ISO time GitHub gives. */
  readonly createdAt: string;
  readonly url: string;
}

/** An unresolved review thread as GitHub reports it. */
export interface ReviewThreadInfo {
  /** GitHub's node id of the thread (what the reply and resolve mutations take). */
  readonly id: string;
  readonly path: string;
  /** The (last) line the thread is on, or null when GitHub no longer places it. */
  readonly line: number | null;
  /** The first line of a multi-line thread, else null. */
  readonly startLine: number | null;
  /** The commented lines changed since the comment was written. */
  readonly isOutdated: boolean;
  readonly comments: readonly ReviewThreadComment[];
}

/**
 * Where Grove is with a thread: `open` (nothing done yet), `sent` (its turn
 * is queued or running), `answered` (Grove replied with the commit; it waits
 * for the person to confirm resolving it).
 */
export const REVIEW_THREAD_STATES = ['open', 'sent', 'answered'] as const;
export type ReviewThreadState = (typeof REVIEW_THREAD_STATES)[number];

export function isReviewThreadState(value: string): value is ReviewThreadState {
  return (REVIEW_THREAD_STATES as readonly string[]).includes(value);
}

/** A thread as Grove keeps it for a session. */
export interface ReviewThread extends ReviewThreadInfo {
  readonly sessionId: string;
  readonly pullNumber: number;
  readonly state: ReviewThreadState;
  /** The turn it was sent with (state `sent`). */
  readonly operationId: string | null;
  /** The commit Grove's reply named (state `answered`). */
  readonly repliedCommit: string | null;
  /** The id of Grove's reply comment: later comments mean the reviewer answered back. */
  readonly replyCommentId: string | null;
}

/** `src/app.ts:12` or `src/app.ts:10-12`, or just the path. */
export function threadLocation(
  thread: Pick<ReviewThreadInfo, 'path' | 'line' | 'startLine'>,
): string {
  if (thread.line === null) return thread.path;
  if (thread.startLine !== null && thread.startLine !== thread.line)
    return `${thread.path}:${thread.startLine}-${thread.line}`;
  return `${thread.path}:${thread.line}`;
}

/** The first non-empty line of the thread's first comment. */
export function threadHeadline(thread: Pick<ReviewThreadInfo, 'comments'>): string {
  const body = thread.comments[0]?.body ?? '';
  return (body.split('\n').find((line) => line.trim() !== '') ?? '').trim();
}

/** Comments after the first one. */
export function replyCount(thread: Pick<ReviewThreadInfo, 'comments'>): number {
  return Math.max(0, thread.comments.length - 1);
}

/** One folded line per thread, as the session view and `grove threads` show it. */
export function threadSummary(thread: ReviewThread | ReviewThreadInfo): string {
  const first = thread.comments[0];
  const replies = replyCount(thread);
  const state = 'state' in thread && thread.state !== 'open' ? ` [${thread.state}]` : '';
  const outdated = thread.isOutdated ? ' (outdated)' : '';
  return `${threadLocation(thread)}${outdated}  ${first?.author ?? '?'}: ${threadHeadline(thread)}${replies > 0 ? `  (+${replies} ${replies === 1 ? 'reply' : 'replies'})` : ''}${state}`;
}

/** The turn that asks the agent to address the threads. */
export function reviewThreadsPrompt(
  threads: readonly ReviewThreadInfo[],
  pullNumber: number,
): string {
  const lines = [
    `Reviewers left ${threads.length === 1 ? 'a comment' : `${threads.length} comment threads`} on pull request #${pullNumber} of this branch. Address each one: make the change it asks for, or say in your answer why you did not. Keep other changes out.`,
    'Grove pushes your changes afterwards and replies on each thread with your answer and the commit.',
  ];
  threads.forEach((thread, i) => {
    lines.push(
      '',
      `## ${i + 1}. ${threadLocation(thread)}${thread.isOutdated ? ' (outdated: the lines changed since)' : ''}`,
    );
    for (const comment of thread.comments) {
      lines.push(
        '',
        `${comment.author} wrote:`,
        ...comment.body.split('\n').map((line) => `> ${line}`),
      );
    }
  });
  return lines.join('\n');
}

const MAX_REPLY_TEXT = 2_000;

/** The reply Grove posts on a thread after the agent's turn. */
export function threadReplyBody(input: {
  commit: string | null;
  branch: string;
  changed: boolean;
  whatChanged: string;
}): string {
  const what = input.whatChanged.trim();
  const shown = what.length > MAX_REPLY_TEXT ? `${what.slice(0, MAX_REPLY_TEXT - 1)}…` : what;
  const head = input.commit
    ? input.changed
      ? `Addressed in ${input.commit.slice(0, 12)} (pushed to \`${input.branch}\`).`
      : `No code change for this; the branch stays at ${input.commit.slice(0, 12)}.`
    : 'Answered by the agent.';
  return [head, shown, '_Reply posted by Grove for the agent session._']
    .filter((part) => part !== '')
    .join('\n\n');
}
