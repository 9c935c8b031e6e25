import { resolve } from 'node:path';
import type { TurnEvent, TurnRequest } from '../channel.js';
import {
  commandPaths,
  decideApproval,
  deniedLine,
  hardDenial,
  holdRequest,
  type ApprovalAsk,
} from '../approval.js';
import { asString } from '../turn-parts.js';
import { withoutWorktree, worktreePath } from '../tool-lines.js';
import type { ClaudeCanUseTool } from './stream.js';

// Claude Code's own permission requests, answered by Grove over stdio
// (`--input-format stream-json --permission-prompt-tool stdio`): Claude Code
// writes a `control_request` (subtype `can_use_tool`) on stdout for a tool use
// its mode and rules do not allow, and waits for a `control_response` on
// stdin. Grove answers by the same policy as Codex's and Gemini CLI's requests
// (approval.ts): what the mode allows passes, what Grove forbids is denied at
// once, and a command or an edit only the mode denies is held for the person.

const LABEL = 'Claude Code';

/** Claude Code's tools that only read (files, searches, the web, its to-do list). */
const READING = new Set(['Read', 'Glob', 'Grep', 'LS', 'WebSearch', 'WebFetch', 'TodoWrite']);
/** Its tools that write files, with the input field naming the file. */
const WRITING: Readonly<Record<string, string>> = {
  Edit: 'file_path',
  MultiEdit: 'file_path',
  Write: 'file_path',
  NotebookEdit: 'notebook_path',
};

/** A tool use Claude Code asks about, as an ask of approval.ts (paths absolute, from the worktree `cwd`). */
export function claudeToolAsk(
  name: string,
  input: Readonly<Record<string, unknown>>,
  cwd: string,
): ApprovalAsk {
  if (name === 'Bash') {
    const command = asString(input['command']) ?? '';
    return {
      kind: 'command',
      command,
      cwd: null,
      paths: commandPaths(command),
      // Claude Code's own sandbox is not Grove's: running outside it is never granted.
      escalation: input['dangerouslyDisableSandbox'] === true,
    };
  }
  const field = WRITING[name];
  if (field !== undefined) {
    const path = asString(input[field]);
    return { kind: 'edit', paths: path ? [resolve(cwd, path)] : [], grantRoot: null };
  }
  if (READING.has(name)) return { kind: 'read', what: `use ${name}` };
  return { kind: 'permissions', what: `the ${name} tool` };
}

/** What a tool use tried, in words: "use Write on src/a.ts", "use Bash: `rm -rf x`" (paths relative to the worktree `cwd`). */
export function deniedToolText(
  name: string,
  input: Readonly<Record<string, unknown>> | undefined,
  cwd: string | null = null,
): string {
  const path =
    asString(input?.['file_path']) ??
    asString(input?.['path']) ??
    asString(input?.['notebook_path']);
  const command = asString(input?.['command']);
  if (command)
    return `use ${name}: \`${withoutWorktree(command, cwd).replace(/\s+/g, ' ').slice(0, 120)}\``;
  return path ? `use ${name} on ${worktreePath(path, cwd)}` : `use ${name}`;
}

/** Claude Code's answer to a `can_use_tool` request: run it as asked, or not, with words for the model. */
export type ToolAnswer =
  | { readonly behavior: 'allow'; readonly updatedInput: Readonly<Record<string, unknown>> }
  | { readonly behavior: 'deny'; readonly message: string };

/**
 * Grove's answer to one of Claude Code's permission requests in `request`'s
 * turn. A denial it decides itself is told in the transcript (`onEvent`);
 * a held one's lines are the approval desk's. Aborting `signal` (the turn
 * ended) denies a held request.
 */
export async function answerToolRequest(
  request: Pick<TurnRequest, 'permissionMode' | 'cwd' | 'hold'>,
  ask: ClaudeCanUseTool['request'],
  onEvent: (event: TurnEvent) => void,
  signal: AbortSignal,
): Promise<ToolAnswer> {
  const input = ask.input;
  const what = claudeToolAsk(ask.tool_name, input, request.cwd);
  const decision = decideApproval(request.permissionMode, request.cwd, what);
  if (decision.allow) return { behavior: 'allow', updatedInput: input };
  const hold = request.hold;
  const held = hold ? holdRequest(LABEL, request.cwd, what, decision.reason) : null;
  if (hold && held) {
    const answer = await hold(held, signal).catch(() => 'denied' as const);
    if (answer === 'once' || answer === 'session')
      return { behavior: 'allow', updatedInput: input };
    return {
      behavior: 'deny',
      message:
        answer === 'timedOut'
          ? 'Grove denied this request: nobody answered it in time. Do not retry it; say what you could not do.'
          : 'The person denied this request in Grove. Do not retry it; say what you could not do.',
    };
  }
  const reason = hardDenial(request.cwd, what) ?? decision.reason;
  onEvent({
    type: 'denied',
    text: deniedLine(LABEL, deniedToolText(ask.tool_name, input, request.cwd), reason),
  });
  return { behavior: 'deny', message: `Grove denied this request: ${reason}.` };
}

/** The `control_response` line that answers request `requestId`. */
export function controlResponse(requestId: string, answer: ToolAnswer): string {
  return `${JSON.stringify({
    type: 'control_response',
    response: { subtype: 'success', request_id: requestId, response: answer },
  })}\n`;
}

/** The `control_response` line refusing a control request Grove does not answer. */
export function controlError(requestId: string, error: string): string {
  return `${JSON.stringify({
    type: 'control_response',
    response: { subtype: 'error', request_id: requestId, error },
  })}\n`;
}
