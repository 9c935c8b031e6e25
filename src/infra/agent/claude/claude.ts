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
import { launchAgent } from '../confine/launcher.js';
import { stderrSummary } from '../confine/process.js';
import { permissionModeLabel } from '../../../domain/permission-mode.js';
import { deniedLine, networkHold } from '../approval.js';
import { knownBlock, readClaudeLine, type ClaudeResult } from './stream.js';
import { quietWireWatch } from '../wire-check.js';
import { apiAgentError } from '../api-error.js';
import { claudeToolLine, withoutWorktree, worktreePath } from '../tool-lines.js';

// Claude Code: one `claude -p` process per turn, stream-json on stdout, the
// prompt on stdin, follow-ups resumed by the session id taken from the stream.

/** Allowed everywhere in Auto Edit; the edit tools are allowed only on the worktree (a rule per tool). */
const AUTO_TOOLS = ['Bash', 'Read', 'Glob', 'Grep', 'WebSearch', 'WebFetch', 'TodoWrite'];
const EDIT_TOOLS = ['Edit', 'MultiEdit', 'Write', 'NotebookEdit'];
const READ_TOOLS = ['Read', 'Glob', 'Grep', 'WebSearch', 'WebFetch'];

type Result = ClaudeResult;

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

export function claudeArgs(request: TurnRequest): string[] {
  const args = ['-p', '--output-format', 'stream-json', '--verbose', '--model', request.model];
  if (request.reasoning && request.reasoning !== 'default')
    args.push('--effort', request.reasoning);
  if (request.providerConversationId) args.push('--resume', request.providerConversationId);
  if (request.outputSchema) args.push('--json-schema', JSON.stringify(request.outputSchema));
  args.push(...permissionArgs(request));
  return args;
}

/**
 * The permission flags of a mode. Without a permission-prompt tool, `-p`
 * denies every tool use that is neither allowed nor accepted by the mode.
 * Shell effects outside the worktree are stopped by the OS sandbox.
 */
export function permissionArgs(
  request: Pick<TurnRequest, 'permissionMode' | 'cwd' | 'mainCheckout'>,
): string[] {
  const reads = READ_TOOLS.join(',');
  switch (request.permissionMode) {
    case 'read_only':
      // Only the read tools exist; anything else is denied without asking.
      return ['--permission-mode', 'dontAsk', '--tools', reads, '--allowedTools', reads];
    case 'plan':
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

/** What a denied tool use tried, in words: "use Write on src/a.ts", "use Bash: `rm -rf x`" (paths relative to the worktree `cwd`). */
export function deniedToolText(
  name: string,
  input: Record<string, unknown> | undefined,
  cwd: string | null = null,
): string {
  const path =
    typeof input?.['file_path'] === 'string'
      ? input['file_path']
      : typeof input?.['path'] === 'string'
        ? input['path']
        : typeof input?.['notebook_path'] === 'string'
          ? input['notebook_path']
          : null;
  const command =
    typeof input?.['command'] === 'string'
      ? withoutWorktree(input['command'], cwd).replace(/\s+/g, ' ').slice(0, 120)
      : null;
  if (command) return `use ${name}: \`${command}\``;
  return path ? `use ${name} on ${worktreePath(path, cwd)}` : `use ${name}`;
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

/** Starts the turn's `claude -p`: here (confined by the launcher) or, for a session on a host, there. */
async function startClaude(
  options: ChannelOptions,
  request: TurnRequest,
  binary: string,
  onEvent: (event: TurnEvent) => void,
  signal: AbortSignal,
): Promise<TurnProcess> {
  if (request.remote) {
    if (!options.remote)
      throw new AgentError('claude', 'crash', 'This Grove cannot start agents on hosts.');
    if (request.images && request.images.length > 0)
      throw new AgentError(
        'claude',
        'crash',
        `Images are not sent to hosts yet: remove them from the prompt to ${request.remote.host.name}.`,
      );
    return options.remote.start(request.remote, {
      command: binary,
      args: claudeArgs(request),
      input: promptInput(request),
      onReconnect: (text) => onEvent({ type: 'progress', text }),
    });
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
      args: claudeArgs(request),
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
  proc.child.stdin.end(promptInput(request));
  return {
    stdout: proc.child.stdout,
    exited: proc.exited,
    stderrTail: () => proc.stderrTail(),
    kill: () => proc.kill(),
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
      const proc = await startClaude(options, request, binary, onEvent, signal);
      let sessionId: string | null = request.providerConversationId;
      let result: Result | null = null;
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
      createInterface({ input: proc.stdout, crlfDelay: Infinity }).on('line', (line) => {
        // Each event is checked against its schema (stream.ts); unknown and invalid ones are logged and skipped.
        const read = readClaudeLine(line);
        if (!read) return;
        watch.record('claude', read.name, read.verdict, read.issue);
        if (read.name === 'result' && read.verdict === 'invalid')
          unreadable.result = read.issue ?? '';
        const event = read.event;
        if (!event) return;
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
        proc.kill();
      }, options.turnTimeoutMs);
      timer.unref();
      const onAbort = (): void => proc.kill();
      signal.addEventListener('abort', onAbort, { once: true });
      const exit = await proc.exited;
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      if (signal.aborted) throw new AgentError('claude', 'canceled', 'The turn was stopped.');
      if (timedOut)
        throw new AgentError(
          'claude',
          'timeout',
          `Claude Code did not finish within ${Math.round(options.turnTimeoutMs / 60000)} minutes and was stopped.`,
        );
      const final = result as Result | null;
      if (!final && unreadable.result !== null) {
        throw new AgentError(
          'claude',
          'protocol',
          'Claude Code ended the turn with a result this version of Grove does not understand.',
          `result: ${unreadable.result}`,
        );
      }
      if (!final) {
        throw new AgentError(
          'claude',
          'crash',
          `Claude Code exited (${exit.signal ?? `code ${exit.code ?? '?'}`}) without a result.`,
          stderrSummary(proc.stderrTail()),
        );
      }
      if (final.is_error) throw classify(final);
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
