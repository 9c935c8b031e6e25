// The infra interfaces the app works through. The composition root passes
// the real implementations (infra/db, infra/git, infra/agent); tests may pass
// the same real ones over temp folders.
import type { AgentChannel, RequestKind, TurnEvent, TurnResult } from '../infra/agent/channel.js';
import type { AgentResponse } from '../domain/protocol.js';
import type { PermissionMode } from '../domain/session.js';
import type { Clock } from '../infra/clock.js';
import type { Logger } from '../infra/log.js';
import type { GrovePaths } from '../infra/paths.js';
import type { ModelChoice, ProviderId } from '../domain/providers.js';
import type { AgentAvailability } from './state.js';
import type { PullRequestInfo } from '../domain/review-request.js';

export type { Store } from '../infra/db/store.js';
export type { GitClient } from '../infra/git/git-client.js';
export type { AgentChannel, TurnRequest, TurnEvent, TurnResult } from '../infra/agent/channel.js';

export interface SessionTurnInput {
  readonly sessionId: string;
  readonly userPrompt: string;
  readonly kind: RequestKind;
  readonly cwd: string;
  readonly mainCheckout: string;
  readonly model: string;
  readonly reasoning: string;
  readonly permissionMode: PermissionMode;
  readonly providerConversationId: string | null;
}

export interface SessionTurnOutput {
  readonly response: AgentResponse;
  readonly result: TurnResult;
}

/** Everything the app needs from the agent layer. */
export interface Agents {
  /** A channel for one session (kept for its follow-up turns). */
  create(provider: ProviderId): AgentChannel;
  detect(): Promise<readonly AgentAvailability[]>;
  /** One session turn: protocol prompt, the turn, parsing with one repair. */
  turn(
    channel: AgentChannel,
    input: SessionTurnInput,
    onEvent: (event: TurnEvent) => void,
    signal: AbortSignal,
  ): Promise<SessionTurnOutput>;
  /**
   * A one-shot prompt on a fresh channel; returns the answer. Read-only
   * (titles, commit messages, reviews) unless `write` (conflict resolution).
   */
  utility(
    choice: ModelChoice,
    prompt: string,
    cwd: string,
    signal: AbortSignal,
    options?: { readonly write?: boolean },
  ): Promise<{ answer: string; inputTokens: number; outputTokens: number }>;
}

export interface Runtime {
  readonly clock: Clock;
  readonly logger: Logger;
  readonly paths: GrovePaths;
  readonly env: NodeJS.ProcessEnv;
  /** Identifies this process as the owner of operations it runs (lease). */
  readonly owner: string;
}

/** A GitHub repository the app can open pull requests on (infra/forge behind it). */
export interface ForgeConnection {
  /** `owner/repo` (and the host for Enterprise). */
  readonly label: string;
  findOpen(headBranch: string, signal: AbortSignal): Promise<PullRequestInfo | null>;
  createDraft(input: { head: string; base: string; title: string; body: string }, signal: AbortSignal): Promise<PullRequestInfo>;
  get(number: number, signal: AbortSignal): Promise<PullRequestInfo>;
  update(number: number, input: { title?: string; body?: string }, signal: AbortSignal): Promise<PullRequestInfo>;
  /** Epoch ms until which the API asked us to wait (rate limit), or null. */
  readonly waitUntil: number | null;
}

export interface Forge {
  /** Resolves the repository and token for a git remote URL; throws a ForgeError-like error in words. */
  connect(remoteUrl: string, signal: AbortSignal): Promise<ForgeConnection>;
}
