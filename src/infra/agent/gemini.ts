import { AgentError, type AgentChannel, type ChannelOptions, type TurnEvent, type TurnRequest, type TurnResult } from './channel.js';
import { TurnAccumulator, asNumber, asRecord, asString, startRuntime, turnResult, type Runtime } from './app-server.js';
import { commandPaths, decideApproval, deniedLine, describeAsk, type ApprovalAsk } from './approval.js';
import type { PermissionMode } from '../../domain/permission-mode.js';

// Gemini CLI over the Agent Client Protocol (`gemini --acp`): one process per
// session kept alive between turns. The provider conversation id is
// "<sessionId>@<minute>": after a restart the session is reloaded with
// session/load — but only when it was created in an earlier wall-clock
// minute, because Gemini CLI 0.61 wipes a session loaded in the same minute
// it was created. In that (rare) case a new session starts instead.

const LABEL = 'Gemini CLI';
const INSTALL = 'Install it with `npm install -g @google/gemini-cli`.';

function minuteNow(): number {
  return Math.floor(Date.now() / 60_000);
}

export function encodeConversation(sessionId: string, minute: number): string {
  return `${sessionId}@${minute}`;
}

export function decodeConversation(id: string | null): { sessionId: string; minute: number } | null {
  if (!id) return null;
  const at = id.lastIndexOf('@');
  if (at === -1) return { sessionId: id, minute: 0 };
  return { sessionId: id.slice(0, at), minute: Number(id.slice(at + 1)) || 0 };
}

function toolPaths(toolCall: Record<string, unknown>): string[] {
  const locations = Array.isArray(toolCall['locations']) ? toolCall['locations'].map(asRecord) : [];
  const content = Array.isArray(toolCall['content']) ? toolCall['content'].map(asRecord) : [];
  return [...new Set([...locations.map((l) => asString(l['path'])), ...content.map((c) => asString(c['path']))].filter((p): p is string => p !== null))];
}

/**
 * An ACP tool call as an ask. A shell command (`execute`) says where it runs
 * only in its content ("[current working directory …]"); the paths it names
 * are read from the command line, a heuristic backed by the OS sandbox.
 */
export function geminiAsk(toolCall: Record<string, unknown>): ApprovalAsk {
  const title = asString(toolCall['title']) ?? 'a tool';
  const paths = toolPaths(toolCall);
  switch (asString(toolCall['kind'])) {
    case 'execute': {
      const content = Array.isArray(toolCall['content']) ? toolCall['content'].map(asRecord) : [];
      const text = content.map((c) => asString(asRecord(c['content'])['text']) ?? '').join('\n');
      const cwd = /\[current working directory ([^\]\n]+)\]/.exec(text)?.[1] ?? null;
      return { kind: 'command', command: title, cwd, paths: [...paths, ...commandPaths(title)], escalation: false };
    }
    case 'edit':
    case 'delete':
    case 'move':
      return { kind: 'edit', paths, grantRoot: null };
    case 'read':
    case 'search':
    case 'fetch':
    case 'think':
      return { kind: 'read', what: `use ${title}` };
    default:
      return { kind: 'permissions', what: `permission for ${title}` };
  }
}

/** The ACP session mode for a permission mode: Gemini's own plan mode for Plan, else the asking default. */
export function geminiModeId(mode: PermissionMode): 'plan' | 'default' {
  return mode === 'plan' ? 'plan' : 'default';
}

export function createGeminiChannel(options: ChannelOptions, binary = 'gemini'): AgentChannel {
  let runtime: Runtime | null = null;
  let conversation: string | null = null;
  /** The ACP mode of the live Gemini session (a new or loaded one starts in `default`). */
  let sessionMode: string | null = null;
  let current: { acc: TurnAccumulator; request: TurnRequest; onEvent: (e: TurnEvent) => void } | null = null;

  const wire = (rt: Runtime): void => {
    rt.peer.onNotification('session/update', (params) => {
      if (!current) return;
      const update = asRecord(asRecord(params)['update']);
      switch (update['sessionUpdate']) {
        case 'agent_message_chunk': {
          const text = asString(asRecord(update['content'])['text']);
          if (text) {
            current.acc.message += text;
            current.onEvent({ type: 'progress', text: 'Writing the answer' });
          }
          break;
        }
        case 'agent_thought_chunk':
          current.onEvent({ type: 'thinking', text: asString(asRecord(update['content'])['text']) ?? '' });
          break;
        case 'tool_call':
          // Text before a tool call was narration; the reply is what comes after the last one.
          current.acc.message = '';
          current.onEvent({ type: 'progress', text: (asString(update['title']) ?? 'Using a tool').slice(0, 80) });
          break;
        case 'tool_call_update': {
          const title = asString(update['title']);
          if (title) current.onEvent({ type: 'progress', text: title.slice(0, 80) });
          break;
        }
        default:
          break;
      }
    });
    // Permission requests, fail-closed: what the session's mode does not allow is rejected and told in the transcript.
    rt.peer.onRequest('session/request_permission', (params) => {
      const p = asRecord(params);
      const choices = Array.isArray(p['options']) ? p['options'].map(asRecord) : [];
      const ask = geminiAsk(asRecord(p['toolCall']));
      const decision = current ? decideApproval(current.request.permissionMode, rt.cwd, ask) : ({ allow: false, reason: 'no turn is running' } as const);
      if (!decision.allow) current?.onEvent({ type: 'denied', text: deniedLine(LABEL, describeAsk(ask), decision.reason) });
      const allowed = decision.allow;
      const pick = (kind: string): string | null => asString(choices.find((o) => o['kind'] === kind)?.['optionId']);
      const optionId = allowed ? (pick('allow_once') ?? pick('allow_always')) : (pick('reject_once') ?? pick('reject_always'));
      return optionId ? { outcome: { outcome: 'selected', optionId } } : { outcome: { outcome: 'cancelled' } };
    });
  };

  const ensure = async (request: TurnRequest): Promise<{ rt: Runtime; sessionId: string }> => {
    if (!runtime || runtime.dead) {
      const args = ['--acp', ...(request.model && request.model !== 'auto' ? ['-m', request.model] : [])];
      const rt = await startRuntime('gemini', LABEL, binary, args, request.cwd, { ...options.env, GEMINI_CLI_NO_RELAUNCH: 'true' }, true, INSTALL, options.launcher);
      wire(rt);
      await rt.peer.request('initialize', { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false }, clientInfo: { name: 'grove', version: '1' } });
      runtime = rt;
      conversation = null;
    }
    const rt = runtime;
    const live = decodeConversation(conversation);
    if (live) return { rt, sessionId: live.sessionId };
    const stored = decodeConversation(request.providerConversationId);
    if (stored && stored.minute < minuteNow()) {
      try {
        await rt.peer.request('session/load', { sessionId: stored.sessionId, cwd: request.cwd, mcpServers: [] });
        conversation = encodeConversation(stored.sessionId, stored.minute);
        sessionMode = 'default';
        return { rt, sessionId: stored.sessionId };
      } catch {
        // Could not reload it: start a new session below.
      }
    }
    const created = asRecord(await rt.peer.request('session/new', { cwd: request.cwd, mcpServers: [] }));
    const sessionId = asString(created['sessionId']);
    if (!sessionId) throw new AgentError('gemini', 'crash', 'Gemini CLI did not return a session id.');
    conversation = encodeConversation(sessionId, minuteNow());
    sessionMode = 'default';
    return { rt, sessionId };
  };

  return {
    provider: 'gemini',
    async runTurn(request, onEvent, signal): Promise<TurnResult> {
      if (signal.aborted) throw new AgentError('gemini', 'canceled', 'The turn was stopped.');
      const { rt, sessionId } = await ensure(request);
      const wantMode = geminiModeId(request.permissionMode);
      if (sessionMode !== wantMode) {
        try {
          await rt.peer.request('session/set_mode', { sessionId, modeId: wantMode });
          sessionMode = wantMode;
        } catch {
          // Gemini's own mode is not essential: Grove's answers deny every write outside Auto Edit anyway.
        }
      }
      const acc = new TurnAccumulator();
      current = { acc, request, onEvent };
      const onAbort = (): void => {
        rt.peer.notify('session/cancel', { sessionId });
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
        const result = asRecord(await rt.peer.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: request.prompt }] }));
        const stop = asString(result['stopReason']);
        if (signal.aborted || stop === 'cancelled') throw new AgentError('gemini', 'canceled', 'The turn was stopped.');
        if (stop && stop !== 'end_turn') throw new AgentError('gemini', 'api', `Gemini CLI stopped the turn early (${stop}).`);
        const meta = asRecord(asRecord(result['_meta'])['quota']);
        const count = asRecord(meta['token_count']);
        const usage = asRecord(result['usage']);
        acc.inputTokens = asNumber(count['input_tokens']) || asNumber(usage['inputTokens']);
        acc.outputTokens = asNumber(count['output_tokens']) || asNumber(usage['outputTokens']);
        return turnResult(acc, conversation);
      } catch (error) {
        if (signal.aborted) throw new AgentError('gemini', 'canceled', 'The turn was stopped.');
        if (timedOut) throw new AgentError('gemini', 'timeout', `Gemini CLI did not finish within ${Math.round(options.turnTimeoutMs / 60000)} minutes and was stopped.`);
        if (error instanceof AgentError) throw error;
        const message = error instanceof Error ? error.message : String(error);
        const reason = /auth|api key|401|403|credential/i.test(message) ? 'auth' : 'api';
        throw new AgentError('gemini', reason, `Gemini CLI reported an error: ${message.slice(0, 300)}`, rt.proc.stderrTail().slice(-800));
      } finally {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        current = null;
      }
    },
    shutdown() {
      runtime?.proc.kill();
      runtime = null;
      conversation = null;
      return Promise.resolve();
    },
  };
}
