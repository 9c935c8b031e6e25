// Code moves to a host and back with git, never with file copies (issue 24).
// Each project has a bare mirror on the host, Grove's own, at
// `<root>/repos/<project key>.git`. A session's base commit is pushed to it as
// the session's branch over the shared ssh connection (GIT_SSH_COMMAND is
// Grove's ssh with its options), the session's worktree on the host is a
// `git worktree add` of that branch, and after a turn the branch is fetched
// back into the local repository with an explicit refspec: only the session's
// branch moves here, whatever else the host's side offers.
//
// The git on the host runs no hooks: every remote git command gets
// `-c core.hooksPath=/dev/null -c core.fsmonitor=false` (receive-pack,
// upload-pack and `worktree add`, whose post-checkout hook would otherwise
// run), and the mirror is made without a template, so it has no hooks folder.
import { createHash } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { basename } from 'node:path';
import type { Host } from '../../domain/host.js';
import { git, gitOut } from '../git/run.js';
import { shellCommand } from './quote.js';
import { HostError, resolveRoot, runScript } from './remote-script.js';
import type { Ssh } from './ssh.js';

/** Settings on every git command Grove runs on a host: no hook, no file-system monitor. */
export const REMOTE_SAFE_CONFIG = ['-c', 'core.hooksPath=/dev/null', '-c', 'core.fsmonitor=false'];

export interface RemoteProject {
  readonly host: Host;
  /** Grove's root folder on the host (absolute, real). */
  readonly root: string;
  /** The bare mirror on the host. */
  readonly mirror: string;
  /** The mirror as git's scp-like address: `destination:/path`. */
  readonly url: string;
}

export interface RemoteGit {
  readonly ssh: Ssh;
  readonly host: Host;
}

/**
 * A name for `repo` on a host: its folder's name (lower-case letters, digits
 * and '-') and 12 hex digits of its real path, so two projects of the same
 * name never share a mirror.
 */
export function projectKey(repo: string): string {
  const real = realpathSync(repo);
  const name =
    basename(real)
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 40) || 'project';
  const hash = createHash('sha256').update(real).digest('hex').slice(0, 12);
  return `${name}-${hash}`;
}

const KEY = /^[a-z0-9][a-z0-9-]{0,60}$/;
const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,80}$/;
const COMMIT = /^[0-9a-f]{40}([0-9a-f]{24})?$/;

/** A branch name Grove may hand to git on both sides (as git check-ref-format would take it, and more strictly). */
export function branchProblem(branch: string): string | null {
  if (!/^[A-Za-z0-9][A-Za-z0-9._/-]*$/.test(branch))
    return `'${branch}' is not a branch name Grove sends to a host`;
  if (/\.\.|\/\/|\/\.|\.lock(\/|$)|[/.]$/.test(branch)) return `'${branch}' is not a valid branch`;
  return null;
}

function check(ok: boolean, what: string): void {
  if (!ok) throw new HostError(what);
}

/** GIT_SSH_COMMAND for the local git: Grove's ssh, its options quoted for git's `sh -c`. */
export function gitSshCommand(ssh: Ssh): string {
  return shellCommand(ssh.command);
}

/** The environment of a local git command that talks to the host. */
function transportEnv(ssh: Ssh): Record<string, string> {
  return { GIT_SSH_COMMAND: gitSshCommand(ssh), GIT_SSH_VARIANT: 'ssh' };
}

/** The remote git programs, each with hooks off (git pastes them before the quoted path). */
const RECEIVE_PACK = `git ${REMOTE_SAFE_CONFIG.join(' ')} receive-pack`;
const UPLOAD_PACK = `git ${REMOTE_SAFE_CONFIG.join(' ')} upload-pack`;

/**
 * The project's bare mirror on the host: made when missing (`git init
 * --bare` with no template, so no hooks folder), and its paths.
 */
export async function ensureMirror(
  remote: RemoteGit,
  repo: string,
  signal?: AbortSignal,
): Promise<RemoteProject> {
  const key = projectKey(repo);
  check(KEY.test(key), `'${key}' is not a project key`);
  const root = await resolveRoot(remote.ssh, remote.host, signal);
  const mirror = `${root}/repos/${key}.git`;
  await runScript(
    remote.ssh,
    remote.host,
    `the mirror of ${basename(repo)}`,
    // Made in a folder of its own, then renamed in: two placements at once (best of N on a
    // host that has no mirror yet) each running git init in one folder fail on its config.lock.
    // A mirror that another made first stands; mv puts ours inside it if it came between.
    `mirror=$1
if [ ! -f "$mirror/HEAD" ]; then
  mkdir -p -- "\${mirror%/*}" &&
  tmp=$(mktemp -d "$mirror.new.XXXXXX") &&
  git init --quiet --bare --template= -- "$tmp" >/dev/null || exit 1
  [ -e "$mirror" ] || mv -- "$tmp" "$mirror"
  rm -rf -- "$tmp" "$mirror/\${tmp##*/}"
  [ -f "$mirror/HEAD" ] || git init --quiet --bare --template= -- "$mirror" >/dev/null
fi`,
    [mirror],
    { timeoutMs: 60_000, ...(signal ? { signal } : {}) },
  );
  return { host: remote.host, root, mirror, url: `${remote.host.destination}:${mirror}` };
}

/**
 * Pushes `commit` of the local `repo` to the mirror as `branch`. Never
 * forced: a branch the host already has at another commit is refused (its
 * work is not thrown away), and the same commit again is a no-op.
 */
export async function pushBase(
  remote: RemoteGit,
  project: RemoteProject,
  repo: string,
  commit: string,
  branch: string,
  signal?: AbortSignal,
): Promise<void> {
  check(COMMIT.test(commit), `'${commit}' is not a full commit id`);
  const problem = branchProblem(branch);
  if (problem) throw new HostError(problem);
  await git(
    [
      'push',
      '--quiet',
      '--no-verify',
      '--no-recurse-submodules',
      `--receive-pack=${RECEIVE_PACK}`,
      project.url,
      `${commit}:refs/heads/${branch}`,
    ],
    { cwd: repo, env: transportEnv(remote.ssh), timeoutMs: 300_000, signal },
  );
}

/**
 * The session's worktree on the host, `<root>/worktrees/<key>/<session>`,
 * checked out on `branch` (which the mirror must have: pushBase). An existing
 * worktree is kept as it is (a session's second turn). Returns its path.
 */
export async function addWorktree(
  remote: RemoteGit,
  project: RemoteProject,
  sessionId: string,
  branch: string,
  signal?: AbortSignal,
): Promise<string> {
  check(SESSION_ID.test(sessionId), `'${sessionId}' is not a session id`);
  const problem = branchProblem(branch);
  if (problem) throw new HostError(problem);
  const key = basename(project.mirror, '.git');
  const worktree = `${project.root}/worktrees/${key}/${sessionId}`;
  await runScript(
    remote.ssh,
    remote.host,
    `the worktree of session ${sessionId}`,
    `mirror=$1 worktree=$2 branch=$3
shift 3
if [ ! -e "$worktree/.git" ]; then
  mkdir -p -- "\${worktree%/*}" &&
  git -C "$mirror" "$@" worktree add --quiet -- "$worktree" "$branch"
fi`,
    [project.mirror, worktree, branch, ...REMOTE_SAFE_CONFIG],
    { timeoutMs: 300_000, ...(signal ? { signal } : {}) },
  );
  return worktree;
}

/**
 * Fetches the session's branch from the mirror into the local `repo`'s
 * branch of the same name, and nothing else: one explicit refspec, no tags,
 * no FETCH_HEAD, objects checked (transfer.fsckObjects). The branch follows
 * the host even when the agent rewrote it (`+`). Returns its new commit.
 */
export async function fetchBranch(
  remote: RemoteGit,
  project: RemoteProject,
  repo: string,
  branch: string,
  signal?: AbortSignal,
  /** The local ref it goes to (default the branch itself; another when the branch is checked out here). */
  into = `refs/heads/${branch}`,
): Promise<string> {
  const problem = branchProblem(branch);
  if (problem) throw new HostError(problem);
  check(/^refs\/[A-Za-z0-9._/-]+$/.test(into), `'${into}' is not a ref`);
  const ref = `refs/heads/${branch}`;
  await git(
    [
      '-c',
      'transfer.fsckObjects=true',
      'fetch',
      '--quiet',
      '--no-tags',
      '--no-write-fetch-head',
      '--no-recurse-submodules',
      '--no-auto-gc',
      `--upload-pack=${UPLOAD_PACK}`,
      project.url,
      `+${ref}:${into}`,
    ],
    { cwd: repo, env: transportEnv(remote.ssh), timeoutMs: 300_000, signal },
  );
  return gitOut(['rev-parse', '--verify', `${into}^{commit}`], { cwd: repo, signal });
}

/** Everything a session on a host needs before its first turn: the mirror, its branch at `commit`, its worktree. */
export async function placeSession(
  remote: RemoteGit,
  repo: string,
  session: { readonly id: string; readonly branch: string; readonly baseCommit: string },
  signal?: AbortSignal,
): Promise<{ readonly project: RemoteProject; readonly worktree: string }> {
  const project = await ensureMirror(remote, repo, signal);
  await pushBase(remote, project, repo, session.baseCommit, session.branch, signal);
  const worktree = await addWorktree(remote, project, session.id, session.branch, signal);
  return { project, worktree };
}
