/** What a durable session operation asks the session's worker to do. */
export const OPERATION_KINDS = [
  'start_prompt',
  'reply',
  'rebase',
  'merge',
  'publish',
  'utility',
] as const;
export type OperationKind = (typeof OPERATION_KINDS)[number];

/** queued → running → done / failed / canceled. */
export const OPERATION_STATUSES = ['queued', 'running', 'done', 'failed', 'canceled'] as const;
export type OperationStatus = (typeof OPERATION_STATUSES)[number];
export type FinishedOperationStatus = Exclude<OperationStatus, 'queued' | 'running'>;

/** The error recorded on operations a previous run left unfinished. */
export const INTERRUPTED_BY_RESTART = 'interrupted by restart';

export interface Operation {
  readonly id: string;
  readonly sessionId: string;
  readonly kind: OperationKind;
  readonly status: OperationStatus;
  readonly payload: Readonly<Record<string, unknown>>;
  readonly cancelRequested: boolean;
  /** As `host:pid`: the process that runs (or ran) it; while queued, the one that queued it (null when unknown). */
  readonly owner: string | null;
  readonly queuedAt: number;
  readonly startedAt: number | null;
  /** Last renewal of the running owner's lease (absent where not read). */
  readonly heartbeatAt?: number | null;
  readonly finishedAt: number | null;
  readonly lastError: string | null;
  /** Queued behind an agent's usage limit: the worker does not take it before this time (absent where not read). */
  readonly notBefore?: number | null;
  /** The agent whose limit it waits for. */
  readonly waitAgent?: string | null;
  /** A turn on a host: the run it started there and how far its output was read (absent where not read). */
  readonly remoteRun?: RemoteRunMark | null;
}

/** The detached run of a turn on a host (infra/hosts/remote-run.ts), as the operation keeps it. */
export interface RemoteRunMark {
  readonly runId: string;
  /** Its process group on the host, as startRun reported it (null: not known). */
  readonly pgid: number | null;
  /** The bytes of its stdout the transcript has taken in. */
  readonly offset: number;
}

export function isOperationKind(value: string): value is OperationKind {
  return (OPERATION_KINDS as readonly string[]).includes(value);
}

export function isOperationStatus(value: string): value is OperationStatus {
  return (OPERATION_STATUSES as readonly string[]).includes(value);
}
