import type { PermissionMode } from '../../domain/session.js';
import type { ProviderId } from '../../domain/providers.js';
import { sanitizeText } from '../../domain/sanitize.js';
import type { AgentLauncher } from './launcher.js';

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

export type AgentErrorReason =
  | 'missing_cli'
  | 'auth'
  | 'api'
  | 'crash'
  | 'timeout'
  | 'canceled'
  | 'protocol'
  /** No sandbox engine can confine the agent, and running unconfined is not allowed. */
  | 'sandbox';

/** An expected failure of an agent turn, shown to the user in words (sanitized: it may quote the CLI's stderr). */
export class AgentError extends Error {
  readonly kind = 'agent' as const;
  /** Bounded extra detail (stderr tail, exit code, parser position); never the raw reply. */
  readonly diagnostics: string;
  constructor(
    readonly provider: ProviderId,
    readonly reason: AgentErrorReason,
    message: string,
    diagnostics = '',
  ) {
    super(sanitizeText(message));
    this.diagnostics = sanitizeText(diagnostics);
  }
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
  /** Stops any long-lived process this channel holds. Idempotent. */
  shutdown(): Promise<void>;
}

/** Environment and lookup knobs shared by all channels (injected, for tests). */
export interface ChannelOptions {
  /** Environment for agent processes (defaults to process.env). */
  readonly env: NodeJS.ProcessEnv;
  /** Hard limit for one turn in ms. */
  readonly turnTimeoutMs: number;
  /** Starts the agent processes (confined, tied to Grove's life); a default confined one when absent. */
  readonly launcher?: AgentLauncher;
}
