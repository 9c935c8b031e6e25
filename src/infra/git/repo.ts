import { sanitizeLine, sanitizeText } from '../../domain/sanitize.js';
import { git, gitOut, gitTask } from './run.js';

export { repoRoot } from './repo-root.js';

export interface StatusEntry {
  /** Two-letter porcelain code, e.g. ' M', '??', 'A '. */
  readonly code: string;
  readonly path: string;
}

export async function currentBranch(dir: string): Promise<string | null> {
  const result = await git(['symbolic-ref', '--quiet', '--short', 'HEAD'], {
    cwd: dir,
    okCodes: [1],
  });
  return result.exitCode === 0 ? result.stdout.trim() || null : null;
}

/**
 * Porcelain v1 with NUL separators, parsed here rather than by simple-git's
 * `status()`: its parser trims each entry, so a path that starts with a space
 * loses it and ` M` (changed in the worktree) reads as `M ` (staged), and it
 * leaves a copy's source as an entry of its own.
 */
export async function statusPorcelain(dir: string): Promise<StatusEntry[]> {
  const out = (await git(['status', '--porcelain=v1', '-z', '--untracked-files=all'], { cwd: dir }))
    .stdout;
  const entries: StatusEntry[] = [];
  const parts = out.split('\0');
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i] ?? '';
    if (part.length < 4) continue;
    const code = part.slice(0, 2);
    entries.push({ code, path: part.slice(3) });
    if (code.startsWith('R') || code.startsWith('C')) i++; // the rename source follows
  }
  return entries;
}

export async function isClean(dir: string): Promise<boolean> {
  return (await statusPorcelain(dir)).length === 0;
}

export async function headCommit(dir: string): Promise<string> {
  return gitTask(['rev-parse', 'HEAD'], { cwd: dir }, (sg) => sg.revparse(['HEAD']));
}

export async function branchExists(dir: string, name: string): Promise<boolean> {
  const result = await git(['show-ref', '--verify', '--quiet', `refs/heads/${name}`], {
    cwd: dir,
    okCodes: [1],
  });
  return result.exitCode === 0;
}

/** `origin/main` style upstream of a local branch, or null. */
export async function upstreamOf(dir: string, branch: string): Promise<string | null> {
  const result = await git(
    ['rev-parse', '--abbrev-ref', '--symbolic-full-name', `${branch}@{upstream}`],
    { cwd: dir, okCodes: [128] },
  );
  return result.exitCode === 0 ? result.stdout.trim() || null : null;
}

/** Commits on `left` not on `right` (ahead) and the reverse (behind). */
export async function aheadBehind(
  dir: string,
  left: string,
  right: string,
): Promise<{ ahead: number; behind: number }> {
  const out = await gitOut(['rev-list', '--left-right', '--count', `${left}...${right}`], {
    cwd: dir,
  });
  const [ahead = '0', behind = '0'] = out.split(/\s+/);
  return { ahead: Number(ahead), behind: Number(behind) };
}

/**
 * Every local branch and the commit it points at, from one git call. Plumbing
 * (`for-each-ref`) rather than simple-git's `branchLocal()`: that runs `git
 * branch -v`, which abbreviates commit ids and works out each upstream's
 * ahead/behind, a history walk per published branch on every poll.
 */
export async function branchHeads(dir: string): Promise<Map<string, string>> {
  const out = await gitOut(['for-each-ref', '--format=%(objectname) %(refname)', 'refs/heads/'], {
    cwd: dir,
  });
  const heads = new Map<string, string>();
  for (const line of out.split('\n')) {
    const space = line.indexOf(' ');
    if (space > 0)
      heads.set(line.slice(space + 1).replace(/^refs\/heads\//, ''), line.slice(0, space));
  }
  return heads;
}

/** Commit subjects of `from..to`, newest first, sanitized for display (commits may come from an agent or a remote). */
export async function commitSubjects(dir: string, range: string): Promise<string[]> {
  const [from = '', to = ''] = range.split('..');
  const log = await gitTask(['log', range], { cwd: dir }, (sg) =>
    sg.log({ from, to, symmetric: false, format: { subject: '%s' } }),
  );
  return log.all.map((commit) => sanitizeLine(commit.subject));
}

/**
 * The base commit a session branch was last put on, from the branch's
 * reflog: the commit of its latest rebase ("… onto <commit>"), else the
 * commit it was created at. Null when the reflog does not say (no reflog,
 * or nothing that names one). Only a hint: the reflog is the agent's to write.
 */
export async function lastBaseTip(dir: string, branch: string): Promise<string | null> {
  const out = await git(['reflog', 'show', '--format=%H %gs', `refs/heads/${branch}`, '--'], {
    cwd: dir,
    okCodes: [128],
  });
  if (out.exitCode !== 0) return null;
  const entries = out.stdout.split('\n').filter(Boolean);
  for (const entry of entries) {
    const onto = / onto ([0-9a-f]{40,64})$/.exec(entry)?.[1];
    if (entry.includes(' rebase') && onto) return onto;
  }
  const created = entries.at(-1);
  return created && / branch: Created from /.test(created) ? (created.split(' ')[0] ?? null) : null;
}

export async function remoteUrl(dir: string, remote: string): Promise<string | null> {
  const result = await git(['remote', 'get-url', remote], { cwd: dir, okCodes: [2, 128] });
  return result.exitCode === 0 ? result.stdout.trim() || null : null;
}

export async function listRemotes(dir: string): Promise<string[]> {
  const remotes = await gitTask(['remote'], { cwd: dir }, (sg) => sg.getRemotes());
  return remotes.map((remote) => remote.name);
}

/** Number of commits on HEAD that are not on `base`. */
export async function commitsSince(dir: string, base: string): Promise<number> {
  return Number(await gitOut(['rev-list', '--count', `${base}..HEAD`], { cwd: dir }));
}

/**
 * The message of HEAD, sanitized (an agent may have written the commit). Read
 * with `--format=%B` rather than simple-git's `log()`, whose parser splits on
 * `ò` markers and trims: this text becomes the merge commit's message.
 */
export async function lastCommitMessage(dir: string): Promise<string> {
  return sanitizeText(await gitOut(['log', '-1', '--format=%B'], { cwd: dir }));
}

/**
 * The commits of `range`, newest first, each with what a rebase keeps of it
 * (author, author date, subject): how a commit is found again after a pull
 * with rebase gave it a new id.
 */
export async function commitIdentities(
  dir: string,
  range: string,
): Promise<{ readonly commit: string; readonly identity: string }[]> {
  const out = await gitOut(['log', '--format=%H%x00%ae%x00%at%x00%s', range], { cwd: dir });
  return out
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const [commit = '', ...rest] = line.split('\0');
      return { commit, identity: rest.join('\0') };
    });
}
