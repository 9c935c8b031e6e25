// The guard around every agent run in a session's worktree (turns, hook
// fixes, conflict resolution, titles, commit messages, focused reviews, the
// best-of judge): what the sandbox's mounts cannot forbid — another ref, the
// main checkout's index and HEAD, `info/` in the shared git folder — is
// recorded before the agent runs and compared after. A change is put back,
// the session is flagged in words (transcript, session view, `grove show`),
// and it is not merged or published until the person acknowledges the flag.
import { hostKeptRef, hostSideRef } from '../../domain/host.js';
import { sanitizeLine } from '../../domain/sanitize.js';
import { isWorking } from '../../domain/session-status.js';
import type { Session } from '../../domain/session.js';
import type { GuardChange, GuardRestore, GuardSnapshot } from '../../infra/git/git-client.js';
import type { App } from '../app.js';
import type { GitClient, Runtime, Store } from '../ports.js';

export interface GuardDeps {
  readonly app: App;
  readonly store: Store;
  readonly git: GitClient;
  readonly runtime: Runtime;
  /** Appends a transcript notice and shows it. */
  readonly note: (sessionId: string, text: string) => Promise<void>;
}

/** One agent run to guard. */
export interface GuardScope {
  /** The sessions flagged when something changed (the session; a judge's every variant). */
  readonly sessionIds: readonly string[];
  readonly projectId: number;
  readonly mainCheckout: string;
  /** The branch the agent may move (the session's own); null: none. */
  readonly ownBranch: string | null;
  /** What ran, for the flag's words: "a turn", "the focused review", … */
  readonly what: string;
}

/** Agent runs that share one recording: a session's turn and the title prompt beside it. */
interface Episode {
  snapshot: GuardSnapshot | null;
  ready: Promise<void>;
  checked: Promise<void>;
  readonly startedAt: number;
  readonly mainCheckout: string;
  open: number;
}

/** Grove's own multi-step git work (rebase, squash, sync) in this process, for the check's "was it Grove". */
interface GroveWrite {
  readonly projectId: number | null;
  readonly dir: string;
  readonly branch: string;
  readonly startedAt: number;
  endedAt: number | null;
}

const episodes = new Map<string, Episode>();
const groveWrites = new Set<GroveWrite>();
/** Time spent recording and checking, by session, since it was last taken (the turn's cost log). */
const costs = new Map<string, number>();

function addCost(scope: GuardScope, startedAt: number): void {
  const ms = performance.now() - startedAt;
  for (const id of scope.sessionIds) costs.set(id, (costs.get(id) ?? 0) + ms);
}

/** The guard's own time for a session since the last call (Grove's own cost per turn counts it). */
export function takeGuardCost(sessionId: string): number {
  const ms = costs.get(sessionId) ?? 0;
  costs.delete(sessionId);
  return ms;
}

/**
 * Called by withGitStep around each of Grove's own multi-step git operations:
 * the refs and main checkout it writes are not an agent's doing.
 */
export function noteGroveWrite(
  projectId: number | null,
  dir: string,
  branch: string,
  now: number,
): (now: number) => void {
  const write: GroveWrite = { projectId, dir, branch, startedAt: now, endedAt: null };
  groveWrites.add(write);
  return (end) => {
    write.endedAt = end;
  };
}

/** Forgets Grove writes no open recording can need. */
function pruneWrites(): void {
  const oldest = Math.min(...[...episodes.values()].map((e) => e.startedAt));
  for (const write of groveWrites)
    if (write.endedAt !== null && write.endedAt < oldest) groveWrites.delete(write);
}

const short = (value: string): string => {
  const [oid = '', symref] = value.split(' -> ');
  return symref ? `a link to ${sanitizeLine(symref)}` : oid.slice(0, 12);
};

/** One change in words, as the transcript and the flag say it. */
export function changeText(change: GuardChange, mainCheckout: string): string {
  switch (change.kind) {
    case 'ref': {
      const ref = sanitizeLine(change.ref);
      if (change.before === null) return `The agent created ${ref} (at ${change.after ?? ''})`;
      if (change.after === null)
        return `The agent deleted ${ref} (it was at ${short(change.before)})`;
      return `The agent changed ${ref} (moved from ${short(change.before)} to ${short(change.after)})`;
    }
    case 'packed':
      return `The agent changed the packed-refs entry of ${sanitizeLine(change.ref)}`;
    case 'index':
      return `The agent changed the index of the main checkout (${mainCheckout})`;
    case 'head':
      return `The agent changed the HEAD of the main checkout (from "${sanitizeLine(change.before)}" to "${sanitizeLine(change.after)}")`;
    case 'info':
      return `The agent ${change.what === 'added' ? 'created' : change.what} info/${sanitizeLine(change.file)} in the shared git folder`;
  }
}

function restoreText(result: GuardRestore, mainCheckout: string): string {
  const what = changeText(result.change, mainCheckout);
  return result.error === null
    ? `${what}; Grove put it back.`
    : `${what}; Grove could not put it back (${sanitizeLine(result.error)}). Put it right by hand before merging.`;
}

/** Why a flagged session is not merged or published yet, and how to go on; null when it may be. */
export function guardRefusal(
  session: Pick<Session, 'id' | 'guardFlag'>,
  action: 'merge' | 'publish',
): string | null {
  if (!session.guardFlag) return null;
  return `This session is not ${action === 'merge' ? 'merged' : 'published'}: an agent changed git state outside its worktree, and Grove put it back:\n${session.guardFlag}\nRead the transcript, then acknowledge it: merge from the session view (its dialog shows this), or run grove ${action} ${session.id.slice(0, 8)} --acknowledge.`;
}

/** The person has seen the flag: merge and publish are allowed again. */
export async function acknowledgeGuard(deps: GuardDeps, sessionId: string): Promise<void> {
  const session = await deps.store.sessions.get(sessionId);
  if (!session?.guardFlag) return;
  await deps.store.sessions.update(sessionId, { guardFlag: null }, deps.runtime.clock.now());
  await deps.note(
    sessionId,
    '[Guard] You acknowledged what Grove put back; the session can be merged and published again.',
  );
}

export class AgentGuard {
  constructor(private readonly deps: GuardDeps) {}

  /** A session's own agent run in its worktree. */
  forSession(session: Session, mainCheckout: string, what: string): GuardScope {
    return {
      sessionIds: [session.id],
      projectId: session.projectId,
      mainCheckout,
      ownBranch: session.branch,
      what,
    };
  }

  /**
   * Runs `run` (an agent's run) between a recording and a check: whatever it
   * changed is put back and flagged, whether it succeeded or failed.
   */
  async around<T>(scope: GuardScope, run: () => Promise<T>): Promise<T> {
    const key = `${scope.mainCheckout}\0${scope.sessionIds.join(',')}`;
    let episode = episodes.get(key);
    if (episode) episode.open++;
    else {
      const made: Episode = {
        snapshot: null,
        ready: Promise.resolve(),
        checked: Promise.resolve(),
        startedAt: this.deps.runtime.clock.now(),
        mainCheckout: scope.mainCheckout,
        open: 1,
      };
      const recording = performance.now();
      made.ready = this.deps.git
        .guardSnapshot(scope.mainCheckout, scope.ownBranch)
        .then((snapshot) => {
          made.snapshot = snapshot;
          addCost(scope, recording);
        })
        .catch((error: unknown) =>
          this.deps.runtime.logger.log('warn', 'git guard: nothing recorded', error),
        );
      episodes.set(key, made);
      episode = made;
    }
    const current = episode;
    await current.ready;
    try {
      return await run();
    } finally {
      // One check at a time per recording: two would both put the same change back.
      current.checked = current.checked
        .catch(() => {})
        .then(async () => {
          const checking = performance.now();
          await this.check(scope, current);
          addCost(scope, checking);
        });
      try {
        await current.checked;
      } finally {
        current.open--;
        if (current.open === 0 && episodes.get(key) === current) episodes.delete(key);
        pruneWrites();
      }
    }
  }

  private async check(scope: GuardScope, episode: Episode): Promise<void> {
    const { git, runtime } = this.deps;
    const snapshot = episode.snapshot;
    if (!snapshot) return;
    let changes: GuardChange[];
    try {
      changes = await git.guardCheck(snapshot);
    } catch (error) {
      runtime.logger.log('warn', 'git guard: the check failed', error);
      return;
    }
    if (changes.length === 0) return;
    const explained = await this.groveActivity(scope, episode.startedAt);
    const unexplained = changes.filter((change) => {
      if (change.kind === 'ref' || change.kind === 'packed') return !explained.refs.has(change.ref);
      if (change.kind === 'index' || change.kind === 'head') return !explained.mainCheckout;
      return true;
    });
    if (unexplained.length === 0) return;
    const results = await git.guardRestore(snapshot, unexplained);
    this.adoptRestored(episode, snapshot, results);
    await this.flag(scope, results);
  }

  /**
   * Another recording of the same repository that started during this run
   * may have recorded the agent's change as the state to keep: it takes this
   * run's recording for what was put back, so it does not put the change back in.
   */
  private adoptRestored(
    episode: Episode,
    snapshot: GuardSnapshot,
    results: readonly GuardRestore[],
  ): void {
    for (const other of episodes.values()) {
      if (other === episode || !other.snapshot) continue;
      if (other.mainCheckout !== episode.mainCheckout || other.startedAt < episode.startedAt)
        continue;
      const refs = new Map(other.snapshot.refs);
      const info = new Map(other.snapshot.info);
      let { index, head } = other.snapshot;
      for (const { change, error } of results) {
        if (error !== null) continue;
        if (change.kind === 'ref') {
          const was = snapshot.refs.get(change.ref);
          if (was === undefined) refs.delete(change.ref);
          else refs.set(change.ref, was);
        } else if (change.kind === 'index') index = snapshot.index;
        else if (change.kind === 'head') head = snapshot.head;
        else if (change.kind === 'info') {
          const was = snapshot.info.get(change.file);
          if (was === undefined) info.delete(change.file);
          else info.set(change.file, was);
        }
      }
      other.snapshot = { ...other.snapshot, refs, info, index, head };
    }
  }

  /**
   * What Grove itself changed in the repository since `since`: the branches
   * of the project's other sessions that worked or changed meanwhile (a turn's
   * commit, a rebase, a new session, a clean-up), a base branch and the main
   * checkout that a merge or sync wrote.
   */
  private async groveActivity(
    scope: GuardScope,
    since: number,
  ): Promise<{ refs: Set<string>; mainCheckout: boolean }> {
    const { store } = this.deps;
    const refs = new Set<string>();
    let mainCheckout = false;
    // Not the whole archive: a finished session that did not change since is not Grove's doing now.
    for (const s of await store.sessions.listTouchedSince(scope.projectId, since)) {
      if (scope.sessionIds.includes(s.id)) continue;
      const active = isWorking(s.status) || s.status === 'Queued' || s.updatedAt >= since;
      if (!active) continue;
      refs.add(`refs/heads/${s.branch}`);
      refs.add(`refs/grove/snapshots/${s.id}`);
      refs.add(`refs/grove/forks/${s.id}`);
      // A session on a host brings its branch back through a side ref, and its clean-up keeps
      // the host's commits in another: two variants of best of N on one host run side by side.
      if (s.host) {
        refs.add(hostSideRef(s.host, s.branch));
        refs.add(hostKeptRef(s.host, s.id));
      }
      if (s.keptBranch) refs.add(`refs/heads/${s.keptBranch}`);
      if (['Merging', 'Merged', 'Done'].includes(s.status)) {
        refs.add(`refs/heads/${s.baseBranch}`);
        mainCheckout = true;
      }
    }
    const steps = [
      ...[...groveWrites].filter((w) => w.endedAt === null || w.endedAt >= since),
      ...(await store.gitSteps.list()),
    ];
    for (const step of steps) {
      if (step.projectId !== scope.projectId && step.dir !== scope.mainCheckout) continue;
      refs.add(`refs/heads/${step.branch}`);
      if (step.dir === scope.mainCheckout) mainCheckout = true;
    }
    return { refs, mainCheckout };
  }

  private async flag(scope: GuardScope, results: readonly GuardRestore[]): Promise<void> {
    const { store, app, runtime } = this.deps;
    const lines = results.map((r) => restoreText(r, scope.mainCheckout));
    runtime.logger.log('warn', `git guard: ${scope.what} changed shared git state`, lines);
    for (const sessionId of scope.sessionIds) {
      const session = await store.sessions.get(sessionId);
      if (!session) continue;
      const flag = [session.guardFlag, ...lines].filter(Boolean).join('\n');
      await store.sessions.update(sessionId, { guardFlag: flag }, runtime.clock.now());
      await this.deps.note(
        sessionId,
        `[Guard] During ${scope.what}:\n${lines.join('\n')}\nNothing of it is merged or published until you acknowledge this: merge from the session view (its dialog shows this and asks), or run grove merge ${sessionId.slice(0, 8)} --acknowledge (or grove publish … --acknowledge).`,
      );
      const updated = await store.sessions.get(sessionId);
      if (updated) app.emit({ type: 'sessionUpdated', session: updated });
    }
  }
}
