import * as z from 'zod/mini';
import { AgentError, type AgentChannel, type ChannelOptions, type TurnEvent, type TurnRequest, type TurnResult } from './channel.js';
import { SpawnError, readLines, spawnAgent, stderrSummary } from './process.js';

// Claude Code: one `claude -p` process per turn, stream-json on stdout, the
// prompt on stdin, follow-ups resumed by the session id taken from the stream.

const WRITE_TOOLS = ['Bash', 'Edit', 'MultiEdit', 'Write', 'NotebookEdit', 'Read', 'Glob', 'Grep', 'WebSearch', 'WebFetch', 'TodoWrite'];
const READ_TOOLS = ['Read', 'Glob', 'Grep', 'WebSearch', 'WebFetch'];

const ContentBlock = z.looseObject({ type: z.string(), text: z.optional(z.string()), thinking: z.optional(z.string()), name: z.optional(z.string()), input: z.optional(z.record(z.string(), z.unknown())) });
const StreamLine = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('system'), subtype: z.optional(z.string()), session_id: z.optional(z.string()) }),
  z.looseObject({ type: z.literal('assistant'), message: z.looseObject({ content: z._default(z.array(ContentBlock), []) }), session_id: z.optional(z.string()) }),
  z.looseObject({ type: z.literal('user') }),
  z.looseObject({ type: z.literal('stream_event') }),
  z.looseObject({
    type: z.literal('result'),
    subtype: z.optional(z.string()),
    is_error: z._default(z.boolean(), false),
    result: z.optional(z.string()),
    structured_output: z.optional(z.unknown()),
    session_id: z.optional(z.string()),
    usage: z.optional(z.looseObject({ input_tokens: z._default(z.number(), 0), output_tokens: z._default(z.number(), 0), cache_read_input_tokens: z._default(z.number(), 0), cache_creation_input_tokens: z._default(z.number(), 0) })),
    api_error_status: z.optional(z.nullable(z.number())),
    errors: z.optional(z.array(z.string())),
  }),
]);

type Result = Extract<z.infer<typeof StreamLine>, { type: 'result' }>;

/** A progress line for a tool call: "Running a command", "Editing src/app.ts". */
export function toolProgress(name: string, input: Record<string, unknown> | undefined): string {
  const path = typeof input?.['file_path'] === 'string' ? input['file_path'] : typeof input?.['path'] === 'string' ? input['path'] : null;
  const short = path ? path.split('/').slice(-2).join('/') : null;
  switch (name) {
    case 'Bash':
      return typeof input?.['description'] === 'string' ? `Running: ${input['description']}` : 'Running a command';
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
    default:
      return `Using ${name}`;
  }
}

export function claudeArgs(request: TurnRequest): string[] {
  const args = ['-p', '--output-format', 'stream-json', '--verbose', '--model', request.model];
  if (request.reasoning && request.reasoning !== 'default') args.push('--effort', request.reasoning);
  if (request.providerConversationId) args.push('--resume', request.providerConversationId);
  if (request.outputSchema) args.push('--json-schema', JSON.stringify(request.outputSchema));
  if (request.permissionMode === 'read_only') {
    args.push('--permission-mode', 'plan', '--tools', READ_TOOLS.join(','), '--allowedTools', READ_TOOLS.join(','));
  } else {
    // Edits are accepted, but never in the project's main checkout.
    args.push('--permission-mode', 'acceptEdits', '--allowedTools', WRITE_TOOLS.join(','));
    if (request.mainCheckout) {
      const main = `/${request.mainCheckout.replace(/\/+$/, '')}/**`;
      args.push('--settings', JSON.stringify({ permissions: { deny: [`Edit(${main})`, `Write(${main})`, `MultiEdit(${main})`] } }));
    }
  }
  return args;
}

function classify(result: Result): AgentError {
  const text = result.result ?? result.errors?.join('; ') ?? 'unknown error';
  const status = result.api_error_status ?? null;
  if (/not logged in|login|invalid api key|authentication|x-api-key/i.test(text) || status === 401 || status === 403) {
    return new AgentError('claude', 'auth', `Claude Code is not signed in or its key was rejected: ${text.slice(0, 300)}`);
  }
  return new AgentError('claude', 'api', `Claude Code reported an error: ${text.slice(0, 300)}`, status ? `HTTP status ${status}` : '');
}

export function createClaudeChannel(options: ChannelOptions, binary = 'claude'): AgentChannel {
  return {
    provider: 'claude',
    async runTurn(request: TurnRequest, onEvent: (event: TurnEvent) => void, signal: AbortSignal): Promise<TurnResult> {
      if (signal.aborted) throw new AgentError('claude', 'canceled', 'The turn was stopped.');
      let proc;
      try {
        proc = await spawnAgent(binary, claudeArgs(request), { cwd: request.cwd, env: options.env });
      } catch (error) {
        if (error instanceof SpawnError && error.code === 'ENOENT') {
          throw new AgentError('claude', 'missing_cli', 'Claude Code (`claude`) is not installed or not on PATH. Install it with `npm install -g @anthropic-ai/claude-code`.');
        }
        throw new AgentError('claude', 'crash', `Claude Code could not start: ${error instanceof Error ? error.message : String(error)}`);
      }
      onEvent({ type: 'pid', pid: proc.pid });
      proc.child.stdin.end(request.prompt);
      let sessionId: string | null = request.providerConversationId;
      let result: Result | null = null;
      let lastText = '';
      readLines(proc.child, (line) => {
        if (!line.trim().startsWith('{')) return;
        let parsed;
        try {
          parsed = StreamLine.safeParse(JSON.parse(line));
        } catch {
          return;
        }
        if (!parsed.success) return;
        const event = parsed.data;
        if ('session_id' in event && typeof event.session_id === 'string') sessionId = event.session_id;
        if (event.type === 'assistant') {
          for (const block of event.message.content) {
            if (block.type === 'thinking') onEvent({ type: 'thinking', text: block.thinking ?? '' });
            else if (block.type === 'tool_use' && block.name) onEvent({ type: 'progress', text: toolProgress(block.name, block.input) });
            else if (block.type === 'text' && block.text) {
              lastText = block.text;
              onEvent({ type: 'progress', text: 'Writing the answer' });
            }
          }
        } else if (event.type === 'result') {
          result = event;
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
      if (timedOut) throw new AgentError('claude', 'timeout', `Claude Code did not finish within ${Math.round(options.turnTimeoutMs / 60000)} minutes and was stopped.`);
      const final = result as Result | null;
      if (!final) {
        throw new AgentError('claude', 'crash', `Claude Code exited (${exit.signal ?? `code ${exit.code ?? '?'}`}) without a result.`, stderrSummary(proc.stderrTail()));
      }
      if (final.is_error) throw classify(final);
      const usage = final.usage;
      return {
        message: final.structured_output !== undefined && final.structured_output !== null ? JSON.stringify(final.structured_output) : (final.result ?? lastText),
        structured: final.structured_output ?? null,
        inputTokens: (usage?.input_tokens ?? 0) + (usage?.cache_read_input_tokens ?? 0) + (usage?.cache_creation_input_tokens ?? 0),
        outputTokens: usage?.output_tokens ?? 0,
        providerConversationId: final.session_id ?? sessionId,
      };
    },
    async shutdown() {
      // One process per turn: nothing outlives a turn.
    },
  };
}
