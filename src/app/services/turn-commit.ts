import { taskTitle, variantTitle } from '../../domain/best-of.js';
import type { ModelChoice, ProviderId } from '../../domain/providers.js';
import { sanitizeLine } from '../../domain/sanitize.js';
import type { Session } from '../../domain/session.js';
import type { AgentGuard } from './agent-guard.js';
import { hooksFor } from './git-hooks.js';
import { loadSettings } from './projects.js';
import {
  commitMessagePrompt,
  fallbackCommitMessage,
  hookFixPrompt,
  titlePrompt,
} from './prompts.js';
import { diffFields, modelChoice, type DiffFields } from './sessions.js';
import type { TurnDeps } from './turn-deps.js';
import { countUsage, spentBy } from './usage.js';
import type { SessionUsageRole } from '../../domain/usage-roles.js';

// After an agent's turn: the session's commit (its message from the fast
// model, a failing hook handed back to the agent) and the title. Grove's own
// model calls for a session, made on the turn runner's behalf.

/** What the commit and the title need of the turn under way. */
export interface TurnContext {
  readonly deps: TurnDeps;
  readonly guard: AgentGuard;
  progress(sessionId: string, text: string | null): void;
  denied(sessionId: string, text: string): void;
  /** Adds a wait for the commit-message model to the turn under way, when that turn is timed. */
  waited(sessionId: string, ms: number): void;
}

const MAX_HOOK_FIXES = 3;
const MAX_NOTICE = 800;

/** An error's message, and the tail of what the failing program printed. */
export function describeError(error: unknown): { message: string; diagnostics: string } {
  if (error instanceof Error) {
    const diagnostics =
      'diagnostics' in error && typeof error.diagnostics === 'string' ? error.diagnostics : '';
    const stderr = 'stderr' in error && typeof error.stderr === 'string' ? error.stderr : '';
    return { message: error.message, diagnostics: (diagnostics || stderr).slice(-MAX_NOTICE) };
  }
  return { message: String(error), diagnostics: '' };
}

/**
 * Commits the worktree as the session's single evolving commit. A failing
 * hook is handed to the agent a bounded number of times, then reported.
 * The worktree is walked once: everything is staged (`add -A`) and the diff
 * against the merge base read from that index; the commit takes it as
 * staged. Returns that diff's size fields when the commit took the very
 * diff measured (so they need not be measured again; the diff itself is
 * kept for what follows the turn, git's keepDiff), else null.
 */
export async function commitTurn(
  ctx: TurnContext,
  session: Session,
  mainCheckout: string,
  signal: AbortSignal,
  allowFixes: boolean,
): Promise<DiffFields | null> {
  const { git, store, agents, sessions, pool } = ctx.deps;
  const worktree = session.worktreePath;
  // The agent may have pointed HEAD elsewhere (another branch, a detached commit):
  // Grove's commit follows HEAD, so it goes back on the session's branch first.
  const headWas = await git.ensureHead(worktree, session.branch);
  if (headWas)
    await sessions.note(
      session.id,
      'notice',
      `[Guard] The agent had moved the worktree's HEAD to ${headWas}; Grove put it back on ${session.branch} before committing.`,
    );
  // Not stopped by the turn's signal: a stopped turn's partial work is committed too.
  const [staged, ahead] = await Promise.all([
    git.stageAllAndDiff(worktree, session.baseBranch).catch((error: unknown) => {
      ctx.deps.runtime.logger.log('warn', `staging the turn of ${session.id} failed`, error);
      return null;
    }),
    git.commitsSince(worktree, session.baseBranch),
  ]);
  const measured = staged ? diffFields(staged) : null;
  // Nothing to commit: the diff is still the session's (the agent may have committed itself).
  if (staged && !staged.changed) {
    await git.keepDiff(worktree, session.baseBranch, staged).catch(() => {});
    return measured;
  }
  if (!staged && (await git.statusPorcelain(worktree)).length === 0) return null;
  const fresh = (await store.sessions.get(session.id)) ?? session;
  let message = fallbackCommitMessage(
    taskTitle(fresh.title) || fresh.prompt || 'Grove session changes',
  );
  if (!signal.aborted && staged) {
    try {
      ctx.progress(session.id, 'Writing the commit message…');
      const fast = utilityChoice(ctx.deps);
      const asked = performance.now();
      // The session's channel is idle between its turn and the commit: a Codex app-server answers here.
      const live = pool.get(session.id, session.agent as ProviderId);
      const reply = await ctx.guard
        .around(ctx.guard.forSession(session, mainCheckout, 'the commit message prompt'), () =>
          agents.utility(
            fast,
            commitMessagePrompt(taskTitle(fresh.title), fresh.commitMessage, staged.patch),
            worktree,
            signal,
            { live },
          ),
        )
        .finally(() => ctx.waited(session.id, performance.now() - asked));
      await countUsage(store, session.id, fast.model, 'commit', reply);
      if (reply.answer.trim() !== '') message = reply.answer.trim();
    } catch (error) {
      await countSpent(ctx, session.id, utilityChoice(ctx.deps).model, 'commit', error);
      ctx.deps.runtime.logger.log(
        'warn',
        'commit message generation failed; using the title',
        error,
      );
      if (!signal.aborted)
        await utilityFailed(
          ctx.deps,
          session.id,
          'The commit message',
          error,
          `Committed as "${message.split('\n')[0] ?? ''}".`,
        );
    }
  }
  for (let attempt = 0; ; attempt++) {
    try {
      const hooks = hooksFor(
        await loadSettings(store, session.projectId),
        agents,
        session.agent,
        worktree,
        ctx.deps.runtime.env,
        mainCheckout,
      );
      // The first attempt commits what was staged and measured; after a hook fix, everything again.
      const result = await git.commitAll(worktree, message, {
        amend: ahead > 0,
        hooks,
        ...(attempt === 0 && staged ? { staged: { changed: true, tree: staged.tree } } : {}),
      });
      if (result.committed) {
        await store.sessions.update(
          session.id,
          { commitMessage: message, headCommit: result.commit },
          ctx.deps.runtime.clock.now(),
        );
        await sessions.note(
          session.id,
          'notice',
          `[Commit] ${message.split('\n')[0] ?? ''} (${(result.commit ?? '').slice(0, 8)}${ahead > 0 ? ', amended' : ''})`,
        );
      }
      // After a hook fix the agent changed files: what was measured is out of date.
      if (attempt > 0) return null;
      if (staged) await git.keepDiff(worktree, session.baseBranch, staged).catch(() => {});
      return measured;
    } catch (error) {
      const { message: why, diagnostics } = describeError(error);
      // A hook fix edits files: only a session that may edit asks its agent for one.
      if (
        !allowFixes ||
        session.permissionMode !== 'auto_edit' ||
        attempt >= MAX_HOOK_FIXES ||
        signal.aborted
      ) {
        await sessions.note(
          session.id,
          'notice',
          `[Commit Error] ${why}${diagnostics ? `\n${diagnostics}` : ''}\nThe changes stay uncommitted in ${worktree}.`,
        );
        return attempt === 0 ? measured : null;
      }
      await sessions.note(
        session.id,
        'notice',
        `[Commit] A git hook rejected the commit; asking the agent to fix it (attempt ${attempt + 1} of ${MAX_HOOK_FIXES}).`,
      );
      ctx.progress(session.id, 'Fixing the commit hook failure…');
      const latest = (await store.sessions.get(session.id)) ?? session;
      const channel = pool.get(session.id, session.agent as ProviderId);
      const fix = await ctx.guard.around(
        ctx.guard.forSession(session, mainCheckout, 'the hook fix'),
        () =>
          agents.turn(
            channel,
            {
              sessionId: session.id,
              userPrompt: hookFixPrompt(`${why}\n${diagnostics}`),
              kind: latest.providerConversationId ? 'session_resume' : 'session_start',
              cwd: worktree,
              mainCheckout,
              model: session.model,
              reasoning: session.reasoning,
              permissionMode: 'auto_edit',
              providerConversationId: latest.providerConversationId,
            },
            (event) => {
              if (event.type === 'denied') ctx.denied(session.id, event.text);
            },
            signal,
          ),
      );
      await store.sessions.update(
        session.id,
        {
          providerConversationId:
            fix.result.providerConversationId ?? latest.providerConversationId,
        },
        ctx.deps.runtime.clock.now(),
      );
      // The hook fix is an agent turn; budgets add up what the usage table holds.
      await countUsage(store, session.id, session.model, 'turn', {
        ...fix.result,
        repair: fix.repair,
      });
    }
  }
}

/** A better title from the fast model, never overwriting a newer one. */
export async function generateTitle(
  ctx: TurnContext,
  session: Session,
  prompt: string,
  mainCheckout: string,
): Promise<void> {
  const { store, agents, runtime } = ctx.deps;
  try {
    const generation = session.titleGeneration + 1;
    await store.sessions.update(
      session.id,
      { titleGeneration: generation },
      ctx.deps.runtime.clock.now(),
    );
    const fast = utilityChoice(ctx.deps);
    const reply = await ctx.guard.around(
      ctx.guard.forSession(session, mainCheckout, 'the title prompt'),
      () => agents.utility(fast, titlePrompt(prompt), session.worktreePath, ctx.deps.shutdown),
    );
    // Counted even when the title is not used (a newer one won): the request was made.
    await countUsage(store, session.id, fast.model, 'title', reply).catch((error: unknown) =>
      runtime.logger.log('warn', `the title's usage of ${session.id} was not counted`, error),
    );
    const title =
      reply.answer
        .trim()
        .split('\n')[0]
        ?.replace(/^["'`]|["'`.]$/g, '')
        .trim() ?? '';
    if (title === '' || title.length > 100) return;
    const latest = await store.sessions.get(session.id);
    if (!latest || latest.titleGeneration !== generation) return;
    // A best-of-N variant keeps its place in the group in its title.
    const group = await store.groups.ofSession(session.id);
    const named = group ? variantTitle(title.slice(0, 72), group, latest) : title.slice(0, 72);
    await store.sessions.update(
      session.id,
      { title: named, titleProvisional: false },
      ctx.deps.runtime.clock.now(),
    );
    await ctx.deps.sessions.publishSession(session.id);
  } catch (error) {
    await countSpent(ctx, session.id, utilityChoice(ctx.deps).model, 'title', error);
    runtime.logger.log(
      'info',
      `title generation for ${session.id} failed; keeping the first prompt`,
      error,
    );
    await utilityFailed(
      ctx.deps,
      session.id,
      'The title',
      error,
      'The first line of the prompt stays the title.',
    );
  }
}

/** The fast model for titles and commit messages; an unset agent follows the installed ones. */
export function utilityChoice(deps: TurnDeps): ModelChoice {
  return modelChoice(deps.app.state.settings, 'fast', deps.agents.installed());
}

/** A failed title or commit-message prompt: one line in the transcript (the details are in grove.log). */
export async function utilityFailed(
  deps: TurnDeps,
  sessionId: string,
  what: string,
  error: unknown,
  outcome: string,
): Promise<void> {
  const choice = utilityChoice(deps);
  const why = sanitizeLine(describeError(error).message.split('\n')[0] ?? '').slice(0, 200);
  await deps.sessions
    .note(
      sessionId,
      'notice',
      `[Utility Error] ${what} could not be written by ${choice.agent} (${choice.model}): ${why} ${outcome}`,
    )
    .catch((e: unknown) => deps.runtime.logger.log('warn', 'utility failure note failed', e));
}

/** A failed prompt that was still billed (an unreadable reply after its repair round) counts all the same. */
async function countSpent(
  ctx: TurnContext,
  sessionId: string,
  model: string,
  role: SessionUsageRole,
  error: unknown,
): Promise<void> {
  const spent = spentBy(error);
  if (!spent) return;
  await countUsage(ctx.deps.store, sessionId, model, role, spent).catch((e: unknown) =>
    ctx.deps.runtime.logger.log('warn', `the ${role}'s usage of ${sessionId} was not counted`, e),
  );
}
