import { agentResponseJsonSchema } from '../../domain/protocol.js';
import { AgentError, type AgentChannel, type ChannelOptions, type TurnEvent, type TurnRequest, type TurnResult } from './channel.js';
import { RpcError } from './json-rpc.js';
import { TurnAccumulator, asNumber, asRecord, asString, isInside, startRuntime, turnResult, type Runtime } from './app-server.js';

// Codex: one `codex app-server` per session, JSON-RPC over stdio (no
// "jsonrpc" field): initialize → thread/start or thread/resume → turn/start
// with the reply schema; approvals answered by policy; restarted once with
// resume if the process dies mid-turn.

const LABEL = 'Codex';
const INSTALL = 'Install it with `npm install -g @openai/codex`.';

function policy(request: TurnRequest): { approvalPolicy: string; sandbox: string } {
  return request.permissionMode === 'read_only'
    ? { approvalPolicy: 'never', sandbox: 'read-only' }
    : // Writes inside the worktree are allowed by the sandbox; anything else asks, and policy declines.
      { approvalPolicy: 'on-request', sandbox: 'workspace-write' };
}

function itemProgress(item: Record<string, unknown>): string | null {
  switch (item['type']) {
    case 'commandExecution': {
      const command = asString(item['command']) ?? '';
      return `Running ${command.replace(/^\/bin\/(ba)?sh -lc /, '').slice(0, 60) || 'a command'}`;
    }
    case 'fileChange': {
      const changes = Array.isArray(item['changes']) ? item['changes'].map(asRecord) : [];
      const path = asString(changes[0]?.['path']);
      return path ? `Editing ${path.split('/').slice(-2).join('/')}` : 'Editing files';
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
  let current: { acc: TurnAccumulator; request: TurnRequest; onEvent: (e: TurnEvent) => void; done: (error: Error | null) => void; turnId: string | null } | null = null;

  const wire = (rt: Runtime): void => {
    const { peer } = rt;
    peer.onNotification('item/started', (params) => {
      const text = itemProgress(asRecord(asRecord(params)['item']));
      if (text && current) current.onEvent({ type: 'progress', text });
    });
    peer.onNotification('item/reasoning/summaryTextDelta', (params) => current?.onEvent({ type: 'thinking', text: asString(asRecord(params)['delta']) ?? '' }));
    peer.onNotification('item/reasoning/textDelta', (params) => current?.onEvent({ type: 'thinking', text: asString(asRecord(params)['delta']) ?? '' }));
    peer.onNotification('item/agentMessage/delta', () => current?.onEvent({ type: 'progress', text: 'Writing the answer' }));
    peer.onNotification('item/completed', (params) => {
      const item = asRecord(asRecord(params)['item']);
      if (item['type'] === 'agentMessage' && current) {
        const text = asString(item['text']);
        if (text) current.acc.message = text;
      }
    });
    peer.onNotification('turn/started', (params) => {
      if (current) current.turnId = asString(asRecord(asRecord(params)['turn'])['id']);
    });
    peer.onNotification('thread/tokenUsage/updated', (params) => {
      if (!current) return;
      const usage = asRecord(asRecord(params)['tokenUsage']);
      const last = asRecord(usage['last']);
      current.acc.inputTokens += asNumber(last['inputTokens']);
      current.acc.outputTokens += asNumber(last['outputTokens']) + asNumber(last['reasoningOutputTokens']);
    });
    peer.onNotification('turn/completed', (params) => {
      if (!current) return;
      const turn = asRecord(asRecord(params)['turn']);
      const status = asString(turn['status']);
      if (status === 'failed') {
        const error = asRecord(turn['error']);
        current.done(new AgentError('codex', 'api', `Codex reported an error: ${asString(error['message']) ?? 'the turn failed'}`));
      } else if (status === 'interrupted') {
        current.done(new AgentError('codex', 'canceled', 'The turn was stopped.'));
      } else {
        current.done(null);
      }
    });
    peer.onNotification('error', (params) => {
      const error = asRecord(asRecord(params)['error']);
      const message = asString(error['message']) ?? asString(asRecord(params)['message']);
      if (message && current && asRecord(params)['willRetry'] !== true) current.onEvent({ type: 'progress', text: `Codex: ${message.slice(0, 80)}` });
    });
    // Approvals, by policy: accept inside the worktree, decline outside or in read-only mode.
    peer.onRequest('item/commandExecution/requestApproval', () => ({ decision: current?.request.permissionMode === 'read_only' ? 'decline' : 'accept' }));
    peer.onRequest('item/fileChange/requestApproval', (params) => {
      const p = asRecord(params);
      const changes = Array.isArray(p['changes']) ? p['changes'].map(asRecord) : [];
      const paths = changes.map((c) => asString(c['path'])).filter((x): x is string => x !== null);
      const grantRoot = asString(p['grantRoot']);
      const inside = current !== null && current.request.permissionMode !== 'read_only' && (grantRoot === null || isInside(rt.cwd, grantRoot)) && paths.every((path) => isInside(rt.cwd, path));
      return { decision: inside ? 'accept' : 'decline' };
    });
    peer.onRequest('execCommandApproval', () => ({ decision: current?.request.permissionMode === 'read_only' ? 'denied' : 'approved' }));
    peer.onRequest('applyPatchApproval', () => ({ decision: current?.request.permissionMode === 'read_only' ? 'denied' : 'approved' }));
    peer.onRequest('item/permissions/requestApproval', () => ({ permissions: {}, scope: 'turn' }));
    peer.onRequest('item/tool/requestUserInput', () => ({ answers: {} }));
    peer.onRequest('mcpServer/elicitation/request', () => ({ action: 'decline' }));
  };

  const ensure = async (request: TurnRequest): Promise<Runtime> => {
    if (runtime && !runtime.dead) return runtime;
    const rt = await startRuntime('codex', LABEL, binary, ['app-server'], request.cwd, options.env, false, INSTALL);
    wire(rt);
    await rt.peer.request('initialize', { clientInfo: { name: 'grove', title: 'Grove', version: '1' }, capabilities: null });
    rt.peer.notify('initialized');
    runtime = rt;
    threadId = null;
    return rt;
  };

  const openThread = async (rt: Runtime, request: TurnRequest): Promise<string> => {
    if (threadId) return threadId;
    const { approvalPolicy, sandbox } = policy(request);
    const resumeId = request.providerConversationId;
    if (resumeId) {
      try {
        const resumed = asRecord(await rt.peer.request('thread/resume', { threadId: resumeId, approvalPolicy, sandbox, model: request.model }));
        threadId = asString(asRecord(resumed['thread'])['id']) ?? resumeId;
        return threadId;
      } catch (error) {
        if (!(error instanceof RpcError)) throw error;
        // The stored thread is gone: start a new one.
      }
    }
    const started = asRecord(await rt.peer.request('thread/start', { cwd: request.cwd, model: request.model, approvalPolicy, sandbox }));
    threadId = asString(asRecord(started['thread'])['id']);
    if (!threadId) throw new AgentError('codex', 'crash', 'Codex did not return a thread id.');
    return threadId;
  };

  const attempt = async (request: TurnRequest, onEvent: (e: TurnEvent) => void, signal: AbortSignal): Promise<TurnResult> => {
    const rt = await ensure(request);
    const thread = await openThread(rt, request);
    const acc = new TurnAccumulator();
    const finished = new Promise<void>((resolve, reject) => {
      current = { acc, request, onEvent, turnId: null, done: (error) => (error ? reject(error) : resolve()) };
    });
    finished.catch(() => {}); // observed below; never an unhandled rejection
    const onAbort = (): void => {
      const turnId = current?.turnId;
      if (turnId) void rt.peer.request('turn/interrupt', { threadId: thread, turnId }).catch(() => {});
      setTimeout(() => {
        if (current) {
          rt.proc.kill();
          current.done(new AgentError('codex', 'canceled', 'The turn was stopped.'));
        }
      }, 2000).unref();
    };
    signal.addEventListener('abort', onAbort, { once: true });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      rt.proc.kill();
    }, options.turnTimeoutMs);
    timer.unref();
    try {
      const params: Record<string, unknown> = {
        threadId: thread,
        input: [{ type: 'text', text: request.prompt, text_elements: [] }],
        model: request.model,
        outputSchema: request.outputSchema ? agentResponseJsonSchema(true) : null,
      };
      if (request.reasoning && request.reasoning !== 'default') params['effort'] = request.reasoning;
      await Promise.race([rt.peer.request('turn/start', params), finished.then(() => null)]);
      await Promise.race([finished, rt.proc.exited.then(() => Promise.reject(new AgentError('codex', 'crash', 'Codex exited during the turn.', rt.proc.stderrTail().slice(-800))))]);
    } catch (error) {
      if (signal.aborted) throw new AgentError('codex', 'canceled', 'The turn was stopped.');
      if (timedOut) throw new AgentError('codex', 'timeout', `Codex did not finish within ${Math.round(options.turnTimeoutMs / 60000)} minutes and was stopped.`);
      throw error;
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      current = null;
    }
    return turnResult(acc, thread);
  };

  return {
    provider: 'codex',
    async runTurn(request, onEvent, signal) {
      if (signal.aborted) throw new AgentError('codex', 'canceled', 'The turn was stopped.');
      try {
        return await attempt(request, onEvent, signal);
      } catch (error) {
        // The process died mid-turn: restart once and resume the thread.
        if (error instanceof AgentError && error.reason === 'crash' && !signal.aborted && runtime?.dead) {
          const resumeId = threadId ?? request.providerConversationId;
          runtime = null;
          threadId = null;
          onEvent({ type: 'progress', text: 'Codex stopped unexpectedly; restarting it…' });
          return attempt({ ...request, providerConversationId: resumeId }, onEvent, signal);
        }
        throw error;
      }
    },
    shutdown() {
      runtime?.proc.kill();
      runtime = null;
      threadId = null;
      return Promise.resolve();
    },
  };
}
