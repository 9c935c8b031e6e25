import type { ProviderId } from '../../domain/providers.js';
import { sanitizeText } from '../../domain/sanitize.js';

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
  /** What the CLI or the model service said verbatim (an API error's JSON body): for the log, never shown. */
  raw: string | null = null;
  /** The provider's conversation id the failed turn had started or resumed (so a reply can go on with it), when known. */
  providerConversationId: string | null = null;
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
