import type { HostPlace } from '../../domain/host.js';
import type { Session } from '../../domain/session.js';
import type { TurnDeps } from './turn-deps.js';

// A turn of a session on a host (issue 24): its place there before the agent
// starts, and its branch brought back after, so the rest of the turn (commit,
// diff, review) works on the local branch as for any session.

/** The session's place on its host for this turn, or null for a session on this machine. */
export async function placeOnHost(
  deps: Pick<TurnDeps, 'hosts'>,
  session: Session,
  projectPath: string,
  signal: AbortSignal,
): Promise<HostPlace | null> {
  if (!session.host) return null;
  if (!deps.hosts)
    throw new Error(
      `The session runs on the host ${session.host}, and this Grove cannot reach hosts.`,
    );
  try {
    return await deps.hosts.place(
      session.host,
      projectPath,
      { id: session.id, branch: session.branch },
      signal,
    );
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
 */
export async function bringBackFromHost(
  deps: Pick<TurnDeps, 'hosts'>,
  place: HostPlace,
  session: Session,
  projectPath: string,
  message: string,
): Promise<void> {
  if (!deps.hosts) return;
  await deps.hosts.bringBack(place, projectPath, session.worktreePath, message);
}
