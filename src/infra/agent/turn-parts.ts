import type { TurnResult } from './channel.js';

// What every channel reads a turn's result from: the loosely typed fields of
// its CLI's messages (asRecord, asString, asNumber) and the accumulator it
// fills as notifications arrive.

/** Collects the pieces of a turn's result as notifications arrive. */
export class TurnAccumulator {
  message = '';
  inputTokens = 0;
  outputTokens = 0;
}

export function turnResult(
  acc: TurnAccumulator,
  conversationId: string | null,
  structured: unknown = null,
): TurnResult {
  return {
    message: acc.message,
    structured,
    inputTokens: acc.inputTokens,
    outputTokens: acc.outputTokens,
    providerConversationId: conversationId,
  };
}

export function asRecord(value: unknown): Record<string, unknown> {
  return value && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

export function asString(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

export function asNumber(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}
