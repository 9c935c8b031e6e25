import type { PermissionMode } from '../domain/permission-mode.js';
import type { Tab } from './state.js';

/**
 * What the runtime's key handlers may ask of the app. Every method returns at
 * once; the work runs as a task and reports back through AppEvents.
 */
export interface AppCommands {
  quit(): void;
  rememberTab(tab: Tab): void;
  activateProject(projectId: number): void;
  setSetting(key: string, value: string): void;
  openSession(sessionId: string): void;
  createSession(): void;
  discardUnstarted(sessionId: string): void;
  sendPrompt(sessionId: string, text: string): void;
  /** Sets the session's permission mode (its next turn runs in it). */
  setPermissionMode(sessionId: string, mode: PermissionMode): void;
  stop(sessionId: string): void;
  answerQuestions(sessionId: string, answers: readonly string[]): void;
  endQuestions(sessionId: string): void;
  openDiff(sessionId: string): void;
  requestMerge(sessionId: string): void;
  confirmMerge(sessionId: string): void;
  rebase(sessionId: string): void;
  requestCancel(sessionId: string): void;
  confirmCancel(sessionId: string): void;
  /** Shows what a sync would push and pull, and asks first. */
  syncMain(): void;
  /** Runs the sync the person confirmed (of `branch` at `head`). */
  confirmSync(branch: string, head: string): void;
  requestPublish(sessionId: string): void;
  publish(sessionId: string, remoteBranch: string): void;
  regenerateReview(sessionId: string): void;
  /** Copies the most useful handle of the session: PR URL, restore command or worktree path. */
  copyHandle(sessionId: string): void;
  forceReview(sessionId: string): void;
}
