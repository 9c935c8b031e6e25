import { createInterface } from 'node:readline';
import {
  type AgentChannel,
  type ChannelOptions,
  type TurnProcess,
  type TurnEvent,
  type TurnRequest,
  type TurnResult,
  sessionOf,
} from '../channel.js';
import { AgentError } from '../agent-error.js';
import { defaultLauncher, launchAgent } from '../confine/launcher.js';
import { stderrSummary } from '../confine/process.js';
import { permissionModeLabel } from '../../../domain/permission-mode.js';
import { deniedLine, networkHold } from '../approval.js';
import { CanUseTool, knownBlock, readClaudeLine, type ClaudeResult } from './stream.js';
import {
  answerToolRequest,
  controlError,
  controlResponse,
  deniedToolText,
  type ToolAnswer,
} from './permission-prompt.js';
import { quietWireWatch } from '../wire-check.js';
import { apiAgentError } from '../api-error.js';
import { claudeToolLine, worktreePath } from '../tool-lines.js';
import { claudeImageBlocks } from '../prompt-images.js';

// Claude Code: one `claude -p` process per turn, stream-json on stdout, the
// prompt on stdin, follow-ups resumed by the session id taken from the stream.
// A local turn keeps stdin open for Claude Code's permission requests
// (permission-prompt.ts) and ends it after the result.

/** Allowed everywhere in Auto Edit; the edit tools are allowed only on the worktree (a rule per tool). */
const AUTO_TOOLS = ['Bash', 'Read', 'Glob', 'Grep', 'WebSearch', 'WebFetch', 'TodoWrite'];
const EDIT_TOOLS = ['Edit', 'MultiEdit', 'Write', 'NotebookEdit'];
const READ_TOOLS = ['Read', 'Glob', 'Grep', 'WebSearch', 'WebFetch'];

type Result = ClaudeResult;

/**
 * How long Claude Code may take to exit after its result. It sometimes never
 * does (anthropics/claude-code#25629, #39700: the result printed, the process
 * left running; a Node process can also hang in its own exit): the turn is
 * over by then, so Grove ends the process and keeps the result.
 */
export const RESULT_EXIT_GRACE_MS = 10_000;

/** A progress line for a tool call: "Running a command", "Editing src/app.ts" (relative to the worktree `cwd`). */
export function toolProgress(
  name: string,
  input: Record<string, unknown> | undefined,
  cwd: string | null = null,
): string {
  const path =
    typeof input?.['file_path'] === 'string'
      ? input['file_path']
      : typeof input?.['path'] === 'string'
        ? input['path']
        : null;
  const short = path ? worktreePath(path, cwd) : null;
  switch (name) {
    case 'Bash':
      return typeof input?.['description'] === 'string'
        ? `Running: ${input['description']}`
        : 'Running a command';
    case 'Edit':
    case 'MultiEdit':
    case 'Write':
    case 'NotebookEdit':
      return short ? `Editing ${short}` : 'Editing a file';
    case 'Read':
      return short ? `Reading ${short}` : 'Reading a file';
    case 'Glob':
    case 'Grep':
      return 'Searching the code';
    case 'WebSearch':
    case 'WebFetch':
      return 'Searching the web';
    case 'TodoWrite':
      return 'Planning';
    case 'StructuredOutput':
      // Claude Code's own tool for the --json-schema reply: the answer being written, not work.
      return 'Writing the answer';
    default: {
      // An MCP tool (`mcp__server__tool`) by its server and tool.
      const mcp = /^mcp__(.+?)__(.+)$/.exec(name);
      return mcp ? `Using ${mcp[1]}/${mcp[2]}` : `Using ${name}`;
    }
  }
}

/**
 * The turn's command line. `prompted`: Claude Code asks Grove about the tool
 * uses its mode does not allow (`--permission-prompt-tool stdio`, the prompt
 * a stream-json line on stdin) instead of denying them itself.
 */
export function claudeArgs(request: TurnRequest, prompted = false): string[] {
  const args = ['-p', '--output-format', 'stream-json', '--verbose', '--model', request.model];
  // Its stdin is stream-json lines: the prompt (promptLine, remotePromptLine), then permission answers.
  args.push('--input-format', 'stream-json');
  if (prompted) args.push('--permission-prompt-tool', 'stdio');
  if (request.reasoning && request.reasoning !== 'default')
    args.push('--effort', request.reasoning);
  if (request.providerConversationId) args.push('--resume', request.providerConversationId);
  if (request.outputSchema) args.push('--json-schema', JSON.stringify(request.outputSchema));
  args.push(...permissionArgs(request, prompted && request.hold !== undefined));
  return args;
}

/**
 * The permission flags of a mode. What is neither allowed nor accepted by
 * the mode is denied by Claude Code itself, or, with the stdio permission
 * prompt, asked of Grove (permission-prompt.ts). `holds`: the person may
 * grant what the mode denies, so Read Only offers the shell and edit tools
 * and asks about every use of them. Shell effects outside the worktree are
 * stopped by the OS sandbox whatever is answered.
 */
export function permissionArgs(
  request: Pick<TurnRequest, 'permissionMode' | 'cwd' | 'mainCheckout'>,
  holds = false,
): string[] {
  const reads = READ_TOOLS.join(',');
  switch (request.permissionMode) {
    case 'read_only':
      if (holds)
        // Claude Code runs a shell command it judges read-only without asking: an ask rule makes it ask for each.
        return [
          '--permission-mode',
          'default',
          '--tools',
          [...READ_TOOLS, 'Bash', ...EDIT_TOOLS].join(','),
          '--allowedTools',
          reads,
          '--settings',
          JSON.stringify({ permissions: { ask: ['Bash', ...EDIT_TOOLS] } }),
        ];
      // Only the read tools exist; anything else is denied without asking.
      return ['--permission-mode', 'dontAsk', '--tools', reads, '--allowedTools', reads];
    case 'plan':
      // Claude Code's plan mode refuses what it would ask: Plan holds nothing.
      return ['--permission-mode', 'plan', '--tools', reads, '--allowedTools', reads];
    case 'auto_edit': {
      // Edits are accepted in the worktree (the working directory, the one added dir) and denied
      // elsewhere, the main checkout explicitly. `//` starts an absolute path in a rule.
      const rule = (dir: string): string => `/${dir.replace(/\/+$/, '')}/**`;
      const allowed = [...AUTO_TOOLS, ...EDIT_TOOLS.map((tool) => `${tool}(${rule(request.cwd)})`)];
      const args = [
        '--permission-mode',
        'acceptEdits',
        '--add-dir',
        request.cwd,
        '--allowedTools',
        allowed.join(','),
      ];
      if (request.mainCheckout) {
        args.push(
          '--settings',
          JSON.stringify({
            permissions: {
              deny: EDIT_TOOLS.map((tool) => `${tool}(${rule(request.mainCheckout)})`),
            },
          }),
        );
      }
      return args;
    }
    default:
      return ['--permission-mode', 'dontAsk', '--tools', reads, '--allowedTools', reads];
  }
}

function classify(result: Result): AgentError {
  const text = result.result ?? result.errors?.join('; ') ?? 'unknown error';
  const status = result.api_error_status ?? null;
  const auth =
    /not logged in|login|invalid api key|authentication|x-api-key/i.test(text) ||
    status === 401 ||
    status === 403;
  // The API's message in words; its raw JSON body goes to the log only.
  return apiAgentError('claude', 'Claude Code', text, { status, reason: auth ? 'auth' : 'api' });
}

/** The prompt as Claude Code reads it on stdin: attached images as `@path` mentions, which it reads in as images. */
function promptInput(request: TurnRequest): string {
  return request.images && request.images.length > 0
    ? `${request.prompt}\n\nAttached images: ${request.images.map((path) => `@${path}`).join(' ')}`
    : request.prompt;
}

/** The prompt as a stream-json `user` line (`--input-format stream-json`). */
export function promptLine(request: TurnRequest): string {
  return userLine([{ type: 'text', text: promptInput(request) }]);
}

/**
 * The prompt of a turn on a host as a stream-json `user` line: the text and
 * each attached image as an `image` block with its bytes (as the Claude Agent
 * SDK sends them), since the host's Claude Code cannot read a file here and
 * no file of the person's is put on the host for it. Rejects in words when an
 * image is gone, not an image, or larger than 20 MB (prompt-images.ts).
 */
export async function remotePromptLine(request: TurnRequest): Promise<string> {
  const images = await claudeImageBlocks(request.images ?? []).catch((error: unknown) => {
    const why = error instanceof Error ? error.message : String(error);
    throw new AgentError('claude', 'crash', `Nothing was sent to the host: ${why}.`);
  });
  return userLine([{ type: 'text', text: request.prompt }, ...images]);
}

function userLine(content: readonly object[]): string {
  return `${JSON.stringify({ type: 'user', message: { role: 'user', content } })}\n`;
}

/** A started turn: its process, and its stdin when Claude Code asks Grove about tool uses over it. */
interface ClaudeProcess {
  readonly proc: TurnProcess;
  /** Writes a line to Claude Code's stdin (null: the prompt was all it reads). */
  readonly send: ((line: string) => void) | null;
  /** Ends its stdin, so it exits after its result. */
  readonly close: () => void;
}

/** Starts the turn's `claude -p`: here (confined by the launcher) or, for a session on a host, there. */
async function startClaude(
  options: ChannelOptions,
  request: TurnRequest,
  binary: string,
  onEvent: (event: TurnEvent) => void,
  signal: AbortSignal,
): Promise<ClaudeProcess> {
  if (request.remote) {
    if (!options.remote)
      throw new AgentError('claude', 'crash', 'This Grove cannot start agents on hosts.');
    // A re-attach sends nothing (the run has its input already), so its images are not read again.
    const input = request.remoteRun?.runId ? '' : await remotePromptLine(request);
    // On a host, Claude Code denies what its mode does not allow itself (no permission prompt).
    const args = claudeArgs(request);
    const launcher = options.launcher ?? defaultLauncher();
    // A held network request ends with the run (its connection is gone): denied, not left in the inbox.
    const over = new AbortController();
    const held = AbortSignal.any([signal, over.signal]);
    const proc = await options.remote.start(request.remote, {
      command: binary,
      args,
      input,
      onReconnect: (text) => onEvent({ type: 'progress', text }),
      onNotice: (text) => onEvent({ type: 'notice', text }),
      ...(request.remoteRun ? { cursor: request.remoteRun } : {}),
      // Its network goes through the proxy here, with the allow list and the inbox's network approvals.
      ...(launcher.hostNetwork
        ? {
            network: (hostEnv: NodeJS.ProcessEnv) =>
              launcher.hostNetwork?.(
                {
                  provider: 'claude',
                  args,
                  onNetworkDenied: (line) => onEvent({ type: 'notice', text: line }),
                  ...(request.hold
                    ? { holdNetwork: networkHold('Claude Code', request.hold, held) }
                    : {}),
                },
                hostEnv,
              ) ?? Promise.resolve(null),
          }
        : {}),
    });
    void proc.exited.then(() => over.abort());
    return { proc, send: null, close: () => undefined };
  }
  // A held network request ends with the agent process (its connection is gone): denied, not left in the inbox.
  const ended = new AbortController();
  const holding = AbortSignal.any([signal, ended.signal]);
  const proc = await launchAgent(
    options.launcher,
    {
      provider: 'claude',
      ...sessionOf(request),
      command: binary,
      args: claudeArgs(request, true),
      cwd: request.cwd,
      mainCheckout: request.mainCheckout,
      ...(request.images && request.images.length > 0 ? { readable: request.images } : {}),
      env: options.env,
      onNetworkDenied: (line) => onEvent({ type: 'notice', text: line }),
      // A host not on the allow list: held for the person (the turn's approval desk).
      ...(request.hold ? { holdNetwork: networkHold('Claude Code', request.hold, holding) } : {}),
    },
    'Claude Code',
    'Install it with `npm install -g @anthropic-ai/claude-code`.',
  );
  void proc.exited.then(() => ended.abort());
  onEvent({ type: 'pid', pid: proc.pid });
  const stdin = proc.child.stdin;
  // A write after Claude Code exited fails with EPIPE: its exit is what the turn reports.
  stdin.on('error', () => undefined);
  const send = (line: string): void => {
    if (!stdin.writableEnded && !stdin.destroyed) stdin.write(line);
  };
  send(promptLine(request));
  return {
    proc: {
      stdout: proc.child.stdout,
      exited: proc.exited,
      stderrTail: () => proc.stderrTail(),
      kill: () => proc.kill(),
    },
    send,
    close: () => {
      if (!stdin.writableEnded) stdin.end();
    },
  };
}

export function createClaudeChannel(options: ChannelOptions, binary = 'claude'): AgentChannel {
  return {
    provider: 'claude',
    async runTurn(
      request: TurnRequest,
      onEvent: (event: TurnEvent) => void,
      signal: AbortSignal,
    ): Promise<TurnResult> {
      if (signal.aborted) throw new AgentError('claude', 'canceled', 'The turn was stopped.');
      const started = await startClaude(options, request, binary, onEvent, signal);
      const proc = started.proc;
      // Ends a held request's wait when the turn ends (stopped, timed out, Claude Code gone).
      const turnOver = new AbortController();
      const endTurn = (): void => turnOver.abort();
      signal.addEventListener('abort', endTurn, { once: true });
      let sessionId: string | null = request.providerConversationId;
      let result: Result | null = null;
      // Set once the result is in: Claude Code is ended if it has not exited when it fires.
      let lingering: NodeJS.Timeout | undefined;
      let lingered = false;
      let lastText = '';
      // Tool uses Claude Code refused (by mode, allowed tools or deny rules), each told once.
      const deniedIds = new Set<string>();
      const denied = (id: string | null, what: string, why: string): void => {
        if (id !== null && deniedIds.has(id)) return;
        if (id !== null) deniedIds.add(id);
        onEvent({ type: 'denied', text: deniedLine('Claude Code', what, why) });
      };
      const modeWhy =
        request.permissionMode === 'auto_edit'
          ? 'Auto Edit allows edits only inside the worktree'
          : `${permissionModeLabel(request.permissionMode)} mode allows no writes`;
      const toolInputs = new Map<
        string,
        { name: string; input: Record<string, unknown> | undefined }
      >();
      const watch = options.wire ?? quietWireWatch;
      /** Why the turn's result event did not match its schema, if it did not. */
      const unreadable: { result: string | null } = { result: null };
      // Claude Code's permission requests (permission-prompt.ts): each answered on its stdin, in turn or not.
      const answerControl = (event: { request_id: string; request: { subtype: string } }): void => {
        const send = started.send;
        if (!send) return;
        const ask = CanUseTool.safeParse(event);
        if (!ask.success) {
          send(controlError(event.request_id, `Grove does not answer ${event.request.subtype}.`));
          return;
        }
        const id = ask.data.request.tool_use_id ?? null;
        answerToolRequest(request, ask.data.request, onEvent, turnOver.signal)
          .catch((): ToolAnswer => ({ behavior: 'deny', message: 'Grove could not decide this.' }))
          .then(
            (answer) => {
              // A denied use is told once (its [Denied] line), not also as a failed tool.
              if (answer.behavior === 'deny' && id !== null) deniedIds.add(id);
              send(controlResponse(event.request_id, answer));
            },
            () => undefined,
          );
      };
      createInterface({ input: proc.stdout, crlfDelay: Infinity }).on('line', (line) => {
        // Each event is checked against its schema (stream.ts); unknown and invalid ones are logged and skipped.
        const read = readClaudeLine(line);
        if (!read) return;
        watch.record('claude', read.name, read.verdict, read.issue);
        if (read.name === 'result' && read.verdict === 'invalid')
          unreadable.result = read.issue ?? '';
        const event = read.event;
        if (!event) return;
        if (event.type === 'control_request') {
          answerControl(event);
          return;
        }
        if (typeof event.session_id === 'string') sessionId = event.session_id;
        if (event.type === 'assistant') {
          for (const block of event.message.content.map(knownBlock)) {
            if (block?.type === 'thinking') onEvent({ type: 'thinking', text: block.thinking });
            else if (block?.type === 'tool_use') {
              toolInputs.set(block.id, { name: block.name, input: block.input });
              onEvent({
                type: 'progress',
                text: toolProgress(block.name, block.input, request.cwd),
              });
            } else if (block?.type === 'text' && block.text) {
              lastText = block.text;
              onEvent({ type: 'progress', text: 'Writing the answer' });
            }
          }
        } else if (event.type === 'user' && Array.isArray(event.message.content)) {
          // A finished tool call, kept in the transcript (folded to one line).
          for (const block of event.message.content) {
            const id =
              block.type === 'tool_result' && typeof block['tool_use_id'] === 'string'
                ? block['tool_use_id']
                : null;
            // A tool use Claude Code refused is told once, as a [Denied] line, not also as "(failed)".
            if (id === null || deniedIds.has(id)) continue;
            const use = toolInputs.get(id);
            const report = use
              ? claudeToolLine(
                  use.name,
                  use.input,
                  { is_error: block['is_error'] === true, content: block['content'] },
                  request.cwd,
                )
              : null;
            if (report?.type === 'denied') deniedIds.add(id);
            if (report) onEvent(report);
          }
        } else if (event.type === 'system' && event.subtype === 'permission_denied') {
          const id = event.tool_use_id ?? null;
          denied(
            id,
            deniedToolText(
              event.tool_name ?? 'a tool',
              id !== null ? toolInputs.get(id)?.input : undefined,
              request.cwd,
            ),
            modeWhy,
          );
        } else if (event.type === 'result') {
          result = event;
          // The turn is over: with its stdin ended Claude Code exits, or is ended once its grace is over.
          started.close();
          lingering ??= setTimeout(() => {
            lingered = true;
            proc.kill();
          }, RESULT_EXIT_GRACE_MS);
          lingering.unref();
          for (const d of event.permission_denials ?? []) {
            denied(
              d.tool_use_id,
              deniedToolText(
                d.tool_name,
                d.tool_input ?? toolInputs.get(d.tool_use_id)?.input,
                request.cwd,
              ),
              modeWhy,
            );
          }
        }
      });
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        started.close();
        proc.kill();
      }, options.turnTimeoutMs);
      timer.unref();
      // Stopped: its stdin ends too (in stream-json input Claude Code waits on it before it exits).
      const onAbort = (): void => {
        started.close();
        proc.kill();
      };
      signal.addEventListener('abort', onAbort, { once: true });
      const exit = await proc.exited;
      clearTimeout(timer);
      clearTimeout(lingering);
      if (lingered)
        onEvent({
          type: 'notice',
          text: `[Ended] Claude Code gave its answer but had not exited ${RESULT_EXIT_GRACE_MS / 1000} s later; Grove ended it and kept the answer.`,
        });
      signal.removeEventListener('abort', onAbort);
      signal.removeEventListener('abort', endTurn);
      endTurn();
      // A failed turn still names its conversation, so a reply can go on with it (a host that restarted mid-turn).
      const known = (error: AgentError): AgentError => {
        error.providerConversationId = sessionId;
        return error;
      };
      if (signal.aborted)
        throw known(new AgentError('claude', 'canceled', 'The turn was stopped.'));
      if (timedOut)
        throw known(
          new AgentError(
            'claude',
            'timeout',
            `Claude Code did not finish within ${Math.round(options.turnTimeoutMs / 60000)} minutes and was stopped.`,
          ),
        );
      const final = result as Result | null;
      if (!final && unreadable.result !== null) {
        throw known(
          new AgentError(
            'claude',
            'protocol',
            'Claude Code ended the turn with a result this version of Grove does not understand.',
            `result: ${unreadable.result}`,
          ),
        );
      }
      if (!final) {
        throw known(
          new AgentError(
            'claude',
            'crash',
            `Claude Code exited (${exit.signal ?? `code ${exit.code ?? '?'}`}) without a result.`,
            stderrSummary(proc.stderrTail()),
          ),
        );
      }
      if (final.is_error) throw known(classify(final));
      const usage = final.usage;
      return {
        message:
          final.structured_output !== undefined && final.structured_output !== null
            ? JSON.stringify(final.structured_output)
            : (final.result ?? lastText),
        structured: final.structured_output ?? null,
        inputTokens:
          (usage?.input_tokens ?? 0) +
          (usage?.cache_read_input_tokens ?? 0) +
          (usage?.cache_creation_input_tokens ?? 0),
        outputTokens: usage?.output_tokens ?? 0,
        providerConversationId: final.session_id ?? sessionId,
      };
    },
    async shutdown() {
      // One process per turn: nothing outlives a turn.
    },
  };
}
