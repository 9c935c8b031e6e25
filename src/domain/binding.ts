// The shape of a key binding: one row of a mode's key table (domain/keymap.ts
// holds the tables), and what decides whether a row applies to a session.
import type { SessionStatus } from './session-status.js';

/** The modes that have a key table (domain/keymap.ts). */
export type ModeName =
  | 'sessions'
  | 'sessionSearch'
  | 'projects'
  | 'settings'
  | 'session'
  | 'composer'
  | 'historySearch'
  | 'question'
  | 'threads'
  | 'diff'
  | 'comment'
  | 'diffSearch'
  | 'confirm'
  | 'help'
  | 'inbox'
  | 'disk';

export interface Binding<A extends string = string> {
  readonly keys: readonly string[];
  readonly action: A;
  readonly help: string;
  /** Shown in the footer when available. */
  readonly hint?: string;
  /** For the session view: statuses in which the action applies (all when absent). */
  readonly statuses?: readonly SessionStatus[];
  /**
   * For the session view: what else the session needs for the row to show in
   * the footer and help (a pull request for `t`, a best-of group for `W`).
   * The key still answers elsewhere, saying what is missing.
   */
  readonly needs?: 'pullRequest' | 'bestOf';
}

/** What decides which rows apply to a session: its status, and whether it has a pull request or a best-of group. */
export interface BindingSubject {
  readonly status: SessionStatus;
  readonly pullRequest?: boolean;
  readonly bestOf?: boolean;
}
