import { asNumber, asRecord, asString } from '../turn-parts.js';

/** Tokens billed for one turn. */
export interface TurnTokens {
  readonly inputTokens: number;
  readonly outputTokens: number;
}

/**
 * Codex token usage for one turn, from `thread/tokenUsage/updated`
 * notifications. Each names the turn it belongs to; right after
 * `thread/resume` Codex re-sends the previous turn's last usage, which may
 * arrive before or after the new turn starts. Only updates tagged with the
 * current turn's id count, whatever the order they arrive in.
 */
export class CodexTurnUsage {
  private readonly byTurn = new Map<string, { input: number; output: number }>();

  /** Records one `thread/tokenUsage/updated` notification's params. */
  record(params: unknown): void {
    const p = asRecord(params);
    const turnId = asString(p['turnId']);
    if (!turnId) return;
    const last = asRecord(asRecord(p['tokenUsage'])['last']);
    const sum = this.byTurn.get(turnId) ?? { input: 0, output: 0 };
    sum.input += asNumber(last['inputTokens']);
    sum.output += asNumber(last['outputTokens']) + asNumber(last['reasoningOutputTokens']);
    this.byTurn.set(turnId, sum);
  }

  /** The usage of `turnId` (zero when it is unknown or nothing was reported for it). */
  forTurn(turnId: string | null): TurnTokens {
    const sum = turnId ? this.byTurn.get(turnId) : undefined;
    return { inputTokens: sum?.input ?? 0, outputTokens: sum?.output ?? 0 };
  }
}
