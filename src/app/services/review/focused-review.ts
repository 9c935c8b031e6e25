import { createHash } from 'node:crypto';
import { modelChoice } from '../sessions.js';
import { truncateDiff } from '../prompts.js';
import type { ReviewContext } from './context.js';
import { countUsage, spentBy } from '../usage.js';

export function diffHash(patch: string): string {
  return createHash('sha256').update(patch).digest('hex').slice(0, 16);
}

export function reviewPrompt(title: string, summary: string, diff: string): string {
  return [
    'You are reviewing the work of a coding agent before a developer merges it. You are read-only: do not change files and do not run commands that modify anything.',
    'Review the diff below for correctness, missing tests, risky changes and leftovers. Treat the session summary as decisions already made.',
    'Write `answer` in markdown with exactly these sections:',
    '## Review',
    '### Project Impact',
    '(one short paragraph: what this change does to the project and how risky it is)',
    '### Suggestions',
    // Grove turns each item into a draft diff comment at that location (parseReviewFindings), so the form is fixed.
    '(a list; each item is one line of the form `- [High] path/to/file.ts:12-14 — what to change`: a severity tag [High], [Medium] or [Low], then the location as a repository-relative path with the line or line range in the new version of the file (`path:12`, `path:12-14`, or just `path` for the whole file), then what to change. Suggest verification commands rather than running them. Write "None." if there is nothing to suggest.)',
    '',
    `Session title: ${title}`,
    summary ? `Session summary: ${summary}` : '',
    '',
    '```diff',
    truncateDiff(diff),
    '```',
  ].join('\n');
}

/**
 * The focused review: a read-only review of the session diff by the
 * project's review model, cached for that exact diff.
 */
export class FocusedReview {
  private readonly running = new Map<string, AbortController>();

  constructor(private readonly ctx: ReviewContext) {}

  /** Cancels a review in flight (a new turn, a rebase or a merge starts). */
  cancel(sessionId: string): void {
    this.running.get(sessionId)?.abort();
    this.running.delete(sessionId);
  }

  /** Runs after a turn ends in Review; `force` regenerates a cached review. */
  start(sessionId: string, force: boolean): void {
    const { app, store, git, agents, runtime } = this.ctx.deps;
    app.task('Focused review', async () => {
      const session = await store.sessions.get(sessionId);
      if (!session || session.status !== 'Review' || this.running.has(sessionId)) return;
      // After a turn: the diff its commit measured, while the worktree is as it left it.
      const diff = await git.diffAgainstBase(session.worktreePath, session.baseBranch, {
        kept: true,
      });
      if (diff.files.length === 0) return;
      const hash = diffHash(diff.patch);
      if (!force && session.focusedReviewDiffHash === hash && session.focusedReviewText) return;
      const controller = new AbortController();
      this.running.set(sessionId, controller);
      await store.sessions.update(
        sessionId,
        { focusedReviewStatus: 'running', focusedReviewText: null, focusedReviewDiffHash: hash },
        this.ctx.now(),
      );
      await this.ctx.setStatus(sessionId, 'AgentReview');
      let text: string | null = null;
      let failure: string | null = null;
      try {
        const choice = modelChoice(app.state.settings, 'review', agents.installed());
        const reply = await this.ctx.guarded(session, 'the focused review', () =>
          agents.utility(
            choice,
            reviewPrompt(session.title, session.summary?.session ?? '', diff.patch),
            session.worktreePath,
            controller.signal,
          ),
        );
        text = reply.answer.trim() || 'The reviewer had nothing to add.';
        await countUsage(store, sessionId, choice.model, 'review', reply);
      } catch (error) {
        // An unreadable reply after its repair round was still billed.
        const spent = spentBy(error);
        if (spent)
          await countUsage(
            store,
            sessionId,
            modelChoice(app.state.settings, 'review', agents.installed()).model,
            'review',
            spent,
          ).catch(() => {});
        failure = error instanceof Error ? error.message : String(error);
        runtime.logger.log('warn', `focused review of ${sessionId} failed`, error);
      } finally {
        this.running.delete(sessionId);
      }
      const latest = await store.sessions.get(sessionId);
      if (!latest) return;
      if (controller.signal.aborted) {
        await store.sessions.update(sessionId, { focusedReviewStatus: null }, this.ctx.now());
      } else if (text !== null) {
        await store.sessions.update(
          sessionId,
          { focusedReviewStatus: 'ready', focusedReviewText: text },
          this.ctx.now(),
        );
      } else {
        await store.sessions.update(
          sessionId,
          {
            focusedReviewStatus: 'failed',
            focusedReviewText: `Focused review failed: ${failure ?? 'unknown error'}. Press f to try again.`,
          },
          this.ctx.now(),
        );
      }
      // Only step back to Review if nothing else moved the session meanwhile.
      if (latest.status === 'AgentReview') await this.ctx.setStatus(sessionId, 'Review');
      else await this.ctx.deps.sessions.publishSession(sessionId);
    });
  }

  /** `f`: regenerate, asking first when a review is already there. */
  request(sessionId: string): void {
    const session = this.ctx.deps.app.state.sessions.find((s) => s.id === sessionId);
    if (!session) return;
    if (session.focusedReviewStatus === 'running' || this.running.has(sessionId)) {
      this.ctx.notice('info', 'A focused review is already running.');
      return;
    }
    if (session.focusedReviewText && session.focusedReviewStatus === 'ready') {
      this.ctx.deps.app.apply({ type: 'reviewRegenerationNeedsConfirmation', sessionId });
      return;
    }
    this.start(sessionId, true);
  }
}
