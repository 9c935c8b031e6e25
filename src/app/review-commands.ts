import type { CommentInput } from './intents.js';
import type { ControllerDeps } from './service-graph.js';
import type { BestOfService } from './services/best-of.js';
import type { ComposerService } from './services/composer.js';
import { setCiFixerSwitch } from './services/review/ci-fixer.js';
import type { ReviewService } from './services/review/index.js';

/**
 * The review commands of AppIntents (diff and comments, merge, rebase,
 * cancel, sync, publish, focused review, review threads, best-of-N), as the
 * Controller implements them: each hands its work to ReviewService or
 * BestOfService and returns at once.
 */
export abstract class ReviewCommands {
  protected abstract readonly deps: ControllerDeps;
  abstract readonly review: ReviewService;
  abstract readonly bestOf: BestOfService;
  abstract readonly composer: ComposerService;
  abstract submitPrompt(
    sessionId: string,
    text: string,
    extra?: Readonly<Record<string, unknown>>,
  ): Promise<string | null>;
  protected abstract notice(level: 'info' | 'warn' | 'error', text: string): void;

  openDiff(sessionId: string): void {
    this.review.openDiff(sessionId);
  }

  cancelDiff(sessionId: string): void {
    this.review.diffs.cancel(sessionId);
  }

  saveDiffComment(sessionId: string, comment: CommentInput): void {
    this.review.comments.save(sessionId, comment);
  }

  deleteDiffComment(sessionId: string, commentId: string): void {
    this.review.comments.delete(sessionId, commentId);
  }

  submitDiffComments(sessionId: string): void {
    this.deps.app.task('Sending the comments', () =>
      this.review.comments.submit(sessionId, (prompt, extra) =>
        this.submitPrompt(sessionId, prompt, extra),
      ),
    );
  }

  reviewToComments(sessionId: string): void {
    this.review.comments.fromReview(sessionId);
  }

  requestMerge(sessionId: string): void {
    this.review.requestMerge(sessionId);
  }

  confirmMerge(sessionId: string, acknowledged = false): void {
    this.review.confirmMerge(sessionId, acknowledged);
  }

  rebase(sessionId: string): void {
    this.review.requestRebase(sessionId);
  }

  requestCancel(sessionId: string): void {
    this.review.requestCancel(sessionId);
  }

  confirmCancel(sessionId: string): void {
    this.review.confirmCancel(sessionId);
  }

  syncMain(): void {
    this.review.syncMain();
  }

  confirmSync(branch: string, head: string): void {
    this.review.confirmSync(branch, head);
  }

  requestPublish(sessionId: string): void {
    this.review.requestPublish(sessionId);
  }

  setCiFixer(sessionId: string, own: 'on' | 'off' | null): void {
    this.deps.app.task('Changing the CI fixer', async () => {
      await setCiFixerSwitch(this.review.ctx, sessionId, own);
    });
  }

  publish(sessionId: string, remoteBranch: string): void {
    this.review.publish(sessionId, remoteBranch);
  }

  regenerateReview(sessionId: string): void {
    this.review.focused.request(sessionId);
  }

  sendBestOf(sessionId: string, text: string, n: number): void {
    this.deps.app.task('Starting best of N', async () => {
      const { sessions } = await this.bestOf.startFrom(sessionId, text, n);
      await this.composer.recordSent(sessionId, text);
      this.notice(
        'info',
        `Best of ${sessions.length}: the prompt runs in ${sessions.length} sessions; when all are over they are checked and ranked.`,
      );
    });
  }

  chooseWinner(sessionId: string): void {
    this.chooseWinnerBy(sessionId, 'merge');
  }

  publishWinner(sessionId: string): void {
    this.chooseWinnerBy(sessionId, 'publish');
  }

  private chooseWinnerBy(sessionId: string, how: 'merge' | 'publish'): void {
    this.deps.app.task('Choosing the winner', async () => {
      const group = await this.deps.store.groups.ofSession(sessionId);
      const refused = group
        ? await this.bestOf.choose(group.id, undefined, how)
        : 'This session is not one of a best-of-N group.';
      if (refused) this.notice('warn', refused);
      else
        this.notice(
          'info',
          how === 'merge'
            ? 'The winner is in the merge queue; the other variants are canceled (their branches are kept).'
            : 'The winner is being published as a pull request; the other variants are canceled (their branches are kept).',
        );
    });
  }

  forceReview(sessionId: string): void {
    this.review.focused.start(sessionId, true);
  }

  refreshReviewThreads(sessionId: string): void {
    this.review.refreshThreads(sessionId);
  }

  sendReviewThreads(sessionId: string, threadIds: readonly string[] | null): void {
    this.review.sendThreads(sessionId, threadIds);
  }

  requestResolveThreads(sessionId: string): void {
    this.review.requestResolve(sessionId);
  }

  resolveReviewThreads(sessionId: string, threadIds: readonly string[]): void {
    this.review.resolveThreads(sessionId, threadIds);
  }
}
