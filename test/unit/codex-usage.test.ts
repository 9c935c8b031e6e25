import { describe, expect, it } from 'vitest';
import { CodexTurnUsage } from '../../src/infra/agent/codex/turn-usage.js';

// Notifications as Codex 0.169.0 sent them around a `thread/resume` (recorded
// against the fake model server): the previous turn's last usage comes again,
// tagged with the previous turn's id, and may arrive before or after the new
// turn starts.

const THREAD = '01a2080d-e1fc-74e2-b5c1-c42cbcb02843';
const PREVIOUS = '01a2080d-e218-78a3-86fc-3e8e10aad63b';
const CURRENT = '01a2080d-e488-7251-9083-726b0374f505';

function usageUpdate(
  turnId: string,
  total: number,
  last: { input: number; output: number; reasoning?: number },
): unknown {
  const breakdown = (input: number, output: number, reasoning: number) => ({
    totalTokens: input + output,
    inputTokens: input,
    cachedInputTokens: 0,
    cacheWriteInputTokens: 0,
    outputTokens: output,
    reasoningOutputTokens: reasoning,
  });
  return {
    threadId: THREAD,
    turnId,
    tokenUsage: {
      total: breakdown(total, 0, 0),
      last: breakdown(last.input, last.output, last.reasoning ?? 0),
      modelContextWindow: null,
    },
  };
}

const replayed = usageUpdate(PREVIOUS, 63_608, { input: 15_679, output: 400 });
const billed = [
  usageUpdate(CURRENT, 79_287, { input: 30_000, output: 500, reasoning: 100 }),
  usageUpdate(CURRENT, 112_000, { input: 33_608, output: 250 }),
];

describe('Codex token usage of one turn', () => {
  it('ignores the previous turn usage that resume re-sends before the turn starts', () => {
    const usage = new CodexTurnUsage();

    for (const params of [replayed, ...billed]) usage.record(params);

    expect(usage.forTurn(CURRENT)).toEqual({ inputTokens: 63_608, outputTokens: 850 });
  });

  it('ignores the re-sent usage when it arrives after the turn started', () => {
    const usage = new CodexTurnUsage();

    for (const params of [billed[0], replayed, billed[1]]) usage.record(params);

    expect(usage.forTurn(CURRENT)).toEqual({ inputTokens: 63_608, outputTokens: 850 });
  });

  it('counts nothing for a turn whose id is unknown', () => {
    const usage = new CodexTurnUsage();

    usage.record(replayed);

    expect(usage.forTurn(null)).toEqual({ inputTokens: 0, outputTokens: 0 });
  });
});
