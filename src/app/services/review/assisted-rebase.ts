import type { ProviderId } from '../../../domain/providers.js';
import { sanitizePath } from '../../../domain/sanitize.js';
import { shortId, type Session } from '../../../domain/session.js';
import { withGitStep } from '../git-steps.js';
import type { ReviewContext } from './context.js';
import { countUsage, spentBy } from '../usage.js';

const MAX_ATTEMPTS = 3;

export type RebaseOutcome =
  | { readonly ok: true }
  | { readonly ok: false; readonly files: readonly string[]; readonly reason: string };

export function conflictPrompt(base: string, files: readonly string[]): string {
  return [
    `Grove is rebasing this branch onto \`${base}\` and git stopped on conflicts in these files:`,
    ...files.map((f) => `- ${f}`),
    '',
    'Resolve the conflicts in exactly these files: keep the intent of both sides, remove every conflict marker (<<<<<<<, =======, >>>>>>>), and make sure the result builds. Read the commits on both sides if you need context (read-only git commands only).',
    'Do not run git add, git commit, git rebase or any command that changes branches or history: Grove stages and continues the rebase itself.',
  ].join('\n');
}

/**
 * What the person can do after a rebase the agent could not finish, in the
 * TUI's keys and the command line's commands (the notice is read in both).
 */
export function conflictNextStep(session: Session, again: 'rebase' | 'merge'): string {
  const id = shortId(session.id);
  return `To go on: resolve the conflicts yourself in the worktree (o opens a shell there, or cd ${sanitizePath(session.worktreePath)}; then git rebase ${sanitizePath(session.baseBranch)}), or reply to the agent saying what to keep (Enter, or grove reply ${id}); then ${again} again (${again === 'rebase' ? 'r' : 'm'}, or grove ${again} ${id}).`;
}

/**
 * Rebases `worktree` onto `onto`. On conflicts the session's own agent (it
 * knows the work) resolves the conflicted files, a bounded number of times;
 * Grove verifies no markers remain, stages and continues. If it cannot be
 * resolved the rebase is aborted and the branch is exactly as before. The
 * rebase is a recorded git step: if Grove stops half-way, recovery aborts it.
 */
export async function assistedRebase(
  ctx: ReviewContext,
  session: Session,
  mainCheckout: string,
  onto: string,
  signal: AbortSignal,
  label: string,
): Promise<RebaseOutcome> {
  const { git } = ctx.deps;
  const worktree = session.worktreePath;
  // A rebase follows HEAD: on the session's branch, wherever the agent left it.
  await git.ensureHead(worktree, session.branch);
  const headBefore = await git.headCommit(worktree);
  const step = {
    kind: 'rebase' as const,
    step: 'rebasing',
    sessionId: session.id,
    projectId: session.projectId,
    dir: worktree,
    branch: session.branch,
    headBefore,
    detail: { onto },
  };
  return withGitStep(ctx.stepDeps(), step, label, (advance) =>
    rebaseLoop(ctx, session, mainCheckout, onto, signal, label, advance),
  );
}

async function rebaseLoop(
  ctx: ReviewContext,
  session: Session,
  mainCheckout: string,
  onto: string,
  signal: AbortSignal,
  label: string,
  advance: (step: string) => Promise<void>,
): Promise<RebaseOutcome> {
  const { git, agents, pool, store } = ctx.deps;
  const worktree = session.worktreePath;
  let result = await git.rebase(worktree, onto);
  let attempts = 0;
  while (!result.ok) {
    const files = result.conflicts;
    if (attempts >= MAX_ATTEMPTS || signal.aborted) {
      await git.rebaseAbort(worktree).catch(() => {});
      return {
        ok: false,
        files,
        reason: signal.aborted ? 'stopped' : `still conflicted after ${MAX_ATTEMPTS} attempts`,
      };
    }
    attempts++;
    await advance('resolving conflicts');
    await ctx.note(
      session.id,
      `[${label}] Conflicts in ${files.map(sanitizePath).join(', ')}; asking the agent to resolve them (attempt ${attempts} of ${MAX_ATTEMPTS}).`,
    );
    ctx.deps.app.emit({
      type: 'progress',
      sessionId: session.id,
      text: `Resolving conflicts in ${files.length} file(s)…`,
    });
    try {
      const latest = (await store.sessions.get(session.id)) ?? session;
      const output = await ctx.guarded(session, 'the conflict resolution', () =>
        agents.turn(
          pool.get(session.id, session.agent as ProviderId),
          {
            sessionId: session.id,
            userPrompt: conflictPrompt(onto, files),
            kind: latest.providerConversationId ? 'session_resume' : 'session_start',
            cwd: worktree,
            mainCheckout,
            model: session.model,
            reasoning: session.reasoning,
            permissionMode: 'auto_edit',
            providerConversationId: latest.providerConversationId,
          },
          () => {},
          signal,
        ),
      );
      await store.sessions.update(
        session.id,
        {
          providerConversationId:
            output.result.providerConversationId ?? latest.providerConversationId,
        },
        ctx.now(),
      );
      await countUsage(store, session.id, session.model, 'rebase', {
        ...output.result,
        repair: output.repair,
      });
    } catch (error) {
      // An unreadable reply after its repair round was still billed.
      const spent = spentBy(error);
      if (spent)
        await countUsage(store, session.id, session.model, 'rebase', spent).catch(() => {});
      const message = error instanceof Error ? error.message : String(error);
      await git.rebaseAbort(worktree).catch(() => {});
      return { ok: false, files, reason: `the agent could not help: ${message}` };
    } finally {
      ctx.deps.app.emit({ type: 'progress', sessionId: session.id, text: null });
    }
    const marked = await git.filesWithConflictMarkers(worktree, files);
    if (marked.length > 0) {
      await ctx.note(
        session.id,
        `[${label}] Conflict markers remain in ${marked.map(sanitizePath).join(', ')}.`,
      );
      continue;
    }
    await advance('continuing');
    await git.stageFiles(worktree, files);
    result = await git.rebaseContinue(worktree);
  }
  return { ok: true };
}
