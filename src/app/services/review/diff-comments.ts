import {
  commentsDisplay,
  commentsPrompt,
  findingAnchor,
  parseReviewFindings,
  possiblyAddressed,
  type DiffComment,
} from '../../../domain/diff-comment.js';
import { hunkText, lineSnapshot, rowsAt, type DiffRow } from '../../../domain/diff-rows.js';
import type { CommentInput } from '../../intents.js';
import type { DiffFileView } from '../../state.js';
import type { OperationOutcome } from '../worker.js';
import type { ReviewContext } from './context.js';
import { buildDiffView, sessionDiff, type DiffLoader } from './diff-view.js';

/** Sends a prompt as the session's next turn; resolves with why it was refused, or null. */
export type PromptSender = (
  prompt: string,
  extra: Readonly<Record<string, unknown>>,
) => Promise<string | null>;

function rowsByPath(files: readonly DiffFileView[]): Map<string, readonly DiffRow[]> {
  return new Map(files.map((f) => [f.path, f.rows ?? []]));
}

/** The ids of the comments a turn carried (its operation's payload), or none. */
export function carriedComments(payload: Readonly<Record<string, unknown>>): string[] {
  const ids = payload['commentIds'];
  return Array.isArray(ids) ? ids.filter((id): id is string => typeof id === 'string') : [];
}

/**
 * Inline comments on a session's diff: drafts stored as they are written,
 * sent together as one turn, and afterwards marked by whether the turn
 * changed their lines. Focused-review findings become drafts in one step.
 */
export class DiffComments {
  constructor(
    private readonly ctx: ReviewContext,
    private readonly loader: DiffLoader,
  ) {}

  private async publish(sessionId: string): Promise<readonly DiffComment[]> {
    const comments = await this.ctx.deps.store.diffComments.listBySession(sessionId);
    this.ctx.deps.app.emit({ type: 'diffCommentsLoaded', sessionId, comments });
    return comments;
  }

  save(sessionId: string, input: CommentInput): void {
    const { app, store } = this.ctx.deps;
    app.task('Saving the comment', async () => {
      if (input.id) await store.diffComments.update(input.id, { body: input.body }, this.ctx.now());
      else
        await store.diffComments.insert(
          {
            sessionId,
            path: input.path,
            side: input.side,
            startLine: input.startLine,
            endLine: input.endLine,
            body: input.body,
            excerpt: input.excerpt,
            hunk: input.hunk,
          },
          this.ctx.now(),
        );
      const comments = await this.publish(sessionId);
      const drafts = comments.filter((c) => c.status === 'draft').length;
      this.ctx.notice(
        'info',
        `Comment saved as a draft (${drafts} draft${drafts === 1 ? '' : 's'}; S sends them to the agent).`,
      );
    });
  }

  delete(sessionId: string, commentId: string): void {
    const { app, store } = this.ctx.deps;
    app.task('Deleting the comment', async () => {
      await store.diffComments.delete(commentId);
      await this.publish(sessionId);
    });
  }

  /**
   * Sends every draft as one turn. The lines each comment points at are
   * read again from the diff on screen, so "possibly addressed" compares
   * against what the agent was shown.
   */
  async submit(sessionId: string, send: PromptSender): Promise<void> {
    const { app, store } = this.ctx.deps;
    const drafts = (await store.diffComments.listBySession(sessionId)).filter(
      (c) => c.status === 'draft',
    );
    if (drafts.length === 0) {
      this.ctx.notice(
        'info',
        'No draft comments to send: press c on a line (or V to select lines, then c) to write one.',
      );
      return;
    }
    const view =
      app.state.diff?.sessionId === sessionId && !app.state.diff.loading ? app.state.diff : null;
    const byPath = view ? rowsByPath(view.files) : null;
    const sent: DiffComment[] = [];
    for (const draft of drafts) {
      const rows = byPath?.get(draft.path);
      const excerpt = rows ? lineSnapshot(rows, draft) : draft.excerpt;
      sent.push(
        excerpt === draft.excerpt
          ? draft
          : ((await store.diffComments.update(draft.id, { excerpt }, this.ctx.now())) ?? draft),
      );
    }
    const ids = sent.map((c) => c.id);
    await store.diffComments.setStatus(ids, 'sent', this.ctx.now());
    const refused = await send(commentsPrompt(sent), {
      display: commentsDisplay(sent),
      commentIds: ids,
    });
    if (refused) {
      await store.diffComments.setStatus(ids, 'draft', this.ctx.now());
      this.ctx.notice('warn', `The comments were not sent: ${refused}`);
    } else {
      this.ctx.notice(
        'info',
        `Sent ${ids.length} comment${ids.length === 1 ? '' : 's'} to the agent as the next turn.`,
      );
    }
    await this.publish(sessionId);
  }

  /** After a turn that carried comments: mark each by whether its lines changed; a failed turn leaves them drafts again. Any finished turn refreshes an open diff view. */
  onOutcome(outcome: OperationOutcome): void {
    const ids = carriedComments(outcome.operation.payload);
    if (ids.length === 0) {
      // Any other turn: a diff view open on the session shows the new code.
      if (
        outcome.status === 'done' &&
        (outcome.operation.kind === 'reply' || outcome.operation.kind === 'start_prompt')
      )
        this.loader.refresh(outcome.operation.sessionId);
      return;
    }
    const sessionId = outcome.operation.sessionId;
    this.ctx.deps.app.task('Checking the comments', () =>
      outcome.status === 'done'
        ? this.markAfterTurn(sessionId, ids)
        : this.backToDrafts(sessionId, ids),
    );
  }

  private async backToDrafts(sessionId: string, ids: readonly string[]): Promise<void> {
    const { store } = this.ctx.deps;
    const still = (await store.diffComments.listBySession(sessionId)).filter(
      (c) => ids.includes(c.id) && c.status === 'sent',
    );
    await store.diffComments.setStatus(
      still.map((c) => c.id),
      'draft',
      this.ctx.now(),
    );
    if (still.length > 0)
      this.ctx.notice(
        'warn',
        `The turn with your comments did not finish; ${still.length === 1 ? 'the comment is a draft' : 'they are drafts'} again.`,
      );
    await this.publish(sessionId);
  }

  async markAfterTurn(sessionId: string, ids: readonly string[]): Promise<void> {
    const { store } = this.ctx.deps;
    const session = await store.sessions.get(sessionId);
    if (!session) return;
    const carried = (await store.diffComments.listBySession(sessionId)).filter(
      (c) => ids.includes(c.id) && c.status === 'sent',
    );
    if (carried.length === 0) return;
    const { diff } = await sessionDiff(this.ctx, session);
    const byPath = rowsByPath(buildDiffView(sessionId, diff).files);
    const addressed: string[] = [];
    const open: string[] = [];
    for (const comment of carried)
      (possiblyAddressed(comment, byPath.get(comment.path) ?? null) ? addressed : open).push(
        comment.id,
      );
    await store.diffComments.setStatus(addressed, 'addressed', this.ctx.now());
    await store.diffComments.setStatus(open, 'open', this.ctx.now());
    await this.publish(sessionId);
    this.loader.refresh(sessionId);
  }

  /** `C`: the focused review's findings become drafts (once each), then the diff view opens on them. */
  fromReview(sessionId: string): void {
    const { app, store } = this.ctx.deps;
    const shown = app.state.sessions.find((s) => s.id === sessionId);
    const findings = parseReviewFindings(shown?.focusedReviewText ?? '');
    if (findings.length === 0) {
      this.ctx.notice(
        'info',
        shown?.focusedReviewText
          ? 'The focused review names no findings with a file location.'
          : 'There is no focused review yet (f runs one).',
      );
      return;
    }
    app.task('Taking the review findings', async () => {
      const session = await store.sessions.get(sessionId);
      if (!session) return;
      const { diff } = await sessionDiff(this.ctx, session);
      const byPath = rowsByPath(buildDiffView(sessionId, diff).files);
      const existing = await store.diffComments.listBySession(sessionId);
      let added = 0;
      for (const finding of findings) {
        const anchor = findingAnchor(finding);
        if (
          existing.some(
            (c) =>
              c.origin === 'review' &&
              c.path === finding.path &&
              c.startLine === anchor.startLine &&
              c.body === finding.text,
          )
        )
          continue;
        const rows = byPath.get(finding.path) ?? [];
        const at = rowsAt(rows, anchor);
        const first = at[0] ? rows.indexOf(at[0]) : -1;
        const last = at.length > 0 ? rows.lastIndexOf(at[at.length - 1] as DiffRow) : -1;
        await store.diffComments.insert(
          {
            sessionId,
            path: finding.path,
            ...anchor,
            body: finding.text,
            excerpt: lineSnapshot(rows, anchor),
            hunk: first >= 0 ? hunkText(rows, first, last) : '',
            severity: finding.severity,
            origin: 'review',
          },
          this.ctx.now(),
        );
        added++;
      }
      const comments = await this.publish(sessionId);
      const firstDraft = Math.max(
        0,
        comments.findIndex((c) => c.origin === 'review' && c.status === 'draft'),
      );
      this.ctx.notice(
        'info',
        added > 0
          ? `${added} review finding${added === 1 ? '' : 's'} added as draft comments: keep, edit (Enter) or drop (x) each, then S sends them.`
          : 'The review findings are already draft comments.',
      );
      this.loader.open(sessionId, { comment: firstDraft }, true);
    });
  }
}
