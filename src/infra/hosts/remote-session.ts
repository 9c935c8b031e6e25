// A session on a host, turn by turn (issue 24). Before a turn: the project's
// mirror, the session's branch pushed from this machine and its worktree on
// the host (the first turn only), and whether bubblewrap can confine the
// agent there. After a turn: what the agent left in the worktree is committed
// on the host, and the branch comes back here by git, fast-forwarding the
// session's local worktree, so diff, review, merge and publish work on the
// local branch as for any session.
import { basename } from 'node:path';
import { DEFAULT_HOST_ROOT, type HostPlace, type Host } from '../../domain/host.js';
import { git, gitOut } from '../git/run.js';
import {
  REMOTE_SAFE_CONFIG,
  addWorktree,
  ensureMirror,
  fetchBranch,
  pushBase,
  type RemoteGit,
  type RemoteProject,
} from './remote-git.js';
import { HostError, runScript } from './remote-script.js';
import {
  BRANCH_FACTS_SCRIPT,
  commitOnHost,
  parseBranchFacts,
  sideRef,
  syncHostBranch,
} from './remote-sync.js';
import { cancelRun } from './remote-run.js';
import type { Ssh } from './ssh.js';

/**
 * Says `worktree` when the session's worktree exists, `bwrap` when bubblewrap
 * can make a sandbox for the host user, then the branch's facts
 * (remote-sync.ts: BRANCH_FACTS_SCRIPT). Its arguments: worktree, mirror,
 * branch, git's options.
 */
const FACTS_SCRIPT = `[ -e "$1/.git" ] && echo worktree
if command -v bwrap >/dev/null 2>&1 &&
  bwrap --ro-bind / / --dev /dev --proc /proc --unshare-pid --die-with-parent -- true >/dev/null 2>&1; then
  echo bwrap
fi
${BRANCH_FACTS_SCRIPT}`;

/** Why a host that cannot confine agents runs none, and how to allow it. */
export function unconfinedRefusal(host: Host): HostError {
  return new HostError(
    `Grove runs agents on ${host.name} only inside bubblewrap, and bubblewrap there is missing or cannot make a sandbox for the host user. No agent was started.`,
    `install bubblewrap on the host (apt-get install bubblewrap) and check it with grove host check ${host.name}; or, to let agents on ${host.name} write anywhere its user can, add it again with --allow-unconfined (grove host add ${host.name} ${host.destination}${host.root === DEFAULT_HOST_ROOT ? '' : ` --root ${host.root}`} --allow-unconfined)`,
  );
}

/** What a turn's placement does beyond making the place (the turn runner's, not a stop's). */
export interface PlaceOptions {
  /**
   * The session's local worktree: the host's branch and worktree are brought
   * to the local branch's commit first (remote-sync.ts), after a rebase here
   * or the host's leftovers. Absent (a stop of a run left on the host), the
   * host's side is left as it is.
   */
  readonly syncFrom?: string;
  /** Told what the sync did, in words, for the transcript. */
  readonly onSynced?: (text: string) => void;
}

/**
 * Makes the session's place on the host for a turn: the mirror, then (first
 * turn) the local branch pushed and the worktree added, or (later turns, with
 * `syncFrom`) the host's branch and worktree brought to the local branch's
 * commit. Refuses (HostError) when bubblewrap cannot confine the agent there
 * and unconfined runs were not allowed for this host.
 */
export async function placeForTurn(
  ssh: Ssh,
  host: Host,
  repo: string,
  session: { readonly id: string; readonly branch: string },
  allowUnconfined: boolean,
  signal?: AbortSignal,
  options: PlaceOptions = {},
): Promise<HostPlace> {
  const remote: RemoteGit = { ssh, host };
  const project = await ensureMirror(remote, repo, signal);
  const worktree = `${project.root}/worktrees/${basename(project.mirror, '.git')}/${session.id}`;
  const facts = (
    await runScript(
      ssh,
      host,
      `the session on ${host.name}`,
      FACTS_SCRIPT,
      [worktree, project.mirror, session.branch, ...REMOTE_SAFE_CONFIG],
      { timeoutMs: 60_000, ...(signal ? { signal } : {}) },
    )
  ).split('\n');
  const confined = facts.includes('bwrap');
  if (!confined && !allowUnconfined) throw unconfinedRefusal(host);
  if (!facts.includes('worktree')) {
    // The branch as it is here (its base on the first turn), never forced over the host's.
    const head = await gitOut(['rev-parse', '--verify', `refs/heads/${session.branch}^{commit}`], {
      cwd: repo,
      signal,
    });
    await pushBase(remote, project, repo, head, session.branch, signal);
    await addWorktree(remote, project, session.id, session.branch, signal);
  } else if (options.syncFrom !== undefined) {
    const said = await syncHostBranch(
      remote,
      { project, worktree, branch: session.branch },
      repo,
      options.syncFrom,
      parseBranchFacts(facts),
      signal,
    );
    if (said) options.onSynced?.(said);
  }
  return {
    host,
    root: project.root,
    mirror: project.mirror,
    worktree,
    branch: session.branch,
    confined,
  };
}

/**
 * After a turn: commits what the agent left in the host's worktree on the
 * session's branch (hooks off, git's folders from Grove's records), fetches
 * the branch into a side ref here, fast-forwards the session's local
 * worktree to it and drops the side ref. Returns the branch's commit.
 */
export async function bringBack(
  ssh: Ssh,
  place: HostPlace,
  repo: string,
  localWorktree: string,
  message: string,
  signal?: AbortSignal,
  /** Leave this turn's commits as staged changes in the local worktree, for Grove's own commit. */
  restage = false,
): Promise<string> {
  const project: RemoteProject = {
    host: place.host,
    root: place.root,
    mirror: place.mirror,
    url: `${place.host.destination}:${place.mirror}`,
  };
  await commitOnHost(
    { ssh, host: place.host },
    { project, worktree: place.worktree, branch: place.branch },
    repo,
    message,
    signal,
  );
  // The branch is checked out in the local worktree, so git fetches into a side ref first.
  const side = sideRef(place.host, place.branch);
  const commit = await fetchBranch(
    { ssh, host: place.host },
    project,
    repo,
    place.branch,
    signal,
    side,
  );
  const before = await gitOut(['rev-parse', '--verify', 'HEAD^{commit}'], { cwd: localWorktree });
  try {
    await git(['-c', 'core.hooksPath=/dev/null', 'merge', '--ff-only', '--quiet', commit], {
      cwd: localWorktree,
      signal,
    });
    // The host's commits of this turn become staged changes here: Grove's own commit (its
    // message from the fast model, the session's single evolving commit) takes them as for
    // any session. The host's branch takes that commit at the next turn (remote-sync.ts).
    if (restage && before !== commit)
      await git(['reset', '--soft', '--quiet', before], { cwd: localWorktree, signal });
  } catch (error) {
    throw new HostError(
      `the branch ${place.branch} from ${place.host.name} does not follow the local one (it moved here too), so the local worktree was left as it was: ${error instanceof Error ? error.message : String(error)}`,
    );
  } finally {
    await git(['update-ref', '-d', side], { cwd: repo }).catch(() => undefined);
  }
  return commit;
}

/** Sessions on hosts as the turn runner uses them (app/ports.ts: HostSessions). */
export interface HostSessions {
  /** The session's place on its host for a turn (placeForTurn); a HostError in words when it cannot run there. */
  place(
    hostName: string,
    repo: string,
    session: { readonly id: string; readonly branch: string },
    signal?: AbortSignal,
    options?: PlaceOptions,
  ): Promise<HostPlace>;
  /** After a turn: commit on the host, fetch, fast-forward the local worktree, restaged for Grove's commit when asked (bringBack). */
  bringBack(
    place: HostPlace,
    repo: string,
    localWorktree: string,
    message: string,
    signal?: AbortSignal,
    restage?: boolean,
  ): Promise<string>;
  /** Ends a run a turn started on the host, its whole process group (remote-run.ts: cancelRun). */
  stopRun(
    place: HostPlace,
    runId: string,
    pgid: number | null,
    signal?: AbortSignal,
  ): Promise<void>;
}

export function createHostSessions(
  ssh: Ssh,
  hosts: { get(name: string): Promise<Host | undefined> },
  allowUnconfined: (host: Host) => Promise<boolean>,
): HostSessions {
  return {
    async place(hostName, repo, session, signal, options) {
      const host = await hosts.get(hostName);
      if (!host)
        throw new HostError(
          `the session runs on the host ${hostName}, which Grove no longer knows (grove host ls)`,
        );
      return placeForTurn(ssh, host, repo, session, await allowUnconfined(host), signal, options);
    },
    bringBack: (place, repo, localWorktree, message, signal, restage) =>
      bringBack(ssh, place, repo, localWorktree, message, signal, restage),
    stopRun: (place, runId, pgid, signal) =>
      cancelRun({ ssh, host: place.host }, runId, signal, pgid),
  };
}
