import type { HostPlace } from '../../domain/host.js';
import type { PermissionMode } from '../../domain/session.js';
import type { ProviderId } from '../../domain/providers.js';
import type { AgentLauncher } from './confine/launcher.js';
import type { HostNetworkOpener } from './confine/host-network.js';
import type { WireWatch } from './wire-check.js';
import type { ApprovalHold } from './approval-hold.js';

/** What a turn is for; it selects the prompt wrapper and the permissions. */
export type RequestKind = 'session_start' | 'session_resume' | 'utility';

export interface TurnRequest {
  /** Grove's session id (stable across turns). */
  readonly sessionId: string;
  /** The session worktree: the agent's working directory and only writable place. */
  readonly cwd: string;
  /** The project's main checkout, which the agent must not modify. */
  readonly mainCheckout: string;
  /** The complete prompt text to send (already wrapped with protocol instructions). */
  readonly prompt: string;
  readonly kind: RequestKind;
  readonly model: string;
  readonly reasoning: string;
  readonly permissionMode: PermissionMode;
  /** The provider's own conversation/thread/session id from an earlier turn. */
  readonly providerConversationId: string | null;
  /** JSON Schema of the reply, for providers that enforce it natively. */
  readonly outputSchema: Record<string, unknown> | null;
  /** How many times a failing model request may be retried before the turn fails (absent or null: the CLI's own limit). */
  readonly modelRetries?: number | null;
  /** The session's conversation before this prompt, for a provider that lost its own copy (Grove replays it). */
  readonly history?: readonly HistoryEntry[];
  /** Images attached to the prompt (absolute paths); each channel sends them its CLI's way. */
  readonly images?: readonly string[];
  /**
   * Holds a request the mode would deny for the person to decide (the
   * inbox); absent: such a request is denied at once, as in a utility turn.
   */
  readonly hold?: ApprovalHold;
  /** The session runs on a host: its agent starts there, in this place (cwd is the host's worktree). */
  readonly remote?: HostPlace | null;
  /** For a turn on a host: the run it starts, or re-attaches to (RemoteRunCursor). */
  readonly remoteRun?: RemoteRunCursor;
}

/**
 * A turn's run on a host, shared by the turn (which keeps it durably with
 * its operation) and the starter (remote-agent.ts). With a run id the starter
 * re-attaches to that run, reading its stdout on from `offset`; without one
 * it starts a run and calls `started` before reading any output.
 */
export interface RemoteRunCursor {
  runId: string | null;
  /** Its process group on the host, as it was when the run started (null: not known). */
  pgid: number | null;
  /**
   * The end of the last whole stdout line handed on: while the turn's
   * handler of that line runs (synchronously, as it is read), this is where
   * a re-attach would go on from.
   */
  offset: number;
  /** The new run, before any of its output is read. */
  readonly started?: (runId: string, pgid: number) => Promise<void>;
  /** After each line was handed on and read. */
  readonly line?: () => void;
}

/**
 * The session a launch works for (LaunchSpec.sessionId), so its process tree
 * is shown there; none for Grove's own prompts (titles, commit messages).
 */
export function sessionOf(request: Pick<TurnRequest, 'sessionId' | 'kind'>): {
  readonly sessionId?: string;
} {
  return request.kind === 'utility' ? {} : { sessionId: request.sessionId };
}

/** One prompt or answer of a session's conversation, as the transcript keeps it. */
export interface HistoryEntry {
  readonly role: 'user' | 'agent';
  readonly text: string;
}

/**
 * Events while a turn runs. Thinking and progress drive the progress line;
 * a denial (a request the permission mode did not allow, already refused)
 * is kept as a transcript line.
 */
export type TurnEvent =
  | { readonly type: 'thinking'; readonly text: string }
  | { readonly type: 'progress'; readonly text: string }
  | { readonly type: 'denied'; readonly text: string }
  /** Something the person should know about this turn (a lost conversation replayed): kept as a transcript line. */
  | { readonly type: 'notice'; readonly text: string }
  /** A tool call or command the agent ran, finished: its one-line summary, then any detail (output, exit code) on the next lines. */
  | { readonly type: 'tool'; readonly text: string }
  | { readonly type: 'pid'; readonly pid: number };

export interface TurnResult {
  /** The final assistant message (expected to hold the protocol JSON object). */
  readonly message: string;
  /** The provider's schema-validated structured output, when it returns one. */
  readonly structured: unknown;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly providerConversationId: string | null;
}

export interface AgentChannel {
  readonly provider: ProviderId;
  /**
   * Runs one turn. Resolves with the final message, or rejects with an
   * AgentError. Aborting the signal stops the agent's whole process group
   * and rejects with reason 'canceled'.
   */
  runTurn(
    request: TurnRequest,
    onEvent: (event: TurnEvent) => void,
    signal: AbortSignal,
  ): Promise<TurnResult>;
  /**
   * True when a `utility` turn on this channel runs beside the session's
   * conversation (its own short-lived thread on the same live process), so
   * Grove can ask its utility prompts here instead of starting a process.
   */
  readonly sideTurns?: boolean;
  /** Stops any long-lived process this channel holds. Idempotent. */
  shutdown(): Promise<void>;
}

/** An agent process as a channel reads it, on this machine or on a host. */
export interface TurnProcess {
  /** Its stdout. */
  readonly stdout: NodeJS.ReadableStream;
  /** Resolves once it has exited and every byte of stdout was handed on. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** The last few KiB of stderr (or why the link to it was lost). */
  stderrTail(): string;
  /** Ends its whole process group. Idempotent. */
  kill(): void;
}

/**
 * A long-lived two-way agent process on a host (Codex's app-server): its
 * stdout as a TurnProcess's, and a stdin whose lines reach the process
 * exactly once, in order, however often the link drops.
 */
export interface RemoteServerProcess extends TurnProcess {
  /** Lines for the process's stdin. */
  readonly stdin: NodeJS.WritableStream;
  /** kill(), then wait (a bounded while) until the run on the host is over. */
  stop(): Promise<void>;
}

/**
 * The CLI's own state folder on the host, which the sandbox there keeps
 * writable: the host user's `variable` (set for the CLI to that folder), else
 * `fallback` under the host user's home; with `inside`, the folder is that
 * one inside it (the variable names its parent, as GEMINI_CLI_HOME does).
 */
export interface RemoteStateDir {
  /** An environment variable name (CODEX_HOME). */
  readonly variable: string;
  /** A folder relative to the home (.codex), or '' for the home itself. */
  readonly fallback: string;
  /** The state folder inside that one (.gemini), when the variable names its parent. */
  readonly inside?: string;
  /**
   * A file in the state folder whose `base_url` lines name the CLI's model
   * servers (Codex's config.toml): read for the network filter's allow list,
   * and kept read-only in the sandbox so the agent cannot add one to it.
   */
  readonly config?: string;
}

/** A server process as a channel uses it: here (the launcher's) or on a host (RemoteServerProcess). */
export interface ServerProcess {
  /** Resolves with the exit code (or signal) once the process has exited. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stderrTail(): string;
  /** Ends its whole process group. Idempotent. */
  kill(): void;
  /** kill(), then wait (a bounded while) until it has exited. */
  stop(): Promise<void>;
}

/** Starts an agent CLI on a host (infra/hosts/remote-agent.ts). */
export interface RemoteAgentStarter {
  /**
   * Starts `command args` in the place's worktree on its host, detached, with
   * `input` as its stdin (sent as a file, never on a command line). Rejects
   * with a HostError in words.
   */
  start(
    place: HostPlace,
    spec: {
      readonly command: string;
      readonly args: readonly string[];
      readonly input: string;
      /** A line for the progress row while the link is down (Reconnecting to build (try 3, next in 4s)), and once it is back. */
      readonly onReconnect?: (text: string) => void;
      /** A line for the transcript (a stop that cannot reach the host yet). */
      readonly onNotice?: (text: string) => void;
      /** The run to re-attach to, or to record once started. */
      readonly cursor?: RemoteRunCursor;
      /** Filters the agent's network through Grove's proxy here; absent: the host's network is open to it. */
      readonly network?: HostNetworkOpener;
    },
  ): Promise<TurnProcess>;
  /**
   * Starts `command args` as a long-lived server in the place's worktree on
   * its host, detached, its stdin a channel on the host that outlives the
   * link (infra/hosts/remote-server.ts). Rejects with a HostError in words.
   */
  startServer(
    place: HostPlace,
    spec: {
      readonly command: string;
      readonly args: readonly string[];
      readonly stateDir: RemoteStateDir;
      readonly onReconnect?: (text: string) => void;
      readonly onNotice?: (text: string) => void;
      /** Where the run is recorded once started (a re-attach goes through attachServer). */
      readonly cursor?: RemoteRunCursor;
      /** Filters its network through Grove's proxy here for as long as it runs; absent: the host's network is open to it. */
      readonly network?: HostNetworkOpener;
    },
  ): Promise<RemoteServerProcess>;
  /**
   * Ends a run a Grove before this one started (its whole process group, as
   * it was when the run started) and waits until it is over. Rejects with a
   * HostError when the host cannot be reached.
   */
  stopRun(place: HostPlace, runId: string, pgid: number | null): Promise<void>;
  /**
   * Re-attaches to a server run a Grove before this one started (killed
   * mid-turn; infra/hosts/remote-reattach.ts): its stdout streamed again from
   * byte 0, what that Grove sent it (its input log), and a stdin that goes on
   * after that. Absent: such a run cannot be taken over and is stopped.
   */
  attachServer?(place: HostPlace, spec: ServerAttachSpec): Promise<RemoteServerAttach>;
}

/** The run attachServer takes over, and where its lines are told. */
export interface ServerAttachSpec {
  readonly runId: string;
  /** Its process group on the host, as it was when the run started (null: not known). */
  readonly pgid: number | null;
  /** The CLI's state folder, as startServer was given it. */
  readonly stateDir: RemoteStateDir;
  readonly onReconnect?: (text: string) => void;
  readonly onNotice?: (text: string) => void;
  /** Its network filter, as startServer was given it: opened again for the run (the earlier Grove's went with it). */
  readonly network?: HostNetworkOpener;
}

/** A server run taken over from a Grove before this one (RemoteAgentStarter.attachServer). */
export interface RemoteServerAttach extends RemoteServerProcess {
  /**
   * What the earlier Grove wrote to the process's stdin, as the host's input
   * log holds it (Grove's own JSON-RPC lines, but read back from a file on the
   * host: parse it as untrusted). Its last line may be cut short (that Grove
   * was killed while sending it).
   */
  readonly sent: string;
  /** The log was larger than Grove reads back (AttachLimits): `sent` is empty. */
  readonly sentTooLarge: boolean;
}

/** Environment and lookup knobs shared by all channels (injected, for tests). */
export interface ChannelOptions {
  /** Environment for agent processes (defaults to process.env). */
  readonly env: NodeJS.ProcessEnv;
  /** Hard limit for one turn in ms. */
  readonly turnTimeoutMs: number;
  /** Starts the agent processes (confined, tied to Grove's life); a default confined one when absent. */
  readonly launcher?: AgentLauncher;
  /** Sees every message received from the CLI, judged against its protocol schema (unknown and invalid ones are logged). */
  readonly wire?: WireWatch;
  /** Starts agents on hosts, for a request with `remote` (absent: such a request fails). */
  readonly remote?: RemoteAgentStarter;
}
