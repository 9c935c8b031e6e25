import { AgentResponseSchema, parseAgentResponse, type AgentResponse } from '../../domain/protocol.js';
import { AgentError, type AgentChannel, type TurnEvent, type TurnRequest, type TurnResult } from './channel.js';
import { buildRepairPrompt } from './prompt.js';

export interface ProtocolTurn {
  readonly response: AgentResponse;
  readonly result: TurnResult;
  readonly repaired: boolean;
}

function parseResult(result: TurnResult): { ok: true; value: AgentResponse } | { ok: false; diagnostic: string } {
  if (result.structured && typeof result.structured === 'object') {
    const structured = AgentResponseSchema.safeParse(result.structured);
    if (structured.success) return { ok: true, value: structured.data };
  }
  return parseAgentResponse(result.message);
}

/**
 * Runs a turn and reads its reply. A reply that does not follow the
 * protocol gets one repair round-trip in the same conversation; then the
 * turn fails with a diagnostic (never the raw output).
 */
export async function runProtocolTurn(channel: AgentChannel, request: TurnRequest, onEvent: (event: TurnEvent) => void, signal: AbortSignal): Promise<ProtocolTurn> {
  const first = await channel.runTurn(request, onEvent, signal);
  const parsed = parseResult(first);
  if (parsed.ok) return { response: parsed.value, result: first, repaired: false };
  onEvent({ type: 'progress', text: 'The reply was not in the expected format; asking the agent to restate it…' });
  const schemaInPrompt = request.outputSchema === null;
  const second = await channel.runTurn(
    {
      ...request,
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
  if (repaired.ok) return { response: repaired.value, result, repaired: true };
  throw new AgentError(channel.provider, 'protocol', "The agent's reply did not follow the reply format, even after one repair request.", repaired.diagnostic);
}
