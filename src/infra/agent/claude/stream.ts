import * as z from 'zod/mini';
import { issueText, type WireVerdict } from '../wire-check.js';

// Claude Code's stream-json output (`claude -p --output-format stream-json
// --verbose`, and its permission requests with `--permission-prompt-tool
// stdio`): one JSON object per line. One schema per event Grove reads;
// the events Grove does not read are named, so that an event no schema names
// (a newer Claude Code) is told apart, logged and ignored.

const Text = z.looseObject({ type: z.literal('text'), text: z.string() });
const Thinking = z.looseObject({ type: z.literal('thinking'), thinking: z.string() });
const ToolUse = z.looseObject({
  type: z.literal('tool_use'),
  id: z.string(),
  name: z.string(),
  input: z.record(z.string(), z.unknown()),
});
const ToolResult = z.looseObject({
  type: z.literal('tool_result'),
  tool_use_id: z.string(),
  is_error: z.optional(z.nullable(z.boolean())),
});
const KNOWN_BLOCKS: readonly string[] = ['text', 'thinking', 'tool_use'];
/** Blocks Grove does not read (redacted thinking, server tools, images…); a known type with missing fields is invalid. */
const OtherBlock = z
  .looseObject({ type: z.string() })
  .check(
    z.refine(
      (block) => !KNOWN_BLOCKS.includes(block.type),
      'a text, thinking or tool_use block without its fields',
    ),
  );
export type KnownBlock = z.infer<typeof Text> | z.infer<typeof Thinking> | z.infer<typeof ToolUse>;

/** The block as one Grove reads, or null (the schema made sure a known type has its fields). */
export function knownBlock(block: { readonly type: string }): KnownBlock | null {
  return KNOWN_BLOCKS.includes(block.type) ? (block as KnownBlock) : null;
}

/** `system`/`init`: the session starts (its id is the conversation to resume). */
export const SystemInit = z.looseObject({
  type: z.literal('system'),
  subtype: z.literal('init'),
  session_id: z.string(),
  model: z.string(),
  tools: z.array(z.string()),
  permissionMode: z.string(),
});
/** `system`/`permission_denied`: a tool use the permission mode refused. */
export const PermissionDenied = z.looseObject({
  type: z.literal('system'),
  subtype: z.literal('permission_denied'),
  tool_use_id: z.optional(z.string()),
  tool_name: z.optional(z.string()),
});
/** `assistant`: a model message (text, thinking, tool uses). */
export const AssistantMessage = z.looseObject({
  type: z.literal('assistant'),
  session_id: z.string(),
  message: z.looseObject({ content: z.array(z.union([Text, Thinking, ToolUse, OtherBlock])) }),
});
/** `user`: tool results going back to the model. */
export const UserMessage = z.looseObject({
  type: z.literal('user'),
  session_id: z.string(),
  message: z.looseObject({
    content: z.union([z.string(), z.array(z.union([ToolResult, Text, OtherBlock]))]),
  }),
});
const Usage = z.looseObject({
  input_tokens: z.number(),
  output_tokens: z.number(),
  cache_read_input_tokens: z._default(z.number(), 0),
  cache_creation_input_tokens: z._default(z.number(), 0),
});
/** `result`: the turn's end: the reply or the error, and the usage. */
export const TurnResultEvent = z.looseObject({
  type: z.literal('result'),
  subtype: z.string(),
  is_error: z.boolean(),
  session_id: z.optional(z.string()),
  result: z.optional(z.string()),
  structured_output: z.optional(z.unknown()),
  usage: z.optional(Usage),
  api_error_status: z.optional(z.nullable(z.number())),
  errors: z.optional(z.array(z.string())),
  permission_denials: z.optional(
    z.array(
      z.looseObject({
        tool_name: z.string(),
        tool_use_id: z.string(),
        tool_input: z.optional(z.record(z.string(), z.unknown())),
      }),
    ),
  ),
});

/**
 * `control_request`/`can_use_tool`: a tool use Claude Code asks the host
 * about (`--permission-prompt-tool stdio`); it waits for a `control_response`
 * on stdin. Other control requests are read by the envelope only.
 */
export const ControlRequest = z.looseObject({
  type: z.literal('control_request'),
  request_id: z.string(),
  request: z.looseObject({ subtype: z.string() }),
});
export const CanUseTool = z.looseObject({
  type: z.literal('control_request'),
  request_id: z.string(),
  request: z.looseObject({
    subtype: z.literal('can_use_tool'),
    tool_name: z.string(),
    input: z.record(z.string(), z.unknown()),
    tool_use_id: z.optional(z.string()),
  }),
});
export type ClaudeCanUseTool = z.infer<typeof CanUseTool>;

export type ClaudeEvent =
  | z.infer<typeof ControlRequest>
  | z.infer<typeof SystemInit>
  | z.infer<typeof PermissionDenied>
  | z.infer<typeof AssistantMessage>
  | z.infer<typeof UserMessage>
  | z.infer<typeof TurnResultEvent>;
export type ClaudeResult = z.infer<typeof TurnResultEvent>;

const READ: Readonly<Record<string, z.ZodMiniType>> = {
  'system/init': SystemInit,
  'system/permission_denied': PermissionDenied,
  assistant: AssistantMessage,
  user: UserMessage,
  result: TurnResultEvent,
  control_request: ControlRequest,
};

/** Events Claude Code sends that Grove does not read. */
const IGNORED: ReadonlySet<string> = new Set([
  'control_response',
  'control_cancel_request',
  'keep_alive',
  'stream_event',
  'rate_limit_event',
  'tool_progress',
  'tool_use_summary',
  'auth_status',
  'prompt_suggestion',
  'system/status',
  'system/api_retry',
  'system/compact_boundary',
  'system/hook_started',
  'system/hook_progress',
  'system/hook_response',
  'system/local_command_output',
  'system/files_persisted',
  'system/task_started',
  'system/task_progress',
  'system/task_notification',
]);

export interface ReadLine {
  /** The event's name: its type, and for `system` events its subtype ("system/init"). */
  readonly name: string;
  readonly verdict: WireVerdict;
  /** The event, when Grove reads it and it matched its schema. */
  readonly event: ClaudeEvent | null;
  readonly issue?: string;
}

/** Reads one stdout line; null when it is not a JSON object (Claude Code prints nothing else there). */
export function readClaudeLine(line: string): ReadLine | null {
  const trimmed = line.trim();
  if (!trimmed.startsWith('{')) return null;
  let value: unknown;
  try {
    value = JSON.parse(trimmed);
  } catch {
    return {
      name: 'a line that is not JSON',
      verdict: 'invalid',
      event: null,
      issue: trimmed.slice(0, 120),
    };
  }
  const record =
    value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : {};
  const type = typeof record['type'] === 'string' ? record['type'] : '(no type)';
  const name =
    type === 'system' && typeof record['subtype'] === 'string'
      ? `system/${record['subtype']}`
      : type;
  const schema = READ[name];
  if (!schema) return { name, verdict: IGNORED.has(name) ? 'ignored' : 'unknown', event: null };
  const parsed = schema.safeParse(value);
  return parsed.success
    ? { name, verdict: 'valid', event: parsed.data as ClaudeEvent }
    : { name, verdict: 'invalid', event: null, issue: issueText(parsed.error.issues) };
}
