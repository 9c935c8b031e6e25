// What a turn is given to hold an agent CLI's request for the person (the
// app's approval desk answers it). Types only, with no imports: the channel
// and the CLIs' handlers name them without importing approval.ts's rules.

/**
 * A denied request the person may still grant: a command or an edit that
 * only the session's mode or the CLI's own policy asks about. `subject` is
 * what was asked verbatim (untrusted), `cwd` where a command runs relative
 * to the worktree (null: the worktree itself).
 */
export interface HoldRequest {
  readonly agent: string;
  readonly kind: 'command' | 'edit';
  readonly subject: string;
  readonly cwd: string | null;
  /** Why the mode would deny it. */
  readonly reason: string;
}

/** The person's answer to a held request (`timedOut`: nobody answered in time, so denied). */
export type HoldAnswer = 'once' | 'session' | 'denied' | 'timedOut';

/**
 * Holds a request for the person and resolves with the answer (the app's
 * approval desk). It writes the transcript lines itself. Aborting `signal`
 * (the turn stopped) denies it.
 */
export type ApprovalHold = (request: HoldRequest, signal: AbortSignal) => Promise<HoldAnswer>;
