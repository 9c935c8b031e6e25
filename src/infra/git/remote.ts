import { GitError, git } from './run.js';
import type { RebaseResult } from './merge.js';

export async function fetch(dir: string, remote?: string): Promise<void> {
  await git(['fetch', '--quiet', '--prune', ...(remote ? [remote] : ['--all'])], {
    cwd: dir,
    timeoutMs: 60_000,
  });
}

export async function pullRebase(
  dir: string,
  remote: string,
  branch: string,
): Promise<RebaseResult> {
  const args = ['pull', '--rebase', '--no-autostash', remote, branch];
  const result = await git(args, { cwd: dir, okCodes: [1, 128], timeoutMs: 120_000 });
  if (result.exitCode === 0) return { ok: true };
  const out = await git(['diff', '--name-only', '--diff-filter=U', '-z'], { cwd: dir });
  const conflicts = out.stdout.split('\0').filter((p) => p !== '');
  if (conflicts.length > 0) return { ok: false, conflicts };
  throw new GitError(
    args,
    result.exitCode,
    result.stderr,
    `git pull failed: ${
      result.stderr
        .split('\n')
        .find((l) => /fatal|error/.test(l))
        ?.replace(/^(fatal|error): /, '') ?? result.stderr.trim()
    }`,
  );
}

/**
 * Pushes; a rejected push is a GitError carrying the remote's reason.
 * `lease` forces only while the remote branch is still at `expected`
 * (--force-with-lease=BRANCH:SHA), whatever the remote-tracking ref says.
 */
export async function push(
  dir: string,
  remote: string,
  refspec: string,
  options: {
    forceWithLease?: boolean;
    setUpstream?: boolean;
    lease?: { readonly branch: string; readonly expected: string };
  } = {},
): Promise<{ stdout: string; stderr: string }> {
  const args = [
    'push',
    '--porcelain',
    ...(options.lease
      ? [`--force-with-lease=refs/heads/${options.lease.branch}:${options.lease.expected}`]
      : options.forceWithLease
        ? ['--force-with-lease']
        : []),
    ...(options.setUpstream ? ['--set-upstream'] : []),
    remote,
    refspec,
  ];
  const result = await git(args, { cwd: dir, okCodes: [1, 128], timeoutMs: 120_000 });
  if (result.exitCode !== 0) {
    const text = `${result.stdout}\n${result.stderr}`;
    const rejected =
      /^!\s+\S+\s+\[(?:remote )?rejected\]\s*\((.+)\)$/m.exec(text)?.[1] ??
      /^!\s.*\((.+)\)$/m.exec(text)?.[1];
    // What the remote printed (a hook's message, branch protection): the real reason.
    const remoteSays = text
      .split('\n')
      .filter((l) => l.startsWith('remote:'))
      .map((l) =>
        l
          .replace(/^remote:\s*/, '')
          .replace(/^error:\s*/, '')
          .trim(),
      )
      .filter(
        (l) => l !== '' && !/^(Resolving deltas|Counting objects|Compressing objects)/.test(l),
      )
      .join(' ');
    const fatal = text.split('\n').find((l) => l.startsWith('fatal:') || l.startsWith('error:'));
    const reason = rejected
      ? `${rejected}${remoteSays ? ` (the remote says: ${remoteSays})` : ''}`
      : remoteSays || fatal?.replace(/^(fatal|error):\s*/, '') || 'unknown reason';
    const target =
      refspec
        .split(':')
        .at(-1)
        ?.replace(/^refs\/heads\//, '') ?? refspec;
    const moved = rejected ? movedOnRemote(rejected, remote, target) : null;
    throw new GitError(
      args,
      result.exitCode,
      result.stderr,
      moved ?? `The push to ${remote} was rejected: ${reason}`,
    );
  }
  return { stdout: result.stdout, stderr: result.stderr };
}

/**
 * The rejections that mean the remote branch has commits this checkout
 * lacks, in words that say what happened and what to do (git only says
 * "stale info", "fetch first" or "non-fast-forward").
 */
function movedOnRemote(reason: string, remote: string, branch: string): string | null {
  if (reason === 'stale info') {
    return `The push to ${remote} was refused: ${branch} on ${remote} changed since Grove last fetched it (someone else pushed to it). Nothing was overwritten. Bring their commits in first (sync again, or git pull --rebase), then push.`;
  }
  if (reason === 'fetch first' || reason === 'non-fast-forward') {
    return `The push to ${remote} was refused: ${branch} on ${remote} has commits that are not here, and pushing would drop them. Nothing was overwritten. Bring their commits in first (sync again, or git pull --rebase), then push.`;
  }
  return null;
}
