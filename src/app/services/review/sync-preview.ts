import type { SyncPlan, SyncStop } from '../../events.js';
import type { ReviewContext } from './context.js';

/** What a sync would move (asked first), or why it cannot start. */
export type SyncPreview = { readonly plan: SyncPlan } | { readonly stop: SyncStop };

/**
 * What `s` (sync) would do to the checkout at `dir`, found out before
 * anything changes: which commits it would push from the branch to its
 * upstream, and which it would pull (after a fetch; when the fetch fails,
 * that is said instead). Runs as an app task, never on the key path.
 */
export async function previewSync(ctx: ReviewContext, dir: string): Promise<SyncPreview> {
  const { git } = ctx.deps;
  const branch = await git.currentBranch(dir);
  if (!branch) return { stop: { kind: 'detached' } };
  const head = await git.headCommit(dir).catch(() => null);
  if (head === null) return { stop: { kind: 'noCommits', branch } };
  if (!(await git.isClean(dir))) return { stop: { kind: 'dirty', dir } };
  const upstream = await git.upstreamOf(dir, branch);
  const remote = upstream?.split('/')[0] ?? '';
  if (!upstream || remote === '') return { stop: { kind: 'noUpstream', branch } };
  let fetchError: string | null = null;
  try {
    await git.fetch(dir, remote);
  } catch (error) {
    fetchError = error instanceof Error ? (error.message.split('\n')[0] ?? '') : String(error);
  }
  const outgoing = await git.commitSubjects(dir, `${upstream}..${branch}`);
  const incoming = await git.commitSubjects(dir, `${branch}..${upstream}`);
  return { plan: { branch, upstream, head, outgoing, incoming, fetchError } };
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
