// The host's copy of a session's branch brought in step with the local one
// before a turn runs there (issue 24, item 3): after a rebase here (`r`, the
// merge queue's rebase, `grove rebase`, the CI fixer's), or the person's own
// commits in the local worktree, the mirror's branch and the host's worktree
// still hold the old commits. This is done lazily, at the next turn's
// placement, so a rebase never waits for (or fails on) a host that is away.
//
// Nothing on the host is believed: the agent there can move the mirror's
// refs, the worktree's HEAD and its admin folder. Every git command on the
// host takes its folders from Grove's records (GIT_DIR, GIT_COMMON_DIR,
// GIT_WORK_TREE), never from the worktree's `.git` file or the admin
// folder's `commondir`, with hooks and the file-system monitor off. The
// host's branch is replaced only by a fast-forward, when its commit is one
// the local branch has had (its reflog), or when its files are the local
// branch's: what the host has and this machine lacks is never forced over. Such work is brought back first when the local
// branch did not move; when both moved, the turn is refused in words and the
// host's commits are kept here under a side ref.
import { git, gitOut } from '../git/run.js';
import { hostSideRef, type Host } from '../../domain/host.js';
import {
  REMOTE_SAFE_CONFIG,
  branchProblem,
  fetchBranch,
  gitSshCommand,
  type RemoteGit,
  type RemoteProject,
} from './remote-git.js';
import { HostError, runScript } from './remote-script.js';

/** What the host says about the session's branch and worktree (untrusted: read, never obeyed). */
export interface HostBranchFacts {
  /** The mirror's branch, or null when it has none. */
  readonly mirror: string | null;
  /** What the worktree's HEAD names (`refs/heads/…`), or null when it is detached or unreadable. */
  readonly symref: string | null;
  /** The worktree's HEAD commit, or null. */
  readonly head: string | null;
  /** The worktree has changes not committed (or git could not read it). */
  readonly dirty: boolean;
}

const COMMIT = /^[0-9a-f]{40}([0-9a-f]{24})?$/;

/**
 * Shell lines that point git at the session's worktree with the folders from
 * Grove's records ($mirror, $wt; the admin folder is named after the
 * worktree's folder, the session id), whatever its `.git` file or the admin
 * folder's `commondir` say.
 */
export const WORKTREE_GIT_ENV = `GIT_DIR="$mirror/worktrees/\${wt##*/}" GIT_COMMON_DIR="$mirror" GIT_WORK_TREE="$wt"
export GIT_DIR GIT_COMMON_DIR GIT_WORK_TREE
`;

/** Prints the facts of HostBranchFacts ($1 worktree, $2 mirror, $3 branch; git's options after). */
export const BRANCH_FACTS_SCRIPT = `wt=$1 mirror=$2 branch=$3
shift 3
c=$(git --git-dir="$mirror" "$@" rev-parse -q --verify "refs/heads/$branch^{commit}" 2>/dev/null) && echo "mirror $c"
if [ -e "$wt/.git" ] && [ -d "$mirror/worktrees/\${wt##*/}" ]; then
  ${WORKTREE_GIT_ENV}  r=$(git "$@" symbolic-ref -q HEAD 2>/dev/null) && echo "symref $r"
  c=$(git "$@" rev-parse -q --verify 'HEAD^{commit}' 2>/dev/null) && echo "head $c"
  s=$(cd -- "$wt" && git "$@" status --porcelain --untracked-files=all 2>/dev/null) || s=unreadable
  [ -n "$s" ] && echo dirty
fi
exit 0
`;

/** Reads HostBranchFacts from the lines BRANCH_FACTS_SCRIPT printed (anything else is ignored). */
export function parseBranchFacts(lines: readonly string[]): HostBranchFacts {
  let mirror: string | null = null;
  let symref: string | null = null;
  let head: string | null = null;
  let dirty = false;
  for (const line of lines) {
    const [word, value = ''] = line.split(' ', 2);
    if (word === 'mirror' && COMMIT.test(value)) mirror = value;
    else if (word === 'head' && COMMIT.test(value)) head = value;
    else if (word === 'symref' && /^refs\/heads\/[A-Za-z0-9._/-]+$/.test(value)) symref = value;
    else if (line === 'dirty') dirty = true;
  }
  return { mirror, symref, head, dirty };
}

/** True: the host's branch and worktree are exactly the local branch at `local`, nothing left over. */
export function inStep(facts: HostBranchFacts, branch: string, local: string): boolean {
  return (
    facts.mirror === local &&
    facts.head === local &&
    facts.symref === `refs/heads/${branch}` &&
    !facts.dirty
  );
}

/**
 * Commits everything in the session's worktree on the host ($1 worktree,
 * $2 mirror, $3 branch, $4 message; git's options after) on the session's
 * branch, wherever the agent pointed HEAD (the files are kept, as the local
 * guard keeps them); prints the branch's commit.
 */
export const COMMIT_SCRIPT = `wt=$1 mirror=$2 branch=$3 msg=$4
shift 4
${WORKTREE_GIT_ENV}cd -- "$wt" || exit 1
git "$@" symbolic-ref HEAD "refs/heads/$branch" || exit 1
git "$@" add -A || exit 1
if ! git "$@" diff --cached --quiet; then
  git "$@" commit --quiet --no-verify -m "$msg" || exit 1
fi
git "$@" rev-parse --verify "refs/heads/$branch^{commit}"
`;

/** The name and e-mail the local repository commits with, for a commit on the host (Grove's when unset). */
export async function identity(repo: string): Promise<string[]> {
  const read = (key: string): Promise<string> =>
    gitOut(['config', key], { cwd: repo }).catch(() => '');
  const name = (await read('user.name')) || 'Grove';
  const email = (await read('user.email')) || 'grove@localhost';
  return ['-c', `user.name=${name}`, '-c', `user.email=${email}`];
}

/** The session's place on the host as the sync needs it. */
export interface HostBranch {
  readonly project: RemoteProject;
  readonly worktree: string;
  readonly branch: string;
}

/** Commits what is left in the host's worktree (hooks off, the local identity); returns the branch's commit there. */
export async function commitOnHost(
  remote: RemoteGit,
  place: HostBranch,
  repo: string,
  message: string,
  signal?: AbortSignal,
): Promise<string> {
  const out = await runScript(
    remote.ssh,
    remote.host,
    `committing the turn on ${remote.host.name}`,
    COMMIT_SCRIPT,
    [
      place.worktree,
      place.project.mirror,
      place.branch,
      message,
      ...REMOTE_SAFE_CONFIG,
      ...(await identity(repo)),
    ],
    { timeoutMs: 300_000, ...(signal ? { signal } : {}) },
  );
  const commit = out.trim();
  if (!COMMIT.test(commit))
    throw new HostError(`the branch ${place.branch} on ${remote.host.name} has no commit`);
  return commit;
}

/** Puts the host's worktree on the branch at `commit` (which the mirror's branch must be), its files as committed. */
const RESET_SCRIPT = `wt=$1 mirror=$2 branch=$3 commit=$4
shift 4
${WORKTREE_GIT_ENV}now=$(git "$@" rev-parse -q --verify "refs/heads/$branch^{commit}") || now=none
if [ "$now" != "$commit" ]; then
  echo "the branch moved on the host while Grove was sending it (it is at $now)" >&2
  exit 1
fi
git "$@" symbolic-ref HEAD "refs/heads/$branch" &&
cd -- "$wt" && git "$@" reset --quiet --hard "$commit"
`;

/** The side ref here that the host's branch is fetched into (the branch is checked out in the local worktree). */
export function sideRef(host: Host, branch: string): string {
  return hostSideRef(host.name, branch);
}

async function isAncestor(repo: string, a: string, b: string): Promise<boolean> {
  return git(['merge-base', '--is-ancestor', a, b], { cwd: repo }).then(
    () => true,
    () => false,
  );
}

/** True: the local branch has pointed at `commit` (its reflog says so), so replacing it on the host loses nothing. */
async function hadHere(repo: string, branch: string, commit: string): Promise<boolean> {
  const log = await gitOut(['log', '-g', '--format=%H', `refs/heads/${branch}`, '--'], {
    cwd: repo,
  }).catch(() => '');
  return log.split('\n').includes(commit);
}

/** Sends `local` to the mirror's branch, only over `expected` (null: the branch must not be there). */
async function sendBranch(
  remote: RemoteGit,
  place: HostBranch,
  repo: string,
  local: string,
  expected: string | null,
  signal?: AbortSignal,
): Promise<void> {
  const ref = `refs/heads/${place.branch}`;
  // The branch is checked out in the host's worktree: receive-pack would refuse to move it; Grove resets the worktree itself.
  const receivePack = `git ${REMOTE_SAFE_CONFIG.join(' ')} -c receive.denyCurrentBranch=ignore receive-pack`;
  await git(
    [
      'push',
      '--quiet',
      '--no-verify',
      '--no-recurse-submodules',
      `--force-with-lease=${ref}:${expected ?? ''}`,
      `--receive-pack=${receivePack}`,
      place.project.url,
      `${local}:${ref}`,
    ],
    {
      cwd: repo,
      env: { GIT_SSH_COMMAND: gitSshCommand(remote.ssh), GIT_SSH_VARIANT: 'ssh' },
      timeoutMs: 300_000,
      signal,
    },
  );
}

const short = (commit: string): string => commit.slice(0, 12);

/**
 * True: putting `local` over the host's `remote` loses nothing the host has:
 * `remote` is behind `local`, or the local branch has pointed at it (its
 * reflog: a rebase here replaced it), or its files are exactly the local
 * branch's (the agent only moved refs or HEAD around).
 */
async function nothingLost(
  repo: string,
  branch: string,
  remote: string,
  local: string,
): Promise<boolean> {
  if (await isAncestor(repo, remote, local)) return true;
  if (await hadHere(repo, branch, remote)) return true;
  const tree = (commit: string): Promise<string> =>
    gitOut(['rev-parse', '--verify', `${commit}^{tree}`], { cwd: repo });
  return (await tree(remote)) === (await tree(local));
}

/**
 * Brings the host's branch and worktree to the local branch's commit before
 * a turn. `facts` is what the host said before. Returns what happened in
 * words for the transcript (null: nothing worth saying), or throws a
 * HostError in words when the host's branch has work this machine lacks and
 * the local branch moved too.
 */
export async function syncHostBranch(
  remote: RemoteGit,
  place: HostBranch,
  repo: string,
  localWorktree: string,
  facts: HostBranchFacts,
  signal?: AbortSignal,
): Promise<string | null> {
  const problem = branchProblem(place.branch);
  if (problem) throw new HostError(problem);
  const name = remote.host.name;
  const localRef = `refs/heads/${place.branch}`;
  let local = await gitOut(['rev-parse', '--verify', `${localRef}^{commit}`], {
    cwd: repo,
    signal,
  });
  if (inStep(facts, place.branch, local)) return null;
  const said: string[] = [];
  // What the agent left uncommitted there (a turn whose bringing back failed) goes on the branch first.
  let remoteHead = facts.mirror;
  if (facts.dirty || facts.symref !== `refs/heads/${place.branch}`)
    remoteHead = await commitOnHost(remote, place, repo, 'Work left on the host', signal);
  const side = sideRef(remote.host, place.branch);
  let keepSide = false;
  try {
    if (remoteHead !== null && remoteHead !== local) {
      remoteHead = await fetchBranch(remote, place.project, repo, place.branch, signal, side);
      if (await isAncestor(repo, local, remoteHead)) {
        // The host has commits this machine never got, and the branch here did not move: they come here first.
        try {
          await git(
            ['-c', 'core.hooksPath=/dev/null', 'merge', '--ff-only', '--quiet', remoteHead],
            {
              cwd: localWorktree,
              signal,
            },
          );
        } catch (error) {
          keepSide = true;
          throw new HostError(
            `the branch ${place.branch} on ${name} has commits that were not brought back here, and the local worktree could not take them: ${error instanceof Error ? error.message : String(error)}`,
            `commit or remove the changes in ${localWorktree}, then reply again; the host's commits are kept here as ${side}`,
          );
        }
        said.push(
          `The work left on ${name} (up to ${short(remoteHead)}) was brought back to ${place.branch} first.`,
        );
        local = remoteHead;
      } else if (!(await nothingLost(repo, place.branch, remoteHead, local))) {
        keepSide = true;
        throw new HostError(
          `the branch ${place.branch} on ${name} has commits that were never brought back here (up to ${short(remoteHead)}), and ${place.branch} moved here too (rebased or changed), so Grove sent no prompt: it overwrites neither side`,
          `the host's commits are kept here as ${side}; take them into the session's branch (cd ${localWorktree} && git merge ${side}), or keep the branch as it is here without them (git merge -s ours ${side}); then reply again`,
        );
      } else {
        await sendBranch(remote, place, repo, local, remoteHead, signal);
        said.push(
          `${name}'s copy of ${place.branch} moved from ${short(remoteHead)} to ${short(local)}, the branch as it is here.`,
        );
      }
    } else if (remoteHead === null) {
      await sendBranch(remote, place, repo, local, null, signal);
    }
    await runScript(
      remote.ssh,
      remote.host,
      `the worktree of ${place.branch} on ${name}`,
      RESET_SCRIPT,
      [place.worktree, place.project.mirror, place.branch, local, ...REMOTE_SAFE_CONFIG],
      { timeoutMs: 300_000, ...(signal ? { signal } : {}) },
    );
  } finally {
    if (!keepSide) await git(['update-ref', '-d', side], { cwd: repo }).catch(() => undefined);
  }
  if (said.length === 0)
    said.push(`${name}'s worktree was put back on ${place.branch} at ${short(local)}.`);
  return said.join(' ');
}
