import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { NO_ACP_AGENTS, type AcpAgentsConfig } from '../../domain/acp-agents.js';
import { mentionsForAgent } from '../../domain/mentions.js';
import {
  PROVIDERS,
  providerInfo,
  type ModelChoice,
  type ProviderId,
} from '../../domain/providers.js';
import { ACP_HOST_GAP, runsOnHosts, type HostPlace } from '../../domain/host.js';
import type { PermissionMode } from '../../domain/session.js';
import { agentResponseJsonSchema, type AgentResponse } from '../../domain/protocol.js';
import type { Logger } from '../log.js';
import {
  type AgentChannel,
  type ChannelOptions,
  type HistoryEntry,
  type RemoteAgentStarter,
  type RemoteRunCursor,
  type RequestKind,
  type TurnEvent,
  type TurnResult,
} from './channel.js';
import { AgentError } from './agent-error.js';
import type { ApprovalHold } from './approval-hold.js';
import { detectAgents, which, type DetectedAgent } from './detect.js';
import { defaultLauncher, type AgentLauncher, type Confinement } from './confine/launcher.js';
import { confinedShell } from './confine/confined-shell.js';
import type { ShellRunner } from '../shell.js';
import { buildTurnPrompt } from './prompt.js';
import { runProtocolTurn, type RepairTokens } from './protocol-turn.js';
import { createChannel } from './registry.js';
import { loggingWireWatch } from './wire-check.js';

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
  /** The retry budget for failing model requests (null or absent: the CLI's own). */
  readonly modelRetries?: number | null;
  /** The conversation so far, for a provider that has to be given it again. */
  readonly history?: readonly HistoryEntry[];
  /** Images attached to the prompt (absolute paths of stored copies). */
  readonly images?: readonly string[];
  /** Holds a request the mode would deny for the person (TurnRequest.hold). */
  readonly hold?: ApprovalHold;
  /** The session runs on a host, there (cwd is then the host's worktree). */
  readonly remote?: HostPlace | null;
  /** Its run there (TurnRequest.remoteRun). */
  readonly remoteRun?: RemoteRunCursor;
}

export interface SessionTurnOutput {
  readonly response: AgentResponse;
  /** The whole turn (its tokens include a repair round's). */
  readonly result: TurnResult;
  /** What a protocol repair round took of the turn's tokens (null: none). */
  readonly repair: RepairTokens | null;
}

/** A utility prompt's answer and what it cost (the repair round's part included, and apart). */
export interface UtilityReply {
  readonly answer: string;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly repair: RepairTokens | null;
}

/** Everything the app needs from the agent layer. */
export interface Agents {
  /** A channel for one session (kept for its follow-up turns). */
  create(provider: ProviderId): AgentChannel;
  /** The agent CLIs on PATH; with `versions`, each asked for its version too (seconds of CPU for a Node-based CLI). */
  detect(versions?: boolean): Promise<readonly DetectedAgent[]>;
  /** The agent CLIs on PATH (a quick look, no version check), in the registry's order, then the ACP agents found. */
  installed(): readonly ProviderId[];
  /** The ACP agents named in GROVE_HOME/agents.json (or why the file was refused). */
  acpAgents(): AcpAgentsConfig;
  /** One session turn: protocol prompt, the turn, parsing with one repair. */
  turn(
    channel: AgentChannel,
    input: SessionTurnInput,
    onEvent: (event: TurnEvent) => void,
    signal: AbortSignal,
  ): Promise<SessionTurnOutput>;
  /**
   * A one-shot prompt; returns the answer. Read-only (titles, commit
   * messages, reviews) unless `write` (conflict resolution). It runs on
   * `live` (a session's channel, idle at that moment) when that channel is of
   * the chosen agent and takes side turns (Codex: an ephemeral thread on the
   * session's app-server), else on a fresh channel that is shut down after.
   */
  utility(
    choice: ModelChoice,
    prompt: string,
    cwd: string,
    signal: AbortSignal,
    options?: { readonly write?: boolean; readonly live?: AgentChannel },
  ): Promise<UtilityReply>;
  /** How agents are confined right now: a sandbox engine, unconfined (the opt-out), or refused. */
  confinement(): Promise<Confinement>;
  /**
   * Runs shell commands in the sandbox of an agent of `provider`: commands
   * that run code an agent wrote (the best-of check, git hooks).
   */
  shell(provider: ProviderId, mainCheckout?: string): ShellRunner;
  /** Stops every agent process still running (title and commit-message prompts too) and waits briefly. */
  stopAll(): Promise<void>;
  /** Ends agent processes left behind by Grove processes that are gone; runs before recovery. */
  sweepLeftovers(): Promise<number>;
  /** The process groups of this process's running agents, by the session they work for. */
  running(): ReadonlyMap<string, readonly number[]>;
  /** Session limits: the one a session's agents met since last asked, the line when they cannot be enforced, how (issue 27). */
  readonly limits: AgentLauncher['limits'];
}

/** Providers whose CLI enforces the reply schema natively; the others get it in the prompt. */
const NATIVE_SCHEMA: ReadonlySet<ProviderId> = new Set<ProviderId>(['claude', 'codex']);

const TURN_TIMEOUT_MS = 4 * 60 * 60 * 1000;
const UTILITY_TIMEOUT_MS = 5 * 60 * 1000;

/** The agent layer as the app sees it: channels, detection, protocol turns, utility prompts. */
export function createAgents(
  env: NodeJS.ProcessEnv,
  logger: Logger,
  launcher: AgentLauncher = defaultLauncher(),
  acpAgents: AcpAgentsConfig = NO_ACP_AGENTS,
  remote?: RemoteAgentStarter,
): Agents {
  // Messages the CLIs send that their protocol schemas do not describe go to the log.
  const wire = loggingWireWatch(logger);
  const options = (turnTimeoutMs: number): ChannelOptions => ({
    env,
    turnTimeoutMs,
    launcher,
    wire,
    ...(remote ? { remote } : {}),
  });
  // What the model service said verbatim (an API error's JSON body) is kept here, not shown.
  const logRaw = (error: unknown): void => {
    if (error instanceof AgentError && error.raw)
      logger.log('warn', `${error.provider} turn failed: ${error.message}`, {
        raw: error.raw.slice(0, 8000),
      });
  };

  const turn = async (
    channel: AgentChannel,
    input: SessionTurnInput,
    onEvent: (event: TurnEvent) => void,
    signal: AbortSignal,
  ): Promise<SessionTurnOutput> => {
    if (input.remote && !runsOnHosts(channel.provider))
      throw new AgentError(
        channel.provider,
        'crash',
        `Only Claude Code, Codex and Gemini CLI run on hosts yet; ${providerInfo(channel.provider)?.name ?? channel.provider} cannot run on ${input.remote.host.name} (${ACP_HOST_GAP}).`,
      );
    const native = NATIVE_SCHEMA.has(channel.provider);
    // `@path` mentions in the form this CLI reads (the plain path for Codex).
    const form = providerInfo(channel.provider)?.fileMentions ?? 'at-path';
    const userPrompt = mentionsForAgent(input.userPrompt, form, (path) =>
      existsSync(join(input.cwd, path)),
    );
    const prompt = buildTurnPrompt({
      userPrompt,
      kind: input.kind,
      schemaInPrompt: !native,
      worktree: input.cwd,
      mode: input.permissionMode,
    });
    const { response, result, repair } = await runProtocolTurn(
      channel,
      {
        sessionId: input.sessionId,
        cwd: input.cwd,
        mainCheckout: input.mainCheckout,
        prompt,
        kind: input.kind,
        model: input.model,
        reasoning: input.reasoning,
        permissionMode: input.permissionMode,
        providerConversationId: input.providerConversationId,
        outputSchema: native ? agentResponseJsonSchema() : null,
        ...(input.modelRetries === undefined ? {} : { modelRetries: input.modelRetries }),
        ...(input.history === undefined ? {} : { history: input.history }),
        ...(input.images && input.images.length > 0 ? { images: input.images } : {}),
        ...(input.hold ? { hold: input.hold } : {}),
        ...(input.remote ? { remote: input.remote } : {}),
        ...(input.remoteRun ? { remoteRun: input.remoteRun } : {}),
      },
      onEvent,
      signal,
    ).catch((error: unknown) => {
      logRaw(error);
      throw error;
    });
    return { response, result, repair };
  };

  return {
    create: (provider) => createChannel(provider, options(TURN_TIMEOUT_MS), acpAgents),
    // The ACP agents of agents.json too: found or not (no version: ACP has no common flag for it).
    detect: async (versions = true) => [
      ...(await detectAgents(env, versions)),
      ...acpAgents.agents.map((a) => ({
        id: a.id,
        binary: a.command,
        path: which(a.command, env),
        version: null,
      })),
    ],
    installed: () => [
      ...PROVIDERS.filter((p) => which(p.binary, env) !== null).map((p) => p.id),
      ...acpAgents.agents.filter((a) => which(a.command, env) !== null).map((a) => a.id),
    ],
    acpAgents: () => acpAgents,
    confinement: () => launcher.confinement(),
    shell: (provider, mainCheckout) => confinedShell(launcher, provider, mainCheckout),
    stopAll: () => launcher.stopAll(),
    sweepLeftovers: () => launcher.sweep(),
    running: () => launcher.running(),
    limits: launcher.limits,
    turn,
    async utility(
      choice: ModelChoice,
      prompt: string,
      cwd: string,
      signal: AbortSignal,
      extra?: { readonly write?: boolean; readonly live?: AgentChannel },
    ) {
      const reuse =
        extra?.live !== undefined &&
        extra.live.provider === choice.agent &&
        extra.live.sideTurns === true;
      const channel =
        reuse && extra.live
          ? extra.live
          : createChannel(choice.agent, options(UTILITY_TIMEOUT_MS), acpAgents);
      try {
        const native = NATIVE_SCHEMA.has(choice.agent);
        const { response, result, repair } = await runProtocolTurn(
          channel,
          {
            sessionId: `utility-${Date.now()}`,
            cwd,
            // Conflict resolution in the main checkout must be allowed to edit it.
            mainCheckout: extra?.write ? '' : cwd,
            prompt: buildTurnPrompt({
              userPrompt: prompt,
              kind: 'utility',
              schemaInPrompt: !native,
              worktree: cwd,
            }),
            kind: 'utility',
            model: choice.model,
            reasoning: choice.reasoning,
            permissionMode: extra?.write ? 'auto_edit' : 'read_only',
            providerConversationId: null,
            outputSchema: native ? agentResponseJsonSchema() : null,
          },
          () => {},
          signal,
        );
        return {
          answer: response.answer,
          inputTokens: result.inputTokens,
          outputTokens: result.outputTokens,
          repair,
        };
      } catch (error) {
        logger.log('info', `utility prompt with ${choice.agent}/${choice.model} failed`, error);
        logRaw(error);
        throw error;
      } finally {
        if (!reuse) await channel.shutdown();
      }
    },
  };
}
