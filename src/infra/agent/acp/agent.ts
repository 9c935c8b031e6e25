import type { AcpAgentSpec } from '../../../domain/acp-agents.js';
import type { AcpAgentId } from '../../../domain/providers.js';
import type { AcpClient, AcpClientHandlers } from './client.js';
import { acpTurnHandlers } from './turn-handlers.js';
import { TurnAccumulator, asNumber, asRecord, asString, turnResult } from '../turn-parts.js';
import {
  type AgentChannel,
  type ChannelOptions,
  type TurnEvent,
  type TurnRequest,
  type TurnResult,
  sessionOf,
} from '../channel.js';
import { AgentError } from '../agent-error.js';
import { launchAgent } from '../confine/launcher.js';
import { stderrSummary, type AgentProcess } from '../confine/process.js';
import { replayNotice, replayPrompt } from './transcript-replay.js';
import { quietWireWatch } from '../wire-check.js';

// Any agent CLI that speaks the Agent Client Protocol on stdio, named by the
// person in GROVE_HOME/agents.json (domain/acp-agents.ts): opencode, Goose,
// Kimi CLI, Qwen Code, the ACP adapters of Claude Code and Codex. One process
// per session, kept between turns, started by the same launcher (and so the
// same sandbox) as the built-in agents. Its permission requests get the
// answers Gemini CLI's get (approval.ts, for the session's permission mode);
// its tool calls read as ACP says (approval.ts, tool-lines.ts). Its usage is
// what it reports in session/prompt's `usage`; an agent that reports none has
// its turns counted as unknown, and the transcript says so once.

/** The process and connection of one ACP agent. */
interface AcpRuntime {
  readonly proc: AgentProcess;
  readonly acp: AcpClient;
  /** Whether the agent said it can reload a stored session (agentCapabilities.loadSession). */
  canLoad: boolean;
  dead: boolean;
  /**
   * Started with its worktree read-only: Grove cannot tell an agent it does
   * not know to hold a mode, so in a Read Only or Plan turn the sandbox does.
   */
  readonly readOnly: boolean;
}

/** Token usage of a session/prompt response (ACP's `usage`, still a draft field), or null when it has none. */
export function promptUsage(result: unknown): { input: number; output: number } | null {
  const usage = asRecord(asRecord(result)['usage']);
  if (typeof usage['inputTokens'] !== 'number' && typeof usage['outputTokens'] !== 'number')
    return null;
  return { input: asNumber(usage['inputTokens']), output: asNumber(usage['outputTokens']) };
}

export function createAcpAgentChannel(spec: AcpAgentSpec, options: ChannelOptions): AgentChannel {
  const provider: AcpAgentId = spec.id;
  const label = spec.name;
  const install = `Install it, or fix its command in GROVE_HOME/agents.json (now \`${[spec.command, ...spec.args].join(' ')}\`).`;
  let runtime: AcpRuntime | null = null;
  let conversation: string | null = null;
  let toldNoUsage = false;
  let current: {
    acc: TurnAccumulator;
    request: TurnRequest;
    onEvent: (e: TurnEvent) => void;
    signal: AbortSignal;
    /** Never: outside Auto Edit the worktree is read-only to the agent, so nothing is held for the person. */
    holds: false;
  } | null = null;

  const stopped = (): AgentError => new AgentError(provider, 'canceled', 'The turn was stopped.');

  const handlers = (cwd: string): AcpClientHandlers => acpTurnHandlers(cwd, label, () => current);

  const start = async (request: TurnRequest, readOnly: boolean): Promise<AcpRuntime> => {
    const { connectAcp } = await import('./client.js');
    const proc = await launchAgent(
      options.launcher,
      {
        provider,
        ...sessionOf(request),
        command: spec.command,
        args: spec.args,
        cwd: request.cwd,
        mainCheckout: request.mainCheckout,
        readOnly,
        env: options.env,
        onNetworkDenied: (line) => current?.onEvent({ type: 'notice', text: line }),
      },
      label,
      install,
    );
    const acp = connectAcp(
      proc.child,
      handlers(request.cwd),
      options.wire ?? quietWireWatch,
      provider,
    );
    const rt: AcpRuntime = { proc, acp, canLoad: false, dead: false, readOnly };
    void proc.exited.then((exit) => {
      rt.dead = true;
      acp.close(
        new AgentError(
          provider,
          'crash',
          `${label} exited (${exit.signal ?? `code ${exit.code ?? '?'}`}).`,
          stderrSummary(proc.stderrTail()),
        ),
      );
    });
    const init = await acp.request('initialize', {
      protocolVersion: 1,
      clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
      clientInfo: { name: 'grove', version: '1' },
    });
    rt.canLoad = init.agentCapabilities?.loadSession === true;
    return rt;
  };

  /** The live session; `lost` when a stored conversation could not be reloaded (the caller replays it). */
  const ensure = async (
    request: TurnRequest,
  ): Promise<{ rt: AcpRuntime; sessionId: string; lost: boolean }> => {
    const readOnly = request.permissionMode !== 'auto_edit';
    if (runtime && !runtime.dead && runtime.readOnly !== readOnly) {
      // Another mode: a new process, its worktree writable or not; the conversation is reloaded or replayed.
      runtime.proc.kill();
      runtime = null;
    }
    if (!runtime || runtime.dead) {
      runtime = await start(request, readOnly);
      conversation = null;
    }
    const rt = runtime;
    if (conversation) return { rt, sessionId: conversation, lost: false };
    const stored = request.providerConversationId;
    if (stored && rt.canLoad) {
      try {
        await rt.acp.request('session/load', {
          sessionId: stored,
          cwd: request.cwd,
          mcpServers: [],
        });
        conversation = stored;
        return { rt, sessionId: stored, lost: false };
      } catch {
        // Could not reload it: a new session below, given the conversation by Grove.
      }
    }
    const created = await rt.acp.request('session/new', { cwd: request.cwd, mcpServers: [] });
    const sessionId = asString(created.sessionId);
    if (!sessionId)
      throw new AgentError(provider, 'protocol', `${label} did not return a session id.`);
    conversation = sessionId;
    return { rt, sessionId, lost: stored !== null };
  };

  return {
    provider,
    async runTurn(request, onEvent, signal): Promise<TurnResult> {
      if (signal.aborted) throw stopped();
      const { rt, sessionId, lost } = await ensure(request);
      // Never a silent fresh start: a conversation the agent lost is replayed from Grove's transcript.
      let prompt = request.prompt;
      if (lost) {
        const replay = replayPrompt(request.history ?? [], request.prompt);
        prompt = replay.prompt;
        onEvent({ type: 'notice', text: replayNotice(label, replay.turns) });
      }
      const acc = new TurnAccumulator();
      current = { acc, request, onEvent, signal, holds: false };
      const onAbort = (): void => {
        rt.acp.cancel(sessionId);
        setTimeout(() => rt.proc.kill(), 2000).unref();
      };
      signal.addEventListener('abort', onAbort, { once: true });
      if (signal.aborted) onAbort();
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        rt.proc.kill();
      }, options.turnTimeoutMs);
      timer.unref();
      try {
        const result = await rt.acp.request('session/prompt', {
          sessionId,
          prompt: [{ type: 'text', text: prompt }],
        });
        if (signal.aborted || result.stopReason === 'cancelled') throw stopped();
        if (result.stopReason !== 'end_turn')
          throw new AgentError(
            provider,
            'api',
            `${label} stopped the turn early (${result.stopReason}).`,
          );
        const usage = promptUsage(result);
        if (usage) {
          acc.inputTokens = usage.input;
          acc.outputTokens = usage.output;
        } else if (!toldNoUsage) {
          toldNoUsage = true;
          onEvent({
            type: 'notice',
            text: `[Usage] ${label} reports no token usage: its turns are not counted in this session's tokens or budgets.`,
          });
        }
        return turnResult(acc, conversation);
      } catch (error) {
        if (signal.aborted) throw stopped();
        if (timedOut)
          throw new AgentError(
            provider,
            'timeout',
            `${label} did not finish within ${Math.round(options.turnTimeoutMs / 60000)} minutes and was stopped.`,
          );
        if (error instanceof AgentError) throw error;
        throw new AgentError(
          provider,
          'api',
          `${label} failed the turn: ${error instanceof Error ? error.message : String(error)}`,
          stderrSummary(rt.proc.stderrTail()),
        );
      } finally {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        current = null;
      }
    },
    async shutdown() {
      const stopping = runtime;
      runtime = null;
      conversation = null;
      await stopping?.proc.stop();
    },
  };
}
