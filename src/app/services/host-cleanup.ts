import type { Session } from '../../domain/session.js';
import type { GitClient, HostCleaner, Store } from '../ports.js';

// A session on a host that ended for good (merged, canceled, reclaimed by
// grove gc) leaves its worktree, branch and run folders there (issue 24).
// What to remove is recorded first, durably, before the local branch goes
// (its commit is what the host's branch must not be ahead of); the host is
// then asked, and a host that cannot be reached keeps the record for the next
// contact: the next session on that host that ends, grove host check NAME, or
// grove gc. Nothing here blocks the merge or the cancel: both are done before
// the host is asked, and a failure is said in the transcript, never thrown.

export interface HostCleanupDeps {
  readonly store: Store;
  readonly git: GitClient;
  readonly cleaner?: HostCleaner | undefined;
  readonly now: () => number;
  /** A transcript notice of the session. */
  readonly note: (sessionId: string, text: string) => Promise<void>;
}

/** How long one host is given for one session's clean-up (ssh's own connect timeout is 15 s). */
const CLEANUP_MS = 120_000;

/**
 * Records what the session's host must remove, before its local branch and
 * worktree go; a session on this machine records nothing.
 */
export async function recordHostCleanup(
  deps: Pick<HostCleanupDeps, 'store' | 'git' | 'now'>,
  session: Session,
  repo: string,
): Promise<void> {
  if (!session.host) return;
  const heads = await deps.git.branchHeads(repo).catch(() => new Map<string, string>());
  // A record that cannot be written loses only the clean-up there, never work: not thrown.
  await deps.store.hosts
    .addCleanup({
      sessionId: session.id,
      host: session.host,
      repo,
      branch: session.branch,
      commit: heads.get(session.branch) ?? null,
      createdAt: deps.now(),
      attemptedAt: null,
      error: null,
    })
    .catch(() => {});
}

/** One session's clean-up on its host, as it went. */
export interface HostCleanupOutcome {
  readonly sessionId: string;
  readonly host: string;
  readonly kind: 'cleaned' | 'kept' | 'pending';
  /** In words, as the transcript says it. */
  readonly text: string;
}

/** The words of a clean-up that removed what it could. */
function cleanedText(
  host: string,
  result: { worktree: boolean; branch: boolean; runs: number; keptAt: string | null },
): string {
  const parts = [
    ...(result.worktree ? ['its worktree'] : []),
    ...(result.branch ? ['its branch in the mirror'] : []),
    ...(result.runs > 0
      ? [`${String(result.runs)} run folder${result.runs === 1 ? '' : 's'}`]
      : []),
  ];
  const what =
    parts.length === 0
      ? `Nothing of this session was left on ${host}.`
      : `Removed on ${host}: ${parts.join(', ')}.`;
  return result.keptAt
    ? `${what} Its commits there that this repository did not have were fetched first and are kept at ${result.keptAt}.`
    : what;
}

/**
 * Asks the hosts to remove what the recorded sessions left there: one
 * session's, one host's or one repository's records. Each outcome goes to
 * its session's transcript (a host that cannot be reached only the first
 * time) and is returned; nothing is thrown.
 */
export async function runHostCleanups(
  deps: HostCleanupDeps,
  filter: { readonly host?: string; readonly repo?: string; readonly sessionId?: string },
  signal?: AbortSignal,
): Promise<HostCleanupOutcome[]> {
  const cleaner = deps.cleaner;
  if (!cleaner) return [];
  const rows = (
    await deps.store.hosts.cleanups({
      ...(filter.host !== undefined ? { host: filter.host } : {}),
      ...(filter.repo !== undefined ? { repo: filter.repo } : {}),
    })
  ).filter((row) => filter.sessionId === undefined || row.sessionId === filter.sessionId);
  const outcomes: HostCleanupOutcome[] = [];
  /** Hosts that could not be reached in this round: their other sessions wait for the next. */
  const away = new Map<string, string>();
  for (const row of rows) {
    if (signal?.aborted) break;
    const say = (kind: HostCleanupOutcome['kind'], text: string): void => {
      outcomes.push({ sessionId: row.sessionId, host: row.host, kind, text });
    };
    const unreachable = away.get(row.host);
    if (unreachable !== undefined) {
      say('pending', unreachable);
      continue;
    }
    try {
      const result = await cleaner.cleanUp(
        row.host,
        row.repo,
        {
          sessionId: row.sessionId,
          branch: row.branch,
          commit: row.commit,
          runIds: await deps.store.hosts.runsOf(row.sessionId),
        },
        signal
          ? AbortSignal.any([signal, AbortSignal.timeout(CLEANUP_MS)])
          : AbortSignal.timeout(CLEANUP_MS),
      );
      if (result.kind === 'cleaned') {
        await deps.store.hosts.cleanupDone(row.sessionId);
        const text = cleanedText(row.host, result);
        say('cleaned', text);
        await deps.note(row.sessionId, `[Host] ${text}`).catch(() => {});
      } else {
        const text =
          result.kind === 'busy'
            ? `Nothing was removed on ${row.host} yet: ${result.reason}. Grove tries again on the next contact (grove host check ${row.host}, grove gc).`
            : `Kept on ${row.host}: ${result.reason}. Remove it there once you have what it holds; grove gc tries again.`;
        const first = row.error !== text;
        await deps.store.hosts.cleanupFailed(row.sessionId, text, deps.now());
        say(result.kind === 'busy' ? 'pending' : 'kept', text);
        if (first) await deps.note(row.sessionId, `[Host] ${text}`).catch(() => {});
      }
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      const text = `Could not reach ${row.host} to remove this session's worktree, branch and runs there (${why}). Grove removes them on the next contact: the next session on ${row.host} that ends, grove host check ${row.host}, or grove gc.`;
      away.set(
        row.host,
        `${row.host} could not be reached (${why}); its clean-up waits for the next contact.`,
      );
      const first = row.attemptedAt === null;
      await deps.store.hosts.cleanupFailed(row.sessionId, text, deps.now());
      say('pending', text);
      if (first) await deps.note(row.sessionId, `[Host] ${text}`).catch(() => {});
    }
  }
  return outcomes;
}

/**
 * A session on a host ended for good (its local branch and worktree already
 * dealt with, its status set): its host, and any other clean-up that waited
 * for that host, are asked now.
 */
export async function cleanUpAfterEnd(deps: HostCleanupDeps, session: Session): Promise<void> {
  if (!session.host) return;
  await runHostCleanups(deps, { host: session.host }).catch(() => []);
}
