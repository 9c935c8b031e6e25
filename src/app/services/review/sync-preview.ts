import type { ReviewContext } from './context.js';

/** How many commit subjects each direction lists in the confirmation. */
const LISTED = 8;

export type SyncPreview =
  /** Ask first: `lines` say what goes where; `head` is the branch tip the person agrees to push. */
  | {
      readonly kind: 'confirm';
      readonly title: string;
      readonly lines: readonly string[];
      readonly branch: string;
      readonly head: string;
    }
  /** Nothing to ask (a refusal, or nothing to do): `lines` say why. */
  | { readonly kind: 'info'; readonly title: string; readonly lines: readonly string[] };

function commits(count: number): string {
  return count === 1 ? '1 commit' : `${count} commits`;
}

/**
 * What `s` (sync) would do to the checkout at `dir`, found out before
 * anything changes: which commits it would push from the branch to its
 * upstream, and which it would pull (after a fetch; when the fetch fails,
 * that is said instead). Runs as an app task, never on the key path.
 */
export async function previewSync(ctx: ReviewContext, dir: string): Promise<SyncPreview> {
  const { git } = ctx.deps;
  const branch = await git.currentBranch(dir);
  if (!branch)
    return {
      kind: 'info',
      title: 'Sync stopped',
      lines: ['The main checkout is not on a branch (detached HEAD). Nothing was changed.'],
    };
  const head = await git.headCommit(dir).catch(() => null);
  if (head === null)
    return {
      kind: 'info',
      title: 'Sync stopped',
      lines: [`${branch} has no commits yet, so there is nothing to sync. Nothing was changed.`],
    };
  if (!(await git.isClean(dir))) {
    return {
      kind: 'info',
      title: 'Sync stopped',
      lines: [
        `${dir} has uncommitted changes. Commit or stash them, then sync again. Nothing was changed.`,
      ],
    };
  }
  const upstream = await git.upstreamOf(dir, branch);
  const remote = upstream?.split('/')[0] ?? '';
  if (!upstream || remote === '') {
    return {
      kind: 'info',
      title: 'Sync stopped',
      lines: [`${branch} has no upstream branch. Set one with: git push -u origin ${branch}`],
    };
  }
  let fetchError: string | null = null;
  try {
    await git.fetch(dir, remote);
  } catch (error) {
    fetchError = error instanceof Error ? (error.message.split('\n')[0] ?? '') : String(error);
  }
  const outgoing = await git.commitSubjects(dir, `${upstream}..${branch}`);
  const incoming = await git.commitSubjects(dir, `${branch}..${upstream}`);
  const lines: string[] = [];
  if (outgoing.length > 0) {
    lines.push(`Push ${commits(outgoing.length)} from ${branch} to ${upstream}:`);
    for (const subject of outgoing.slice(0, LISTED)) lines.push(`  ↑ ${subject}`);
    if (outgoing.length > LISTED) lines.push(`  … and ${outgoing.length - LISTED} more`);
  } else {
    lines.push(`Nothing to push: ${upstream} already has every commit of ${branch}.`);
  }
  if (fetchError !== null) {
    lines.push(`What would be pulled is unknown: fetching ${remote} failed (${fetchError}).`);
  } else if (incoming.length > 0) {
    lines.push(
      `Pull ${commits(incoming.length)} from ${upstream} into ${branch}${outgoing.length > 0 ? ' (yours are rebased on top)' : ''}:`,
    );
    for (const subject of incoming.slice(0, LISTED)) lines.push(`  ↓ ${subject}`);
    if (incoming.length > LISTED) lines.push(`  … and ${incoming.length - LISTED} more`);
  } else {
    lines.push(`Nothing new to pull from ${upstream}.`);
  }
  if (fetchError === null && incoming.length === 0 && outgoing.length === 0) {
    return {
      kind: 'info',
      title: 'Nothing to sync',
      lines: [`${branch} and ${upstream} are in step. Nothing was changed.`],
    };
  }
  return { kind: 'confirm', title: `Sync ${branch} with ${upstream}?`, lines, branch, head };
}

/**
 * True when the checkout is still on `branch` at `head`, as it was when the
 * person said yes (so what is pushed is what the confirmation listed).
 */
export async function unchangedSince(
  ctx: ReviewContext,
  dir: string,
  branch: string,
  head: string,
): Promise<boolean> {
  const { git } = ctx.deps;
  return (
    (await git.currentBranch(dir)) === branch &&
    (await git.headCommit(dir).catch(() => null)) === head
  );
}
