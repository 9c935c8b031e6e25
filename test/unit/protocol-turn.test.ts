import { describe, expect, it } from 'vitest';
import {
  type AgentChannel,
  type TurnEvent,
  type TurnRequest,
  type TurnResult,
} from '../../src/infra/agent/channel.js';
import { AgentError } from '../../src/infra/agent/agent-error.js';
import { runProtocolTurn } from '../../src/infra/agent/protocol-turn.js';
import { EXPECTED, REPLY_JSON } from '../helpers/protocol-reply.js';

describe('runProtocolTurn: the repair round-trip', () => {
  const SECRET = 'RAW_REPLY_c0ffee';

  /** A fake channel (the model is what cannot run here): replies in order. */
  function channel(
    replies: readonly Partial<TurnResult>[],
  ): AgentChannel & { requests: TurnRequest[] } {
    const requests: TurnRequest[] = [];
    return {
      provider: 'gemini',
      requests,
      runTurn(request) {
        requests.push(request);
        const reply = replies[requests.length - 1];
        if (!reply) return Promise.reject(new Error('no more scripted replies'));
        return Promise.resolve({
          message: '',
          structured: null,
          inputTokens: 10,
          outputTokens: 5,
          providerConversationId: null,
          ...reply,
        });
      },
      shutdown: () => Promise.resolve(),
    };
  }

  const request: TurnRequest = {
    sessionId: 's1',
    cwd: '/tmp/wt',
    mainCheckout: '/tmp/main',
    prompt: 'do it',
    kind: 'session_start',
    model: 'm',
    reasoning: 'default',
    permissionMode: 'auto_edit',
    providerConversationId: null,
    outputSchema: null,
  };

  it('a valid reply needs no repair', async () => {
    const fake = channel([{ message: `Done.\n${REPLY_JSON}`, providerConversationId: 'conv-1' }]);
    const turn = await runProtocolTurn(fake, request, () => {}, new AbortController().signal);
    expect(turn.repaired).toBe(false);
    expect(turn.response).toEqual(EXPECTED);
    expect(fake.requests).toHaveLength(1);
  });

  it('a valid structured result wins over the message', async () => {
    const fake = channel([{ message: 'not json', structured: { answer: 'structured' } }]);
    const turn = await runProtocolTurn(fake, request, () => {}, new AbortController().signal);
    expect(turn.response.answer).toBe('structured');
  });

  it('asks once in the same conversation with the diagnostic (not the raw reply), then succeeds', async () => {
    const fake = channel([
      {
        message: `Sure! ${SECRET}`,
        providerConversationId: 'conv-1',
        inputTokens: 100,
        outputTokens: 50,
      },
      { message: REPLY_JSON, providerConversationId: 'conv-1', inputTokens: 20, outputTokens: 7 },
    ]);
    const events: TurnEvent[] = [];
    const turn = await runProtocolTurn(
      fake,
      request,
      (e) => events.push(e),
      new AbortController().signal,
    );
    expect(turn.repaired).toBe(true);
    expect(turn.response).toEqual(EXPECTED);
    expect(turn.result.inputTokens).toBe(120);
    expect(turn.result.outputTokens).toBe(57);
    const repair = fake.requests[1];
    expect(repair?.kind).toBe('session_resume');
    expect(repair?.providerConversationId).toBe('conv-1');
    expect(repair?.prompt).toContain('position 0');
    expect(repair?.prompt).not.toContain(SECRET);
    // The schema travels in the prompt for providers without native schemas.
    expect(repair?.prompt).toContain('"answer"');
    expect(events.some((e) => e.type === 'progress')).toBe(true);
  });

  it('fails with a protocol AgentError after one repair, the diagnostic without raw output', async () => {
    const fake = channel([
      { message: `first ${SECRET}`, providerConversationId: 'c' },
      { message: `{"answer": "${SECRET}`, providerConversationId: 'c' },
    ]);
    const failure = await runProtocolTurn(
      fake,
      request,
      () => {},
      new AbortController().signal,
    ).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(AgentError);
    const error = failure as AgentError;
    expect(error.reason).toBe('protocol');
    expect(error.diagnostics).toMatch(
      /characters.*unterminated string.*position \d+.*Top-level keys: answer\./,
    );
    expect(`${error.message} ${error.diagnostics}`).not.toContain(SECRET);
    expect(fake.requests).toHaveLength(2);
  });

  it('a utility turn stays a utility turn when repaired', async () => {
    const fake = channel([{ message: 'nope' }, { message: '{"answer":"title"}' }]);
    const turn = await runProtocolTurn(
      fake,
      { ...request, kind: 'utility' },
      () => {},
      new AbortController().signal,
    );
    expect(turn.response.answer).toBe('title');
    expect(fake.requests[1]?.kind).toBe('utility');
  });
});
