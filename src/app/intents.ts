import type { PermissionMode } from '../domain/permission-mode.js';
import type { ProviderId } from '../domain/providers.js';
import type { Tab } from './state.js';
import type { BudgetMeasure, BudgetScope } from '../domain/budget.js';
import type { CommentSide } from '../domain/diff-rows.js';
import type { ApprovalChoice } from '../domain/approval.js';

/**
 * What the runtime's key handlers may ask of the app. Every method returns at
 * once; the work runs as a task and reports back through AppEvents. A caller
 * that waits for its work (a headless command) asks through AwaitedIntents
 * (`awaited-intents.ts`) and reads through AppQueries (`queries.ts`).
 */
export interface AppIntents {
  quit(): void;
  rememberTab(tab: Tab): void;
  activateProject(projectId: number): void;
  setSetting(key: string, value: string): void;
  openSession(sessionId: string): void;
  /**
   * Reads a page of the archive into the list for its search: the first when
   * the search changed, else the next (`more`: the selection nears the last row read).
   */
  loadArchive(more: boolean): void;
  /** The terminal gained or lost focus: work that only feeds the screen (the resource sampler) pauses while it is not watched. */
  setWatched(watched: boolean): void;
  /** Reads the inbox from the store now (the inbox page opened). */
  loadInbox(): void;
  /** Walks the active project's worktrees whose size is stale, in the background (the Disk view opened). */
  measureDisk(): void;
  /** Enter on an inbox item: the session's view, in its project (made active first when it is another). */
  openInboxItem(projectId: number, sessionId: string): void;
  /** a / A / L / d on an inbox approval: approves the held request once, for the session or (network) by adding it to the allow list, or denies it. */
  decideApproval(ref: string, choice: ApprovalChoice): void;
  /** a / A or d on an inbox confirmation: confirms an MCP client's irreversible request, or refuses it. */
  decideConfirmation(ref: string, confirm: boolean): void;
  createSession(): void;
  discardUnstarted(sessionId: string): void;
  /** Ctrl+S in a new session's composer: keeps the prompt as a draft session (its worktree goes until it starts). */
  saveDraftSession(sessionId: string, text: string): void;
  /** `r` in the list: starts a saved draft (makes its worktree, queues its prompt). */
  startDraft(sessionId: string): void;
  /** `R` in the list: starts these drafts (null: every saved draft of the project). */
  startDrafts(sessionIds: readonly string[] | null): void;
  /** `F`: a new session from this one's branch and worktree state, linked to it. */
  fork(sessionId: string): void;
  /** `u` on a Done or Canceled session: its worktree back, status Review. */
  continueSession(sessionId: string): void;
  /** `o` / `e`: the person's shell or editor in the session's worktree. */
  openWorktree(sessionId: string, tool: 'shell' | 'editor'): void;
  /** Queues a prompt typed in the composer (with attached images) and records it in the project's history. */
  sendPrompt(sessionId: string, text: string, images?: readonly string[]): void;
  /** Lists the session's worktree files for `@` completion (cached; refreshed in the background). */
  loadFiles(sessionId: string): void;
  /** Reads the active project's open GitHub issues for the composer's picker (in the background). */
  loadIssues(): void;
  /** Starts a new session from GitHub issue `number` (`text`: the person's own words first). */
  startFromIssue(sessionId: string, number: number, text: string): void;
  /** Keeps the composer's unsent text as the session's draft (empty: drops it). */
  saveDraft(sessionId: string, text: string): void;
  /** Attaches a pasted image path to the open composer (pasted as text when it is no image file). */
  attachImage(sessionId: string, path: string): void;
  /** Attaches the clipboard's image to the open composer. */
  pasteClipboardImage(sessionId: string): void;
  /** `/model`, `/agent`, `/reasoning`: changes the session's choice from the next turn. */
  changeSessionChoice(sessionId: string, change: SessionChoiceChange): void;
  /** `/clear`: the next turn starts a new agent conversation on the same worktree. */
  clearContext(sessionId: string): void;
  /** Sets the session's permission mode (its next turn runs in it). */
  setPermissionMode(sessionId: string, mode: PermissionMode): void;
  stop(sessionId: string): void;
  answerQuestions(sessionId: string, answers: readonly string[]): void;
  endQuestions(sessionId: string): void;
  openDiff(sessionId: string): void;
  /** Stops a diff that is still loading (the view was left). */
  cancelDiff(sessionId: string): void;
  /** Stores a draft inline comment (a new one when `id` is null). */
  saveDiffComment(sessionId: string, comment: CommentInput): void;
  deleteDiffComment(sessionId: string, commentId: string): void;
  /** Sends every draft comment to the agent as the session's next turn. */
  submitDiffComments(sessionId: string): void;
  /** Turns the focused review's findings into draft comments and opens the diff view on them. */
  reviewToComments(sessionId: string): void;
  requestMerge(sessionId: string): void;
  /** `acknowledged`: the dialog showed the agent guard's flag, and confirming acknowledges it. */
  confirmMerge(sessionId: string, acknowledged?: boolean): void;
  rebase(sessionId: string): void;
  requestCancel(sessionId: string): void;
  confirmCancel(sessionId: string): void;
  /** Shows what a sync would push and pull, and asks first. */
  syncMain(): void;
  /** Runs the sync the person confirmed (of `branch` at `head`). */
  confirmSync(branch: string, head: string): void;
  requestPublish(sessionId: string): void;
  /** `/ci-fixer on|off|project`: the session's own CI fixer switch (null: the project's setting). */
  setCiFixer(sessionId: string, own: 'on' | 'off' | null): void;
  publish(sessionId: string, remoteBranch: string): void;
  regenerateReview(sessionId: string): void;
  /** Copies the most useful handle of the session: PR URL, restore command or worktree path. */
  copyHandle(sessionId: string): void;
  forceReview(sessionId: string): void;
  /** Best of N from the composer: the new session's first prompt runs in it and in n - 1 more sessions of one group. */
  sendBestOf(sessionId: string, text: string, n: number): void;
  /** Best of N: merges the ranked winner of the session's group and cancels the other variants. */
  chooseWinner(sessionId: string): void;
  /** Best of N: publishes the ranked winner of the session's group as a pull request and cancels the other variants. */
  publishWinner(sessionId: string): void;
  /** Fetches the session's pull-request review threads from GitHub again. */
  refreshReviewThreads(sessionId: string): void;
  /** Sends review threads to the agent as the next turn (null: every open one). */
  sendReviewThreads(sessionId: string, threadIds: readonly string[] | null): void;
  /** Asks before resolving the threads Grove answered. */
  requestResolveThreads(sessionId: string): void;
  /** Resolves the threads on GitHub (after the confirmation). */
  resolveReviewThreads(sessionId: string, threadIds: readonly string[]): void;
  /** Raises the budget limit that holds the session's prompts to `limit` and lets them go. */
  raiseBudget(sessionId: string, scope: BudgetScope, measure: BudgetMeasure, limit: number): void;
}

/** One of a session's agent, model, reasoning level or host (null: this machine), changed by a slash command. */
export type SessionChoiceChange =
  | { readonly agent: ProviderId }
  | { readonly model: string }
  | { readonly reasoning: string }
  | { readonly host: string | null };

/** A comment as the diff view's editor hands it over. */
export interface CommentInput {
  readonly id: string | null;
  readonly path: string;
  readonly side: CommentSide;
  readonly startLine: number | null;
  readonly endLine: number | null;
  readonly body: string;
  readonly excerpt: string;
  readonly hunk: string;
}
