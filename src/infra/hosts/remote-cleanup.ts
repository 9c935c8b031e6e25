// What a session that ended for good leaves on its host, removed (issue 24):
// its worktree `<root>/worktrees/<key>/<id>`, its branch in the project's
// mirror and its run folders `<root>/runs/<run id>`. Only those paths, each
// named by Grove's own records (the project's key, the session id, the run
// ids its operations kept), never a path read from the host; and never work
// that is not here yet: a worktree with uncommitted changes is kept (said in
// words), and a branch whose commits this repository does not hold is
// fetched first, into a ref of its own, before anything goes. A run that is
// still going keeps everything until it ends.
import { hostKeptRef, type Host } from '../../domain/host.js';
import { git, gitOut } from '../git/run.js';
import { branchProblem, fetchBranch, projectKey } from './remote-git.js';
import { HostError, resolveRoot, runScript } from './remote-script.js';
import type { Ssh } from './ssh.js';

const RUN_ID = /^r-[0-9a-f]{24}$/;
const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,80}$/;
const COMMIT = /^[0-9a-f]{40}([0-9a-f]{24})?$/;

/** What to remove for one session. */
export interface CleanTarget {
  readonly sessionId: string;
  readonly branch: string;
  /** The local branch's commit when the session ended (null: none). */
  readonly commit: string | null;
  /** The runs its turns started there. */
  readonly runIds: readonly string[];
}

export type CleanResult =
  | {
      readonly kind: 'cleaned';
      /** What went: the worktree, the branch, how many run folders. */
      readonly worktree: boolean;
      readonly branch: boolean;
      readonly runs: number;
      /** The local ref that now keeps commits the host had and this repository did not (null: none). */
      readonly keptAt: string | null;
    }
  | {
      /** Nothing was removed, and trying again later will not change that by itself. */
      readonly kind: 'kept';
      readonly reason: string;
    }
  | {
      /** Nothing was removed yet: a run of the session still goes on there. */
      readonly kind: 'busy';
      readonly reason: string;
    };

/** Removes what sessions that ended left on their hosts (app/ports.ts: HostCleaner). */
export interface HostCleaner {
  /** Throws a HostError in words when the host cannot be reached or answers with a failure. */
  cleanUp(
    hostName: string,
    repo: string,
    target: CleanTarget,
    signal?: AbortSignal,
  ): Promise<CleanResult>;
}

/**
 * $1 root, $2 mirror, $3 worktree, $4 branch, then run ids. Says which runs
 * still go on (their leader alive and still the run's wrapper, whose command
 * line names the run folder: a pid file is the agent's to write), whether
 * the worktree is a symbolic link, the branch's commit in the mirror, and
 * the worktree's HEAD and number of uncommitted changes (read with its git
 * folders from Grove's records), or that the mirror does not list it.
 */
const INSPECT_SCRIPT = `root=$1 mirror=$2 wt=$3 branch=$4
shift 4
g() { git -c core.hooksPath=/dev/null -c core.fsmonitor=false "$@"; }
for id in "$@"; do
  dir=$root/runs/$id
  [ -f "$dir/pid" ] && [ ! -e "$dir/exit" ] || continue
  pgid=$(head -c 20 -- "$dir/pid" 2>/dev/null)
  case $pgid in ''|*[!0-9]*) continue ;; esac
  if [ -r "/proc/$pgid/cmdline" ]; then
    tr '\\000' ' ' < "/proc/$pgid/cmdline" 2>/dev/null | grep -qF -- "grove-run $dir " && echo "running $id"
  else
    ps -o args= -p "$pgid" 2>/dev/null | grep -qF -- "grove-run $dir " && echo "running $id"
  fi
done
[ -L "$wt" ] && echo link
if [ -f "$mirror/HEAD" ]; then
  tip=$(g -C "$mirror" rev-parse -q --verify "refs/heads/$branch^{commit}" 2>/dev/null) && echo "tip $tip"
fi
if [ -e "$wt" ] && [ ! -L "$wt" ]; then
  # The worktree's git folders from Grove's records, never from its .git file (the agent's to rewrite).
  admin=$mirror/worktrees/\${wt##*/}
  if [ -d "$admin" ]; then
    export GIT_DIR="$admin" GIT_COMMON_DIR="$mirror" GIT_WORK_TREE="$wt"
    head=$(cd -- "$wt" && g rev-parse -q --verify HEAD 2>/dev/null) && echo "head $head"
    if out=$(cd -- "$wt" && g status --porcelain --untracked-files=all 2>/dev/null); then
      echo "dirty $(printf '%s' "$out" | grep -c .)"
    else
      echo "dirty unknown"
    fi
    unset GIT_DIR GIT_COMMON_DIR GIT_WORK_TREE
  else
    echo unregistered
  fi
fi
exit 0
`;

/**
 * $1 root, $2 mirror, $3 worktree, $4 branch, $5 the branch's commit as
 * inspected ('' for none), then run ids. Removes the worktree through the
 * mirror's own list (git worktree remove, never rm of a path the host
 * names), the branch only while it is still at that commit, and each run
 * folder (a link is removed, not followed). Says what went and what is left.
 */
const REMOVE_SCRIPT = `root=$1 mirror=$2 wt=$3 branch=$4 tip=$5
shift 5
g() { git -c core.hooksPath=/dev/null -c core.fsmonitor=false "$@"; }
if [ -f "$mirror/HEAD" ]; then
  if [ -e "$wt" ] && [ ! -L "$wt" ]; then
    g -C "$mirror" worktree remove --force "$wt" >/dev/null 2>&1 && echo worktree
  fi
  g -C "$mirror" worktree prune >/dev/null 2>&1
  if [ -n "$tip" ]; then
    g -C "$mirror" update-ref -d "refs/heads/$branch" "$tip" 2>/dev/null && echo branch
  fi
fi
if [ -e "$wt" ] || [ -L "$wt" ]; then echo left; else rmdir -- "\${wt%/*}" 2>/dev/null; fi
for id in "$@"; do
  dir=$root/runs/$id
  if [ -e "$dir" ] || [ -L "$dir" ]; then rm -rf -- "$dir" && echo "run $id"; fi
done
exit 0
`;

function check(ok: boolean, what: string): void {
  if (!ok) throw new HostError(what);
}

/** Whether `commit` is in this repository and a ref here (or `ended`, the branch's commit when the session ended) holds it. */
async function heldHere(repo: string, commit: string, ended: string | null): Promise<boolean> {
  const present = await git(['cat-file', '-e', `${commit}^{commit}`], { cwd: repo }).then(
    () => true,
    () => false,
  );
  if (!present) return false;
  if (ended && COMMIT.test(ended)) {
    const ancestor = await git(['merge-base', '--is-ancestor', commit, ended], { cwd: repo }).then(
      () => true,
      () => false,
    );
    if (ancestor) return true;
  }
  const refs = await gitOut(['for-each-ref', '--count=1', `--contains=${commit}`, '--format=x'], {
    cwd: repo,
  }).catch(() => '');
  return refs !== '';
}

/** The local ref that keeps a host's commits fetched at clean-up. */
export function keptRef(host: string, sessionId: string): string {
  return hostKeptRef(host, sessionId);
}

export async function cleanSessionOnHost(
  ssh: Ssh,
  host: Host,
  repo: string,
  target: CleanTarget,
  signal?: AbortSignal,
): Promise<CleanResult> {
  check(SESSION_ID.test(target.sessionId), `'${target.sessionId}' is not a session id`);
  const problem = branchProblem(target.branch);
  if (problem) throw new HostError(problem);
  const runIds = target.runIds.filter((id) => RUN_ID.test(id));
  let key: string;
  try {
    key = projectKey(repo);
  } catch {
    throw new HostError(`the project folder ${repo} is gone here, so Grove cannot name its mirror`);
  }
  const root = await resolveRoot(ssh, host, signal);
  const mirror = `${root}/repos/${key}.git`;
  const worktree = `${root}/worktrees/${key}/${target.sessionId}`;
  const options = { timeoutMs: 120_000, ...(signal ? { signal } : {}) };
  const args = [root, mirror, worktree, target.branch];
  const facts = (
    await runScript(
      ssh,
      host,
      `the session on ${host.name}`,
      INSPECT_SCRIPT,
      [...args, ...runIds],
      options,
    )
  ).split('\n');
  const fact = (name: string): string | undefined =>
    facts.find((line) => line.startsWith(`${name} `))?.slice(name.length + 1);
  const running = facts.filter((line) => line.startsWith('running ')).length;
  if (running > 0)
    return {
      kind: 'busy',
      reason: `${running === 1 ? 'a run' : `${String(running)} runs`} of the session still go${running === 1 ? 'es' : ''} on there`,
    };
  if (facts.includes('unregistered'))
    return {
      kind: 'kept',
      reason: `${worktree} is not a worktree of Grove's mirror there: nothing was removed`,
    };
  if (facts.includes('link'))
    return {
      kind: 'kept',
      reason: `${worktree} is a symbolic link, not the worktree Grove made: nothing was removed`,
    };
  const dirtyFact = fact('dirty') ?? '0';
  if (!/^\d+$/.test(dirtyFact))
    return {
      kind: 'kept',
      reason: `git on ${host.name} could not read the state of the worktree ${worktree}: it was kept`,
    };
  const dirty = Number(dirtyFact);
  if (dirty > 0)
    return {
      kind: 'kept',
      reason: `the worktree ${worktree} has ${String(dirty)} uncommitted change${dirty === 1 ? '' : 's'} that never came back here: it was kept, with the session's branch and runs there`,
    };
  const tip = fact('tip') ?? '';
  check(tip === '' || COMMIT.test(tip), `the mirror on ${host.name} named '${tip}' as a commit`);
  const head = fact('head') ?? '';
  let keptAt: string | null = null;
  const unheld: string[] = [];
  for (const commit of new Set([tip, COMMIT.test(head) ? head : ''].filter((c) => c !== '')))
    if (!(await heldHere(repo, commit, target.commit))) unheld.push(commit);
  if (unheld.length > 0) {
    if (tip === '' || unheld.some((c) => c !== tip))
      return {
        kind: 'kept',
        reason: `the worktree ${worktree} is on a commit this repository does not have and no branch there holds: it was kept`,
      };
    // Fetched first: the host's commits are kept here, in a ref of their own.
    keptAt = keptRef(host.name, target.sessionId);
    await fetchBranch(
      { ssh, host },
      { host, root, mirror, url: `${host.destination}:${mirror}` },
      repo,
      target.branch,
      signal,
      keptAt,
    );
  }
  const gone = (
    await runScript(
      ssh,
      host,
      `cleaning up on ${host.name}`,
      REMOVE_SCRIPT,
      [...args, tip, ...runIds],
      options,
    )
  ).split('\n');
  if (gone.includes('left'))
    return {
      kind: 'kept',
      reason: `git on ${host.name} did not remove the worktree ${worktree} (not a worktree of Grove's mirror, or locked)${keptAt ? `; its commits are kept here at ${keptAt}` : ''}`,
    };
  return {
    kind: 'cleaned',
    worktree: gone.includes('worktree'),
    branch: gone.includes('branch'),
    runs: gone.filter((line) => line.startsWith('run ')).length,
    keptAt,
  };
}

export function createHostCleaner(
  ssh: Ssh,
  hosts: { get(name: string): Promise<Host | undefined> },
): HostCleaner {
  return {
    async cleanUp(hostName, repo, target, signal) {
      const host = await hosts.get(hostName);
      if (!host)
        throw new HostError(
          `Grove no longer knows the host ${hostName} (grove host ls): nothing was removed there`,
        );
      return cleanSessionOnHost(ssh, host, repo, target, signal);
    },
  };
}
