import { agentResponseJsonSchema } from '../../domain/protocol.js';
import { AgentError, type AgentChannel, type ChannelOptions, type TurnEvent, type TurnRequest, type TurnResult } from './channel.js';
import { RpcError } from './json-rpc.js';
import { TurnAccumulator, asNumber, asRecord, asString, startRuntime, turnResult, type Runtime } from './app-server.js';
import { decideApproval, deniedLine, describeAsk, type ApprovalAsk } from './approval.js';
import type { PermissionMode } from '../../domain/permission-mode.js';

// Codex: one `codex app-server` per session, JSON-RPC over stdio (no
// "jsonrpc" field): initialize → thread/start or thread/resume → turn/start
// with the reply schema; approvals answered by policy; restarted once with
// resume if the process dies mid-turn.

const LABEL = 'Codex';
const INSTALL = 'Install it with `npm install -g @openai/codex`.';

/**
 * The thread's approval policy and sandbox for a mode. The policy is always
 * on-request, so whatever the sandbox does not allow comes to Grove as an
 * approval request, is denied by the mode and shows in the transcript.
 */
export function codexPolicy(mode: PermissionMode): { approvalPolicy: 'on-request'; sandbox: 'read-only' | 'workspace-write' } {
  return mode === 'auto_edit' ? { approvalPolicy: 'on-request', sandbox: 'workspace-write' } : { approvalPolicy: 'on-request', sandbox: 'read-only' };
}

/** The same policy as a per-turn override (turn/start), used when the mode changed since the thread opened. */
export function codexTurnPolicy(mode: PermissionMode): { approvalPolicy: 'on-request'; sandboxPolicy: Record<string, unknown> } {
  return mode === 'auto_edit'
    ? { approvalPolicy: 'on-request', sandboxPolicy: { type: 'workspaceWrite', writableRoots: [], networkAccess: false, excludeTmpdirEnvVar: false, excludeSlashTmp: true } }
    : { approvalPolicy: 'on-request', sandboxPolicy: { type: 'readOnly', networkAccess: false } };
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((x): x is string => typeof x === 'string') : [];
}

/** Paths a command's parsed actions name (reads, listings, searches). */
function actionPaths(actions: unknown): string[] {
  const list = Array.isArray(actions) ? actions.map(asRecord) : [];
  return list.map((a) => asString(a['path'])).filter((p): p is string => p !== null && p !== '');
}

/**
 * Codex's approval requests as asks. Under the on-request policy Codex asks
 * about a command only to run it outside its sandbox (an explicit
 * escalation, an unsandboxed retry or more network), so every command ask
 * is an escalation.
 */
export function codexAsk(method: string, params: unknown, changePaths: (itemId: string) => readonly string[]): ApprovalAsk | null {
  const p = asRecord(params);
  switch (method) {
    case 'item/commandExecution/requestApproval': {
      const command = asString(p['command']) ?? (asString(p['kind']) === 'writeStdin' ? 'input to a running command' : 'a command');
      return { kind: 'command', command, cwd: asString(p['cwd']), paths: actionPaths(p['commandActions']), escalation: true };
    }
    case 'execCommandApproval':
      return { kind: 'command', command: stringList(p['command']).join(' ') || 'a command', cwd: asString(p['cwd']), paths: actionPaths(p['parsedCmd']), escalation: true };
    case 'item/fileChange/requestApproval':
      return { kind: 'edit', paths: changePaths(asString(p['itemId']) ?? ''), grantRoot: asString(p['grantRoot']) };
    case 'applyPatchApproval':
      return { kind: 'edit', paths: Object.keys(asRecord(p['fileChanges'])), grantRoot: asString(p['grantRoot']) };
    case 'item/permissions/requestApproval': {
      const wanted = asRecord(p['permissions']);
      const what = [wanted['network'] ? 'network access' : null, wanted['fileSystem'] ? 'more file-system access' : null].filter(Boolean).join(' and ');
      return { kind: 'permissions', what: what || 'more permissions' };
    }
    default:
      return null;
  }
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
  /** The mode the open thread's sandbox was set for (a later turn in another mode overrides it). */
  let threadMode: PermissionMode | null = null;
  let current: { acc: TurnAccumulator; request: TurnRequest; onEvent: (e: TurnEvent) => void; done: (error: Error | null) => void; turnId: string | null } | null = null;

  const wire = (rt: Runtime): void => {
    const { peer } = rt;
    // Paths of each file-change item: its approval request names only the item.
    const changes = new Map<string, string[]>();
    peer.onNotification('item/started', (params) => {
      const item = asRecord(asRecord(params)['item']);
      const id = asString(item['id']);
      if (item['type'] === 'fileChange' && id) {
        const list = Array.isArray(item['changes']) ? item['changes'].map(asRecord) : [];
        changes.set(id, list.map((c) => asString(c['path'])).filter((x): x is string => x !== null));
      }
      const text = itemProgress(item);
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
    // Approvals, fail-closed: what the session's mode does not allow is declined and told in the transcript.
    const decide = (method: string, params: unknown): boolean => {
      const ask = codexAsk(method, params, (itemId) => changes.get(itemId) ?? []);
      if (!ask) return false;
      // No turn of this channel is running: nobody asked for anything.
      const decision = current ? decideApproval(current.request.permissionMode, rt.cwd, ask) : ({ allow: false, reason: 'no turn is running' } as const);
      if (!decision.allow) {
        const why = asString(asRecord(params)['reason']);
        current?.onEvent({ type: 'denied', text: deniedLine(LABEL, describeAsk(ask), `${decision.reason}${why ? ` (Codex's reason: ${why.replace(/\s+/g, ' ').slice(0, 160)})` : ''}`) });
      }
      return decision.allow;
    };
    peer.onRequest('item/commandExecution/requestApproval', (params) => ({ decision: decide('item/commandExecution/requestApproval', params) ? 'accept' : 'decline' }));
    peer.onRequest('item/fileChange/requestApproval', (params) => ({ decision: decide('item/fileChange/requestApproval', params) ? 'accept' : 'decline' }));
    peer.onRequest('execCommandApproval', (params) => ({ decision: decide('execCommandApproval', params) ? 'approved' : 'denied' }));
    peer.onRequest('applyPatchApproval', (params) => ({ decision: decide('applyPatchApproval', params) ? 'approved' : 'denied' }));
    peer.onRequest('item/permissions/requestApproval', (params) => {
      decide('item/permissions/requestApproval', params);
      // Nothing granted: the sandbox stays as the mode set it.
      return { permissions: {}, scope: 'turn' };
    });
    peer.onRequest('item/tool/requestUserInput', () => ({ answers: {} }));
    peer.onRequest('mcpServer/elicitation/request', () => ({ action: 'decline' }));
  };

  const ensure = async (request: TurnRequest): Promise<Runtime> => {
    if (runtime && !runtime.dead) return runtime;
    // Grove's own sandbox keeps /tmp read-only (the agent's TMPDIR is its writable temp folder); Codex's
    // sandbox, nested inside, must not treat /tmp as writable, or every sandboxed command fails to start.
    const rt = await startRuntime('codex', LABEL, binary, ['app-server', '-c', 'sandbox_workspace_write.exclude_slash_tmp=true'], request.cwd, options.env, false, INSTALL, options.launcher);
    wire(rt);
    await rt.peer.request('initialize', { clientInfo: { name: 'grove', title: 'Grove', version: '1' }, capabilities: null });
    rt.peer.notify('initialized');
    runtime = rt;
    threadId = null;
    return rt;
  };

  const openThread = async (rt: Runtime, request: TurnRequest): Promise<string> => {
    if (threadId) return threadId;
    const { approvalPolicy, sandbox } = codexPolicy(request.permissionMode);
    threadMode = request.permissionMode;
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
    // Stopped while the process was starting: the listener came too late.
    if (signal.aborted) onAbort();
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
      if (threadMode !== request.permissionMode) {
        Object.assign(params, codexTurnPolicy(request.permissionMode));
        threadMode = request.permissionMode;
      }
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
