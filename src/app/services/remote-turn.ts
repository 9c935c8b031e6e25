import type { HostPlace } from '../../domain/host.js';
import type { Operation } from '../../domain/operation.js';
import type { RemoteRunCursor } from '../../infra/agent/channel.js';
import type { Session } from '../../domain/session.js';
import type { TurnDeps } from './turn-deps.js';

// A turn of a session on a host (issue 24): its place there before the agent
// starts, and its branch brought back after, so the rest of the turn (commit,
// diff, review) works on the local branch as for any session.

/**
 * The session's place on its host for this turn, or null for a session on
 * this machine. With `sync` (a new turn, not a re-attach or a stop), the
 * host's branch and worktree are first brought to the local branch's commit
 * (after a rebase here, or work the host kept), and the transcript says what
 * that did.
 */
export async function placeOnHost(
  deps: Pick<TurnDeps, 'hosts' | 'sessions'>,
  session: Session,
  projectPath: string,
  signal: AbortSignal,
  sync = false,
): Promise<HostPlace | null> {
  if (!session.host) return null;
  if (!deps.hosts)
    throw new Error(
      `The session runs on the host ${session.host}, and this Grove cannot reach hosts.`,
    );
  const synced: string[] = [];
  try {
    const place = await deps.hosts.place(
      session.host,
      projectPath,
      { id: session.id, branch: session.branch },
      signal,
      sync ? { syncFrom: session.worktreePath, onSynced: (text) => synced.push(text) } : {},
    );
    for (const text of synced) await deps.sessions.note(session.id, 'notice', `[Host] ${text}`);
    return place;
  } catch (error) {
    // A host's failure says what to do about it (HostError's fix).
    const fix = (error as { fix?: unknown } | null)?.fix;
    if (error instanceof Error && typeof fix === 'string')
      throw new Error(`${error.message}\nTo fix: ${fix}.`);
    throw error;
  }
}

/**
 * Commits what the agent left on the host and fetches the branch back into
 * the session's local worktree. After a failed or stopped turn too (its
 * partial work kept), so with no signal: a stopped turn's is already aborted.
 * `restage`: the turn's commits are left staged here, for Grove's own commit
 * of the turn (the session's single evolving commit, as for any session).
 */
export async function bringBackFromHost(
  deps: Pick<TurnDeps, 'hosts'>,
  place: HostPlace,
  session: Session,
  projectPath: string,
  message: string,
  restage = false,
): Promise<void> {
  if (!deps.hosts) return;
  await deps.hosts.bringBack(place, projectPath, session.worktreePath, message, undefined, restage);
}

/**
 * A failed turn's conversation id, as its channel learnt it before the turn
 * failed (AgentError.providerConversationId), stored on the session so the
 * next prompt resumes that conversation: the host restarted mid-turn, and
 * what the agent did before is in its CLI's own session on the host.
 */
export async function keepConversation(
  store: TurnDeps['store'],
  session: Session,
  error: unknown,
  now: number,
): Promise<void> {
  const id =
    typeof error === 'object' && error !== null && 'providerConversationId' in error
      ? error.providerConversationId
      : null;
  if (typeof id !== 'string' || id === '' || id === session.providerConversationId) return;
  await store.sessions.update(session.id, { providerConversationId: id }, now).catch(() => {});
}

/** How long a cancel waits for the host to stop a left run and give its work back. */
const STOP_LEFT_RUN_MS = 180_000;

/**
 * A canceled turn whose run a Grove before this one started on the host and
 * no Grove re-attached to (it was killed mid-turn; the turn was queued again):
 * the run's whole process group there is ended (cancelRun checks its leader is
 * still the run's wrapper), and what the agent wrote is committed there and
 * fetched back, as a stopped turn's is. The transcript says what happened.
 */
export async function stopLeftRun(
  deps: Pick<TurnDeps, 'store' | 'hosts' | 'sessions'>,
  operation: Operation,
): Promise<void> {
  const mark = operation.remoteRun;
  if (!mark) return;
  const session = await deps.store.sessions.get(operation.sessionId);
  const project = session ? await deps.store.projects.get(session.projectId) : undefined;
  if (!session?.host || !project) return;
  const name = session.host;
  const signal = AbortSignal.timeout(STOP_LEFT_RUN_MS);
  let stopped = false;
  try {
    const place = await placeOnHost(deps, session, project.path, signal);
    if (!place || !deps.hosts) return;
    await deps.hosts.stopRun(place, mark.runId, mark.pgid, signal);
    stopped = true;
    await bringBackFromHost(deps, place, session, project.path, 'Work of a canceled turn');
    await deps.sessions.note(
      session.id,
      'notice',
      `[Cancel] The agent's run on ${name} was stopped and what it wrote was brought back.`,
    );
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    await deps.sessions.note(
      session.id,
      'notice',
      stopped
        ? `[Error] The agent's run on ${name} was stopped, but its work was not brought back: ${why}`
        : `[Error] Could not stop the agent's run on ${name} (${why}). It may still be working there; what it writes from now on is not brought back.`,
    );
  }
}

/** How often at most the read offset of a host's run is written for lines that made no transcript entry. */
const OFFSET_WRITE_MS = 500;

/**
 * Keeps a turn's run on a host durably with its operation (issue 24, item 4):
 * the run once it started, and how far its stdout was taken in. A
 * transcript entry a line made is written with the offset after that line,
 * in one transaction; the lines that make none (progress) move the offset at
 * most every OFFSET_WRITE_MS, once the entries before them are written. So a
 * Grove killed at any moment re-attaches where its transcript ends: no line
 * lost, none twice.
 */
export class RemoteRunRecord {
  readonly cursor: RemoteRunCursor;
  private readonly writes = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | null = null;
  private written: number;

  constructor(
    private readonly deps: Pick<TurnDeps, 'store' | 'sessions' | 'runtime'>,
    private readonly operation: Operation,
  ) {
    const mark = operation.remoteRun ?? null;
    this.written = mark?.offset ?? 0;
    this.cursor = {
      runId: mark?.runId ?? null,
      pgid: mark?.pgid ?? null,
      offset: mark?.offset ?? 0,
      started: (runId, pgid) => deps.store.operations.setRemoteRun(operation.id, runId, pgid),
      line: () => this.schedule(),
    };
  }

  /** True: this turn goes on with a run a Grove before it started. */
  get reattaching(): boolean {
    return this.cursor.runId !== null;
  }

  /** A transcript entry of the line being read, with the offset after that line. */
  note(sessionId: string, kind: 'notice' | 'tool', text: string): Promise<void> {
    const offset = this.cursor.offset;
    const id = this.operation.id;
    const write = this.deps.sessions.note(sessionId, kind, text, (tx) =>
      tx.operations.setRemoteOffset(id, offset),
    );
    this.writes.add(write);
    void write.finally(() => this.writes.delete(write)).catch(() => undefined);
    return write;
  }

  private schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.flush();
    }, OFFSET_WRITE_MS);
  }

  /** Writes the offset of the lines read so far, after the entries they made. */
  async flush(): Promise<void> {
    const offset = this.cursor.offset;
    if (offset <= this.written) return;
    await Promise.allSettled([...this.writes]);
    await this.deps.store.operations.setRemoteOffset(this.operation.id, offset).then(
      () => {
        this.written = Math.max(this.written, offset);
      },
      (error: unknown) => this.deps.runtime.logger.log('warn', 'run offset write failed', error),
    );
  }

  /** Stops the timer (the turn is over). */
  close(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}

/** The transcript notice of a turn on a host that a Grove killed mid-turn left running there. */
export function reattachNotice(host: string): string {
  return `[Re-attached] The Grove process that started this turn stopped while the agent was still working on ${host}; this Grove re-attached to it and reads its output on from where the transcript ends.`;
}
