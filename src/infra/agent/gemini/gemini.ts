import type { HostPlace } from '../../../domain/host.js';
import {
  type AgentChannel,
  type ChannelOptions,
  type RemoteStateDir,
  type ServerProcess,
  type TurnEvent,
  type TurnRequest,
  type TurnResult,
  sessionOf,
} from '../channel.js';
import { AgentError } from '../agent-error.js';
import { TurnAccumulator, asNumber, asRecord, asString, turnResult } from '../turn-parts.js';
import type { PermissionMode } from '../../../domain/permission-mode.js';
import type { AcpClient, AcpClientHandlers } from '../acp/client.js';
import { acpTurnHandlers } from '../acp/turn-handlers.js';
import { networkHold } from '../approval.js';
import { launchAgent } from '../confine/launcher.js';
import { stderrSummary } from '../confine/process.js';
import { leftRunRefusal, samePlace } from '../on-host.js';
import { hostNetworkOf } from '../on-host-network.js';
import type { NetworkAgent } from '../confine/host-network.js';
import { quietWireWatch } from '../wire-check.js';
import { apiAgentError } from '../api-error.js';
import { retryProgress, watchGeminiRetries, type GeminiRetry } from './retries.js';
import { replayNotice, replayPrompt } from '../acp/transcript-replay.js';
import { acpImageBlocks } from '../prompt-images.js';
import { leftAnswer, rejoinGemini, type GeminiRejoin } from './rejoin.js';
import { toldOnce } from '../left-run.js';

// Gemini CLI over the Agent Client Protocol (`gemini --acp`): one process per
// session kept alive between turns. The provider conversation id is
// "<sessionId>@<minute>": after a restart the session is reloaded with
// session/load — but only when it was created in an earlier wall-clock
// minute, because Gemini CLI 0.61 wipes a session loaded in the same minute
// it was created. In that case, or when a reload fails or comes back empty,
// a new session starts and Grove replays the conversation from its transcript.

const LABEL = 'Gemini CLI';
const INSTALL = 'Install it with `npm install -g @google/gemini-cli`.';

/** Gemini CLI's own folder on a host, kept writable in the sandbox there: $GEMINI_CLI_HOME/.gemini, else ~/.gemini. */
const GEMINI_STATE: RemoteStateDir = {
  variable: 'GEMINI_CLI_HOME',
  fallback: '',
  inside: '.gemini',
};

function minuteNow(): number {
  return Math.floor(Date.now() / 60_000);
}

export function encodeConversation(sessionId: string, minute: number): string {
  return `${sessionId}@${minute}`;
}

export function decodeConversation(
  id: string | null,
): { sessionId: string; minute: number } | null {
  if (!id) return null;
  const at = id.lastIndexOf('@');
  if (at === -1) return { sessionId: id, minute: 0 };
  return { sessionId: id.slice(0, at), minute: Number(id.slice(at + 1)) || 0 };
}

/** The ACP session mode for a permission mode: Gemini's own plan mode for Plan, else the asking default. */
export function geminiModeId(mode: PermissionMode): 'plan' | 'default' {
  return mode === 'plan' ? 'plan' : 'default';
}

/** A `gemini --acp` process and its ACP connection (@agentclientprotocol/sdk). */
interface AcpRuntime {
  readonly proc: ServerProcess;
  readonly acp: AcpClient;
  readonly cwd: string;
  /** The host it runs on (null: this machine). */
  readonly remote: HostPlace | null;
  dead: boolean;
}

/** The turn Grove stopped because the model service kept failing past the retry budget. */
function retriesSpent(retry: GeminiRetry, budget: number): AgentError {
  const tries =
    budget === 0 ? 'on the first try' : `after ${budget} ${budget === 1 ? 'retry' : 'retries'}`;
  return new AgentError(
    'gemini',
    'api',
    `Gemini CLI's model request still failed ${tries} (${retry.status ? `HTTP ${retry.status}: ` : ''}${retry.reason}); Grove stopped the turn.`,
  );
}

export function createGeminiChannel(options: ChannelOptions, binary = 'gemini'): AgentChannel {
  let runtime: AcpRuntime | null = null;
  let conversation: string | null = null;
  /** The ACP mode of the live Gemini session (a new or loaded one starts in `default`). */
  let sessionMode: string | null = null;
  let current: {
    acc: TurnAccumulator;
    request: TurnRequest;
    onEvent: (e: TurnEvent) => void;
    signal: AbortSignal;
    sessionId: string;
    gaveUp: GeminiRetry | null;
  } | null = null;

  // Each retry Gemini CLI makes is shown; past the retry budget Grove stops the turn.
  const onRetry = (retry: GeminiRetry): void => {
    if (!current || current.gaveUp) return;
    current.onEvent({ type: 'progress', text: retryProgress(retry) });
    const budget = current.request.modelRetries;
    if (typeof budget === 'number' && retry.attempt > budget) {
      current.gaveUp = retry;
      runtime?.acp.cancel(current.sessionId);
    }
  };

  /** What Grove does with what the agent sends (checked against the ACP schema by the SDK connection). */
  const handlers = (cwd: string): AcpClientHandlers =>
    acpTurnHandlers(
      cwd,
      LABEL,
      () => current,
      // session/load replays the stored conversation as message chunks: none means it came back empty.
      (update) => {
        if (
          update.sessionUpdate === 'user_message_chunk' ||
          update.sessionUpdate === 'agent_message_chunk'
        )
          reloaded++;
      },
    );

  /** Closes the connection (its requests fail with why) once the process exited. */
  const watch = (rt: AcpRuntime): AcpRuntime => {
    void rt.proc.exited.then((exit) => {
      rt.dead = true;
      rt.acp.close(
        new AgentError(
          'gemini',
          'crash',
          `${LABEL} exited (${exit.signal ?? `code ${exit.code ?? '?'}`}).`,
          stderrSummary(rt.proc.stderrTail()),
        ),
      );
    });
    return rt;
  };

  /** How the network filter treats this process, here or on a host: the same lines and holds. */
  const networkOf = (args: readonly string[]): NetworkAgent => ({
    provider: 'gemini',
    args,
    // A destination the network filter refused: a line in the running turn's transcript.
    onNetworkDenied: (line) => current?.onEvent({ type: 'notice', text: line }),
    // A host not on the allow list: held for the person by the running turn's approval desk.
    holdNetwork: (host, port) => {
      const turn = current;
      return turn?.request.hold
        ? networkHold(LABEL, turn.request.hold, turn.signal)(host, port)
        : Promise.resolve({ kind: 'notHeld' });
    },
  });

  /**
   * On a host (issue 24): `gemini --acp` started there for one turn, its stdio
   * the host's channel (infra/hosts/remote-server.ts). Gemini CLI's retries are
   * not watched there (they are logged to a file on the host).
   */
  const startOnHost = async (
    request: TurnRequest,
    place: HostPlace,
    args: string[],
  ): Promise<AcpRuntime> => {
    await leftRunRefusal(options, request, place, 'gemini', LABEL, LABEL);
    if (!options.remote) throw new Error('unreachable: checked by leftRunRefusal');
    const { connectAcp } = await import('../acp/client.js');
    const cursor = request.remoteRun;
    const proc = await options.remote.startServer(place, {
      command: binary,
      args,
      stateDir: GEMINI_STATE,
      onReconnect: (text) => current?.onEvent({ type: 'progress', text }),
      onNotice: (text) => current?.onEvent({ type: 'notice', text }),
      ...(cursor ? { cursor } : {}),
      // Its network through Grove's filter here, as for Gemini CLI here.
      ...hostNetworkOf(options, networkOf(args)),
    });
    const acp = connectAcp(proc, handlers(place.worktree), options.wire ?? quietWireWatch);
    return watch({ proc, acp, cwd: place.worktree, remote: place, dead: false });
  };

  const start = async (
    args: string[],
    cwd: string,
    mainCheckout: string,
    sessionId?: string,
  ): Promise<AcpRuntime> => {
    const { connectAcp } = await import('../acp/client.js');
    const retries = watchGeminiRetries({ ...options.env, GEMINI_CLI_NO_RELAUNCH: 'true' }, onRetry);
    const proc = await launchAgent(
      options.launcher,
      {
        ...networkOf(args),
        ...(sessionId === undefined ? {} : { sessionId }),
        command: binary,
        cwd,
        mainCheckout,
        env: retries.env,
      },
      LABEL,
      INSTALL,
    ).catch((error: unknown) => {
      retries.stop();
      throw error;
    });
    void proc.exited.then(() => retries.stop());
    const acp = connectAcp(proc.child, handlers(cwd), options.wire ?? quietWireWatch);
    return watch({ proc, acp, cwd, remote: null, dead: false });
  };

  /** Message chunks seen since the last session/load began. */
  let reloaded = 0;

  /** The live session; `lost` when a stored conversation could not be reloaded (the caller replays it). */
  const ensure = async (
    request: TurnRequest,
  ): Promise<{ rt: AcpRuntime; sessionId: string; lost: boolean }> => {
    const place = request.remote ?? null;
    if (!runtime || runtime.dead || !samePlace(runtime.remote, place)) {
      if (runtime && !runtime.dead) await runtime.proc.stop();
      runtime = null;
      const args = [
        '--acp',
        ...(request.model && request.model !== 'auto' ? ['-m', request.model] : []),
      ];
      const rt = place
        ? await startOnHost(request, place, args)
        : await start(args, request.cwd, request.mainCheckout, sessionOf(request).sessionId);
      await rt.acp.request('initialize', {
        protocolVersion: 1,
        clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
        clientInfo: { name: 'grove', version: '1' },
      });
      runtime = rt;
      conversation = null;
    }
    const rt = runtime;
    const live = decodeConversation(conversation);
    if (live) return { rt, sessionId: live.sessionId, lost: false };
    const stored = decodeConversation(request.providerConversationId);
    // Loading in the minute the session was created would wipe it (Gemini CLI 0.61): not even tried.
    if (stored && stored.minute < minuteNow()) {
      try {
        reloaded = 0;
        await rt.acp.request('session/load', {
          sessionId: stored.sessionId,
          cwd: request.cwd,
          mcpServers: [],
        });
        if (reloaded > 0 || (request.history ?? []).length === 0) {
          conversation = encodeConversation(stored.sessionId, stored.minute);
          sessionMode = 'default';
          return { rt, sessionId: stored.sessionId, lost: false };
        }
        // It came back empty: a new session below, given the conversation by Grove.
      } catch {
        // Could not reload it: a new session below, given the conversation by Grove.
      }
    }
    const created = await rt.acp.request('session/new', { cwd: request.cwd, mcpServers: [] });
    const sessionId = asString(created.sessionId);
    if (!sessionId)
      throw new AgentError('gemini', 'crash', 'Gemini CLI did not return a session id.');
    conversation = encodeConversation(sessionId, minuteNow());
    sessionMode = 'default';
    return { rt, sessionId, lost: stored !== null };
  };

  return {
    provider: 'gemini',
    async runTurn(request, onEvent, signal): Promise<TurnResult> {
      if (signal.aborted) throw new AgentError('gemini', 'canceled', 'The turn was stopped.');
      if (!request.remote) return turnHere(request, onEvent, signal);
      // On a host the process lives for one turn (its session reloaded by the next), so nothing
      // of it is left there between turns. A prompt a killed Grove left there is taken over.
      try {
        return await turnHere(request, onEvent, signal, await takeOver(request, onEvent));
      } finally {
        const stopping = runtime?.remote ? runtime : null;
        if (stopping) {
          runtime = null;
          conversation = null;
          await stopping.proc.stop();
        }
      }
    },
    async shutdown() {
      const stopping = runtime;
      runtime = null;
      conversation = null;
      await stopping?.proc.stop();
    },
  };

  /**
   * A prompt a Grove before this one sent on a host and was killed in, taken
   * over (rejoin.ts); null when it had not reached Gemini CLI (the turn then
   * starts a run of its own).
   */
  async function takeOver(
    request: TurnRequest,
    onEvent: (event: TurnEvent) => void,
  ): Promise<{ readonly rt: AcpRuntime; readonly left: GeminiRejoin } | null> {
    const place = request.remote;
    if (!place || !request.remoteRun?.runId) return null;
    if (runtime && !runtime.dead) await runtime.proc.stop();
    runtime = null;
    // The run's args as ensure() gave them: the network filter's agent is the same.
    const args = [
      '--acp',
      ...(request.model && request.model !== 'auto' ? ['-m', request.model] : []),
    ];
    const left = await rejoinGemini(
      options,
      request,
      place,
      LABEL,
      {
        progress: (text) => onEvent({ type: 'progress', text }),
        notice: (text) => onEvent({ type: 'notice', text }),
      },
      { stateDir: GEMINI_STATE, ...hostNetworkOf(options, networkOf(args)) },
    );
    if (!left) return null;
    const { connectAcp } = await import('../acp/client.js');
    // The turn's text starts once the prompt was sent (a reloaded session's replay came before).
    const acp = connectAcp(
      left.run.process,
      acpTurnHandlers(place.worktree, LABEL, () => (left.prompting() ? current : null)),
      options.wire ?? quietWireWatch,
    );
    const rt = watch({
      proc: left.run.process,
      acp,
      cwd: place.worktree,
      remote: place,
      dead: false,
    });
    runtime = rt;
    // Its minute: the stored one when the prompt went to the stored session, else now (never earlier
    // than it was made, so a reply never loads it in the minute it was made).
    const stored = decodeConversation(request.providerConversationId);
    conversation = encodeConversation(
      left.sessionId,
      stored?.sessionId === left.sessionId ? stored.minute : minuteNow(),
    );
    sessionMode = null;
    return { rt, left };
  }

  async function turnHere(
    request: TurnRequest,
    onEvent: (event: TurnEvent) => void,
    signal: AbortSignal,
    taken: { readonly rt: AcpRuntime; readonly left: GeminiRejoin } | null = null,
  ): Promise<TurnResult> {
    const left = taken?.left ?? null;
    const { rt, sessionId, lost } = taken
      ? { rt: taken.rt, sessionId: taken.left.sessionId, lost: false }
      : await ensure(request);
    // Never a silent fresh start: the conversation Gemini lost is replayed from Grove's transcript, and said so.
    let prompt = request.prompt;
    if (lost) {
      const replay = replayPrompt(request.history ?? [], request.prompt);
      prompt = replay.prompt;
      onEvent({ type: 'notice', text: replayNotice('Gemini', replay.turns) });
    }
    const wantMode = geminiModeId(request.permissionMode);
    if (!left && sessionMode !== wantMode) {
      try {
        await rt.acp.request('session/set_mode', { sessionId, modeId: wantMode });
        sessionMode = wantMode;
      } catch {
        // Gemini's own mode is not essential: Grove's answers deny every write outside Auto Edit anyway.
      }
    }
    const acc = new TurnAccumulator();
    // Taken over: what the transcript already has is read again to rebuild the turn, not told.
    const told = left ? toldOnce(left.run, onEvent) : onEvent;
    current = { acc, request, onEvent: told, signal, sessionId, gaveUp: null };
    const turn = current;
    const onAbort = (): void => {
      rt.acp.cancel(sessionId);
      setTimeout(() => rt.proc.kill(), 2000).unref();
    };
    signal.addEventListener('abort', onAbort, { once: true });
    // Stopped while the process was starting: the listener came too late.
    if (signal.aborted) onAbort();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      rt.proc.kill();
    }, options.turnTimeoutMs);
    timer.unref();
    try {
      const result: { stopReason?: unknown; _meta?: unknown } = left
        ? await leftAnswer(rt.proc, left, LABEL)
        : await rt.acp.request('session/prompt', {
            sessionId,
            prompt: [
              { type: 'text', text: prompt },
              ...(await acpImageBlocks(request.images ?? [])),
            ],
          });
      const stop = typeof result.stopReason === 'string' ? result.stopReason.slice(0, 80) : null;
      if (turn.gaveUp) throw retriesSpent(turn.gaveUp, request.modelRetries ?? 0);
      if (signal.aborted || stop === 'cancelled')
        throw new AgentError('gemini', 'canceled', 'The turn was stopped.');
      if (stop && stop !== 'end_turn')
        throw new AgentError('gemini', 'api', `Gemini CLI stopped the turn early (${stop}).`);
      // Gemini CLI's own extension (_meta.quota), or ACP's draft `usage` field.
      const meta = asRecord(asRecord(result._meta)['quota']);
      const count = asRecord(meta['token_count']);
      const usage = asRecord(asRecord(result)['usage']);
      acc.inputTokens = asNumber(count['input_tokens']) || asNumber(usage['inputTokens']);
      acc.outputTokens = asNumber(count['output_tokens']) || asNumber(usage['outputTokens']);
      return turnResult(acc, conversation);
    } catch (error) {
      if (signal.aborted) throw new AgentError('gemini', 'canceled', 'The turn was stopped.');
      if (timedOut)
        throw new AgentError(
          'gemini',
          'timeout',
          `Gemini CLI did not finish within ${Math.round(options.turnTimeoutMs / 60000)} minutes and was stopped.`,
        );
      if (error instanceof AgentError) throw error;
      const message = error instanceof Error ? error.message : String(error);
      // The API's message in words (its raw JSON body goes to the log); ACP's error data carries the HTTP status.
      const status =
        error instanceof Error && 'data' in error
          ? asNumber(asRecord(error.data)['code']) || null
          : null;
      throw apiAgentError('gemini', 'Gemini CLI', message, {
        status,
        ...(/\bauth|api key|credential/i.test(message) ? { reason: 'auth' as const } : {}),
        diagnostics: rt.proc.stderrTail().slice(-800),
      });
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      current = null;
    }
  }
}
