import {
  AgentResponseSchema,
  parseAgentResponse,
  type AgentResponse,
} from '../../domain/protocol.js';
import { sanitizeLine, sanitizeText } from '../../domain/sanitize.js';
import { type AgentChannel, type TurnEvent, type TurnRequest, type TurnResult } from './channel.js';
import { AgentError } from './agent-error.js';
import { buildRepairPrompt } from './prompt.js';

export interface ProtocolTurn {
  readonly response: AgentResponse;
  /** The whole turn: its tokens include the repair round's. */
  readonly result: TurnResult;
  readonly repaired: boolean;
  /** What the repair round took of `result`'s tokens (null: none was needed). */
  readonly repair: RepairTokens | null;
}

export interface RepairTokens {
  readonly inputTokens: number;
  readonly outputTokens: number;
}

function parseResult(
  result: TurnResult,
): { ok: true; value: AgentResponse } | { ok: false; diagnostic: string } {
  if (result.structured && typeof result.structured === 'object') {
    const structured = AgentResponseSchema.safeParse(result.structured);
    if (structured.success) return { ok: true, value: structured.data };
  }
  return parseAgentResponse(result.message);
}

/** The reply with every text made safe for a terminal (the agent's output is untrusted). */
export function sanitizeResponse(response: AgentResponse): AgentResponse {
  return {
    answer: sanitizeText(response.answer),
    questions: response.questions.map((q) => ({
      text: sanitizeText(q.text),
      options: q.options.map(sanitizeLine),
    })),
    ...(response.summary === undefined
      ? {}
      : {
          summary: response.summary && {
            turn: sanitizeText(response.summary.turn),
            session: sanitizeText(response.summary.session),
          },
        }),
  };
}

/**
 * An event's text made safe for a terminal before anyone sees it: progress
 * is one status line; any other text (thinking, notices) keeps its lines.
 */
export function sanitizeEvent(event: TurnEvent): TurnEvent {
  if (!('text' in event) || typeof event.text !== 'string') return event;
  const text = event.type === 'progress' ? sanitizeLine(event.text) : sanitizeText(event.text);
  return text === event.text ? event : { ...event, text };
}

/**
 * Runs a turn and reads its reply. Everything that comes out of it (events,
 * the parsed reply) is sanitized here: every agent turn, whatever the
 * channel, passes through this function. A reply that does not follow the
 * protocol gets one repair round-trip in the same conversation; then the
 * turn fails with a diagnostic (never the raw output).
 */
export async function runProtocolTurn(
  channel: AgentChannel,
  request: TurnRequest,
  onRawEvent: (event: TurnEvent) => void,
  signal: AbortSignal,
): Promise<ProtocolTurn> {
  const onEvent = (event: TurnEvent): void => onRawEvent(sanitizeEvent(event));
  const first = await channel.runTurn(request, onEvent, signal);
  const parsed = parseResult(first);
  if (parsed.ok)
    return {
      response: sanitizeResponse(parsed.value),
      result: first,
      repaired: false,
      repair: null,
    };
  onEvent({
    type: 'progress',
    text: 'The reply was not in the expected format; asking the agent to restate it…',
  });
  const schemaInPrompt = request.outputSchema === null;
  // The repair is a run of its own on a host: not the first one's, which a re-attach would follow.
  const { remoteRun: _firstRun, ...again } = request;
  const second = await channel.runTurn(
    {
      ...again,
      // The images went with the first prompt; the repair asks only for the reply again.
      images: [],
      prompt: buildRepairPrompt(parsed.diagnostic, schemaInPrompt),
      providerConversationId: first.providerConversationId ?? request.providerConversationId,
      kind: request.kind === 'utility' ? 'utility' : 'session_resume',
    },
    onEvent,
    signal,
  );
  const repaired = parseResult(second);
  const result: TurnResult = {
    ...second,
    inputTokens: first.inputTokens + second.inputTokens,
    outputTokens: first.outputTokens + second.outputTokens,
    providerConversationId: second.providerConversationId ?? first.providerConversationId,
  };
  if (repaired.ok)
    return {
      response: sanitizeResponse(repaired.value),
      result,
      repaired: true,
      repair: { inputTokens: second.inputTokens, outputTokens: second.outputTokens },
    };
  throw new UnreadableReply(channel.provider, repaired.diagnostic, {
    inputTokens: result.inputTokens,
    outputTokens: result.outputTokens,
    repair: { inputTokens: second.inputTokens, outputTokens: second.outputTokens },
  });
}

/**
 * A reply that did not follow the protocol even after its repair round. The
 * two requests were made and billed: `spent` says what they took (the
 * repair's part included, and apart), for the session's usage.
 */
export class UnreadableReply extends AgentError {
  constructor(
    provider: AgentChannel['provider'],
    diagnostic: string,
    readonly spent: RepairTokens & { readonly repair: RepairTokens },
  ) {
    super(
      provider,
      'protocol',
      "The agent's reply did not follow the reply format, even after one repair request.",
      diagnostic,
    );
  }
}
