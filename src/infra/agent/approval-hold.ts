// What a turn is given to hold an agent CLI's request for the person (the
// app's approval desk answers it). Types and one predicate, with no imports: the channel
// and the CLIs' handlers name them without importing approval.ts's rules.

/**
 * A denied request the person may still grant: a command or an edit that
 * only the session's mode or the CLI's own policy asks about, or a
 * connection to a host not on the network allow list (subject `host:port`).
 * `subject` is what was asked verbatim (untrusted), `cwd` where a command
 * runs relative to the worktree (null: the worktree itself).
 */
export interface HoldRequest {
  readonly agent: string;
  readonly kind: 'command' | 'edit' | 'network';
  readonly subject: string;
  readonly cwd: string | null;
  /** Why the mode would deny it. */
  readonly reason: string;
}

/**
 * The answer to a held request: the person's (`allowList`: approved and the
 * host added to the allow list, network requests only), `timedOut` (nobody
 * answered in time, so denied), or `busy` (denied at once: too many network
 * requests of the session wait already).
 */
export type HoldAnswer = 'once' | 'session' | 'allowList' | 'denied' | 'timedOut' | 'busy';

/** True for an answer that lets the request through. */
export function approves(answer: HoldAnswer): boolean {
  return answer === 'once' || answer === 'session' || answer === 'allowList';
}

/**
 * Holds a request for the person and resolves with the answer (the app's
 * approval desk). It writes the transcript lines itself. Aborting `signal`
 * (the turn stopped) denies it.
 */
export type ApprovalHold = (request: HoldRequest, signal: AbortSignal) => Promise<HoldAnswer>;
