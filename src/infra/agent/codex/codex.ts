import { agentResponseJsonSchema } from '../../../domain/protocol.js';
import {
  type AgentChannel,
  type ChannelOptions,
  type TurnEvent,
  type TurnRequest,
  type TurnResult,
  sessionOf,
} from '../channel.js';
import { AgentError } from '../agent-error.js';
import { RpcError } from './json-rpc.js';
import { TurnAccumulator, asRecord, asString, turnResult } from '../turn-parts.js';
import { startRuntime, type Runtime } from './app-server.js';
import { startCodexOnHost } from './on-host.js';
import { rejoinCodex, type CodexRejoin } from './rejoin.js';
import { toldOnce } from '../left-run.js';
import { codexAsk, codexPolicy, codexTurnPolicy } from './policy.js';
import { samePlace } from '../on-host.js';
import { decideApproval, deniedLine, describeAsk, holdRequest } from '../approval.js';
import type { PermissionMode } from '../../../domain/permission-mode.js';
import { CodexTurnUsage } from './turn-usage.js';
import type * as CodexWireModule from './wire.js';
import type { CodexClientRequests } from './protocol/methods.gen.js';
import type { ThreadItem } from './protocol/v2.gen.js';
import type { JsonValue } from './protocol/v1.gen.js';
import { quietWireWatch } from '../wire-check.js';
import { imageDataUrls } from '../prompt-images.js';

type CodexWire = typeof CodexWireModule;
import { apiAgentError } from '../api-error.js';
import { codexToolLine, withoutWorktree, worktreePath } from '../tool-lines.js';

// Codex: one `codex app-server` per session, JSON-RPC over stdio (no
// "jsonrpc" field): initialize → thread/start or thread/resume → turn/start
// with the reply schema; approvals answered by policy; restarted once with
// resume if the process dies mid-turn. For a session on a host the app-server
// runs there, one per turn (on-host.ts), with the same protocol code.

const LABEL = 'Codex';
const INSTALL = 'Install it with `npm install -g @openai/codex`.';

function itemProgress(item: ThreadItem, cwd: string): string | null {
  switch (item.type) {
    case 'commandExecution':
      return `Running ${withoutWorktree(item.command.replace(/^\/bin\/(ba)?sh -lc /, ''), cwd).slice(0, 60) || 'a command'}`;
    case 'fileChange': {
      const path = item.changes[0]?.path;
      return path ? `Editing ${worktreePath(path, cwd)}` : 'Editing files';
    }
    case 'webSearch':
      return 'Searching the web';
    case 'reasoning':
      return 'Thinking…';
    default:
      return null;
  }
}

export function createCodexChannel(options: ChannelOptions, binary = 'codex'): AgentChannel {
  let runtime: Runtime | null = null;
  let threadId: string | null = null;
  /** The mode the open thread's sandbox was set for (a later turn in another mode overrides it). */
  let threadMode: PermissionMode | null = null;
  /** The protocol validators, loaded with the first Codex process. */
  let checks: CodexWire | null = null;
  let current: {
    acc: TurnAccumulator;
    usage: CodexTurnUsage;
    request: TurnRequest;
    onEvent: (e: TurnEvent) => void;
    /** The turn's signal: a request held for the person is denied when the turn stops. */
    signal: AbortSignal;
    done: (error: Error | null) => void;
    turnId: string | null;
  } | null = null;

  const wire = (rt: Runtime, checks: CodexWire): void => {
    // Every message is checked against the pinned Codex's protocol (protocol/); handlers get typed params.
    const peer = checks.checkedPeer(rt.peer, options.wire ?? quietWireWatch);
    // Paths of each file-change item: its approval request names only the item.
    const changes = new Map<string, string[]>();
    peer.on('item/started', ({ item }) => {
      if (item.type === 'fileChange')
        changes.set(
          item.id,
          item.changes.map((c) => c.path),
        );
      const text = current ? itemProgress(item, current.request.cwd) : null;
      if (text && current) current.onEvent({ type: 'progress', text });
    });
    peer.on('item/reasoning/summaryTextDelta', ({ delta }) =>
      current?.onEvent({ type: 'thinking', text: delta }),
    );
    peer.on('item/reasoning/textDelta', ({ delta }) =>
      current?.onEvent({ type: 'thinking', text: delta }),
    );
    peer.on('item/agentMessage/delta', () =>
      current?.onEvent({ type: 'progress', text: 'Writing the answer' }),
    );
    peer.on('item/completed', ({ item }) => {
      if (item.type === 'agentMessage' && item.text && current) current.acc.message = item.text;
      // A finished command or edit, kept in the transcript (folded to one line).
      const report = current ? codexToolLine(item, current.request.cwd) : null;
      if (report) current?.onEvent(report);
    });
    peer.on('turn/started', ({ turn }) => {
      if (current) current.turnId = turn.id;
    });
    // Tagged with its turn: a resume re-sends the previous turn's usage, which must not count.
    peer.on('thread/tokenUsage/updated', (params) => current?.usage.record(params));
    peer.on(
      'turn/completed',
      ({ turn }) => {
        if (!current) return;
        if (turn.status === 'failed')
          current.done(apiAgentError('codex', 'Codex', turn.error?.message ?? 'the turn failed'));
        else if (turn.status === 'interrupted')
          current.done(new AgentError('codex', 'canceled', 'The turn was stopped.'));
        else current.done(null);
      },
      // Never wait forever on a turn whose end Grove could not read.
      (issue) =>
        current?.done(
          new AgentError(
            'codex',
            'protocol',
            'Codex ended the turn with a message this version of Grove does not understand.',
            `turn/completed: ${issue}`,
          ),
        ),
    );
    peer.on('error', ({ error, willRetry }) => {
      if (current && !willRetry)
        current.onEvent({ type: 'progress', text: `Codex: ${error.message.slice(0, 80)}` });
    });
    // Approvals, fail-closed: what the session's mode does not allow is declined and told in the
    // transcript, unless the person may grant it (approval.ts holdRequest): then it is held for them.
    const decide = async (method: string, params: unknown): Promise<boolean> => {
      const ask = codexAsk(method, params, (itemId) => changes.get(itemId) ?? []);
      if (!ask) return false;
      const turn = current;
      // No turn of this channel is running: nobody asked for anything.
      const decision = turn
        ? decideApproval(turn.request.permissionMode, rt.cwd, ask)
        : ({ allow: false, reason: 'no turn is running' } as const);
      if (decision.allow) return true;
      const why = asString(asRecord(params)['reason']);
      const reason = `${decision.reason}${why ? ` (Codex's reason: ${why.replace(/\s+/g, ' ').slice(0, 160)})` : ''}`;
      const held = turn?.request.hold ? holdRequest(LABEL, rt.cwd, ask, reason) : null;
      if (turn?.request.hold && held) {
        const answer = await turn.request.hold(held, turn.signal).catch(() => 'denied' as const);
        return answer === 'once' || answer === 'session';
      }
      turn?.onEvent({ type: 'denied', text: deniedLine(LABEL, describeAsk(ask, rt.cwd), reason) });
      return false;
    };
    // Grove keeps the session's grants itself (narrower than Codex's own), so an approval is `accept`.
    peer.answer(
      'item/commandExecution/requestApproval',
      async (params) => ({
        decision: (await decide('item/commandExecution/requestApproval', params))
          ? 'accept'
          : 'decline',
      }),
      { decision: 'decline' },
    );
    peer.answer(
      'item/fileChange/requestApproval',
      async (params) => ({
        decision: (await decide('item/fileChange/requestApproval', params)) ? 'accept' : 'decline',
      }),
      { decision: 'decline' },
    );
    // The legacy requests: a denial carries its reason for the model.
    const denied = {
      decision: { denied: { rejection: "Not allowed by the Grove session's permission mode." } },
    } as const;
    peer.answer(
      'execCommandApproval',
      async (params) =>
        (await decide('execCommandApproval', params)) ? { decision: 'approved' } : denied,
      denied,
    );
    peer.answer(
      'applyPatchApproval',
      async (params) =>
        (await decide('applyPatchApproval', params)) ? { decision: 'approved' } : denied,
      denied,
    );
    // Nothing granted: the sandbox stays as the mode set it.
    const noPermissions = { permissions: {}, scope: 'turn' } as const;
    peer.answer(
      'item/permissions/requestApproval',
      async (params) => {
        await decide('item/permissions/requestApproval', params);
        return noPermissions;
      },
      noPermissions,
    );
    peer.answer('item/tool/requestUserInput', () => ({ answers: {} }), { answers: {} });
    const decline = { action: 'decline', content: null, _meta: null } as const;
    peer.answer('mcpServer/elicitation/request', () => decline, decline);
  };

  /** The process for `request`: the live one when it runs where the request wants, else a new one. */
  const start = async (request: TurnRequest): Promise<Runtime> => {
    const place = request.remote ?? null;
    if (runtime && !runtime.dead && samePlace(runtime.remote, place)) return runtime;
    if (runtime && !runtime.dead) await runtime.proc.stop();
    runtime = null;
    if (place)
      return startCodexOnHost(options, request, place, binary, LABEL, (event) =>
        current?.onEvent(event),
      );
    // Grove's sandbox gives the agent its own /tmp, so Codex's sandbox, nested inside, keeps /tmp
    // writable for the commands it runs (tests that write there) and starts its daemon there.
    return startRuntime(
      'codex',
      LABEL,
      binary,
      ['app-server'],
      request.cwd,
      options.env,
      false,
      INSTALL,
      options.launcher,
      // A destination the network filter refused: a line in the running turn's transcript.
      (line) => current?.onEvent({ type: 'notice', text: line }),
      request.mainCheckout,
      sessionOf(request).sessionId,
    );
  };

  const ensure = async (request: TurnRequest): Promise<Runtime> => {
    if (runtime && !runtime.dead && samePlace(runtime.remote, request.remote ?? null))
      return runtime;
    const rt = await start(request);
    checks ??= await import('./wire.js');
    wire(rt, checks);
    await rt.peer.request('initialize', {
      clientInfo: { name: 'grove', title: 'Grove', version: '1' },
      capabilities: null,
    } satisfies CodexClientRequests['initialize']['params']);
    rt.peer.notify('initialized');
    runtime = rt;
    threadId = null;
    return rt;
  };

  /** The thread id of a thread/start or thread/resume response, checked against the protocol. */
  const threadIdOf = (
    method: 'thread/start' | 'thread/resume',
    response: unknown,
  ): string | null => {
    const checked = checks?.checkResponse(method, response);
    if (checked)
      (options.wire ?? quietWireWatch).record(
        'codex',
        `${method} response`,
        checked.ok ? 'valid' : 'invalid',
        checked.ok ? undefined : checked.issue,
      );
    return checked?.ok
      ? checked.value.thread.id
      : asString(asRecord(asRecord(response)['thread'])['id']);
  };

  const openThread = async (rt: Runtime, request: TurnRequest): Promise<string> => {
    if (threadId) return threadId;
    const { approvalPolicy, sandbox } = codexPolicy(request.permissionMode);
    threadMode = request.permissionMode;
    const resumeId = request.providerConversationId;
    if (resumeId) {
      try {
        const resumed = await rt.peer.request('thread/resume', {
          threadId: resumeId,
          approvalPolicy,
          sandbox,
          model: request.model,
        } satisfies Partial<CodexClientRequests['thread/resume']['params']>);
        threadId = threadIdOf('thread/resume', resumed) ?? resumeId;
        return threadId;
      } catch (error) {
        if (!(error instanceof RpcError)) throw error;
        // The stored thread is gone: start a new one.
      }
    }
    const started = await rt.peer.request('thread/start', {
      cwd: request.cwd,
      model: request.model,
      approvalPolicy,
      sandbox,
    } satisfies Partial<CodexClientRequests['thread/start']['params']>);
    threadId = threadIdOf('thread/start', started);
    if (!threadId) throw new AgentError('codex', 'crash', 'Codex did not return a thread id.');
    return threadId;
  };

  /**
   * A utility prompt (title, commit message, review) on the live process: its
   * own ephemeral thread, so the session's thread and its mode stay as they were.
   */
  const openSideThread = async (rt: Runtime, request: TurnRequest): Promise<string> => {
    const { approvalPolicy, sandbox } = codexPolicy(request.permissionMode);
    const started = asRecord(
      await rt.peer.request('thread/start', {
        cwd: request.cwd,
        model: request.model,
        approvalPolicy,
        sandbox,
        ephemeral: true,
      }),
    );
    const id = asString(asRecord(started['thread'])['id']);
    if (!id) throw new AgentError('codex', 'crash', 'Codex did not return a thread id.');
    return id;
  };

  /**
   * A turn a Grove before this one started on a host and was killed in,
   * taken over (rejoin.ts); null when it had not reached Codex (the turn then
   * starts a run of its own).
   */
  const takeOver = async (
    request: TurnRequest,
    onEvent: (e: TurnEvent) => void,
  ): Promise<CodexRejoin | null> => {
    const place = request.remote;
    if (!place || !request.remoteRun?.runId) return null;
    if (runtime && !runtime.dead) await runtime.proc.stop();
    runtime = null;
    const left = await rejoinCodex(options, request, place, LABEL, {
      progress: (text) => onEvent({ type: 'progress', text }),
      notice: (text) => onEvent({ type: 'notice', text }),
      turnId: (id) => {
        if (current) current.turnId ??= id;
      },
    });
    if (!left) return null;
    checks ??= await import('./wire.js');
    wire(left.rt, checks);
    runtime = left.rt;
    threadId = left.thread;
    threadMode = request.permissionMode;
    return left;
  };

  const attempt = async (
    request: TurnRequest,
    onEvent: (e: TurnEvent) => void,
    signal: AbortSignal,
    left: CodexRejoin | null = null,
  ): Promise<TurnResult> => {
    const rt = left ? left.rt : await ensure(request);
    const side = request.kind === 'utility';
    const thread = left
      ? left.thread
      : side
        ? await openSideThread(rt, request)
        : await openThread(rt, request);
    const acc = new TurnAccumulator();
    // Taken over: what the transcript already has is read again to rebuild the turn, not told.
    const told = left ? toldOnce(left.run, onEvent) : onEvent;
    const finished = new Promise<void>((resolve, reject) => {
      current = {
        acc,
        usage: new CodexTurnUsage(),
        request,
        onEvent: told,
        signal,
        turnId: null,
        done: (error) => (error ? reject(error) : resolve()),
      };
    });
    finished.catch(() => {}); // observed below; never an unhandled rejection
    const onAbort = (): void => {
      const turnId = current?.turnId;
      if (turnId)
        void rt.peer.request('turn/interrupt', { threadId: thread, turnId }).catch(() => {});
      setTimeout(() => {
        if (current) {
          rt.proc.kill();
          current.done(new AgentError('codex', 'canceled', 'The turn was stopped.'));
        }
      }, 2000).unref();
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
      // Taken over: the turn is under way there; its lines are read from the first one on.
      if (left) left.run.begin();
      else {
        const params: Partial<CodexClientRequests['turn/start']['params']> = {
          threadId: thread,
          // Attached images are `image` input items after the text, as data URLs: the
          // app-server, started before they were attached, cannot read Grove's image folder.
          input: [
            { type: 'text', text: request.prompt, text_elements: [] },
            ...(await imageDataUrls(request.images ?? [])).map((url) => ({
              type: 'image' as const,
              url,
            })),
          ],
          model: request.model,
          outputSchema: request.outputSchema ? (agentResponseJsonSchema(true) as JsonValue) : null,
        };
        if (request.reasoning && request.reasoning !== 'default') params.effort = request.reasoning;
        if (!side && threadMode !== request.permissionMode) {
          Object.assign(params, codexTurnPolicy(request.permissionMode));
          threadMode = request.permissionMode;
        }
        const started = await Promise.race([
          rt.peer.request('turn/start', params),
          finished.then(() => null),
        ]);
        const startedId = asString(asRecord(asRecord(started)['turn'])['id']);
        if (current && startedId) current.turnId ??= startedId;
      }
      await Promise.race([
        finished,
        rt.proc.exited.then(() =>
          Promise.reject(
            new AgentError(
              'codex',
              'crash',
              'Codex exited during the turn.',
              rt.proc.stderrTail().slice(-800),
            ),
          ),
        ),
      ]);
    } catch (error) {
      if (signal.aborted) throw new AgentError('codex', 'canceled', 'The turn was stopped.');
      if (timedOut)
        throw new AgentError(
          'codex',
          'timeout',
          `Codex did not finish within ${Math.round(options.turnTimeoutMs / 60000)} minutes and was stopped.`,
        );
      throw error;
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      if (current) Object.assign(acc, current.usage.forTurn(current.turnId));
      current = null;
    }
    return turnResult(acc, thread);
  };

  return {
    provider: 'codex',
    sideTurns: true,
    async runTurn(request, onEvent, signal) {
      if (signal.aborted) throw new AgentError('codex', 'canceled', 'The turn was stopped.');
      if (request.remote) {
        // On a host the app-server lives for one turn (its thread resumed by the next), so
        // nothing of it is left there between turns; a crash there ends the turn in words.
        // A turn a killed Grove left there is taken over.
        try {
          return await attempt(request, onEvent, signal, await takeOver(request, onEvent));
        } finally {
          const stopping = runtime?.remote ? runtime : null;
          if (stopping) {
            runtime = null;
            threadId = null;
            await stopping.proc.stop();
          }
        }
      }
      try {
        return await attempt(request, onEvent, signal);
      } catch (error) {
        // The process died mid-turn: restart once and resume the thread.
        if (
          error instanceof AgentError &&
          error.reason === 'crash' &&
          !signal.aborted &&
          runtime?.dead
        ) {
          const resumeId =
            request.kind === 'utility' ? null : (threadId ?? request.providerConversationId);
          runtime = null;
          threadId = null;
          onEvent({ type: 'progress', text: 'Codex stopped unexpectedly; restarting it…' });
          return attempt({ ...request, providerConversationId: resumeId }, onEvent, signal);
        }
        throw error;
      }
    },
    async shutdown() {
      const stopping = runtime;
      runtime = null;
      threadId = null;
      await stopping?.proc.stop();
    },
  };
}
