import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ProviderId } from '../../src/domain/providers.js';
import type { Session } from '../../src/domain/session.js';
import type { ApiName } from '../helpers/fake-model/server.js';
import { makeReviewWorld, reply, waitFor, type ReviewWorld } from '../helpers/review-world.js';

// Usage-limit-aware queueing on real SQLite with the real, pinned agent CLIs:
// the fake model server answers a prompt with the API's real limit response
// (Codex's usage_limit_reached with resets_in_seconds, Gemini's 429
// RESOURCE_EXHAUSTED with a RetryInfo delay), the CLI reports it in its own
// words, and Grove keeps the prompt queued until the (short) reset, then
// sends it again by itself.

let w: ReviewWorld;

beforeEach(async () => {
  w = await makeReviewWorld();
});

afterEach(async () => {
  await w.controller.shutdown();
  await w.close();
});

async function newSession(agent: ProviderId, model: string): Promise<Session> {
  const session = await w.controller.sessions.create(
    w.projectId,
    { agent, model, reasoning: agent === 'gemini' ? 'default' : 'high' },
    w.app.state.settings,
  );
  await w.controller.sessions.whenReady(session.id);
  w.app.emit({ type: 'sessionUpdated', session });
  return session;
}

const LIMITS: Record<
  'codex' | 'gemini',
  {
    api: ApiName;
    model: string;
    error: (resetSeconds: number) => { status: number; body: unknown };
  }
> = {
  codex: {
    api: 'openai',
    model: 'gpt-5.5',
    error: (s) => ({
      status: 429,
      body: {
        error: {
          type: 'usage_limit_reached',
          message: 'The usage limit has been reached',
          plan_type: 'plus',
          resets_at: Math.floor(Date.now() / 1000) + s,
          resets_in_seconds: s,
        },
      },
    }),
  },
  gemini: {
    api: 'gemini',
    model: 'gemini-test',
    error: (s) => ({
      status: 429,
      body: {
        error: {
          code: 429,
          message: 'Resource has been exhausted (e.g. check quota).',
          status: 'RESOURCE_EXHAUSTED',
          details: [
            {
              '@type': 'type.googleapis.com/google.rpc.QuotaFailure',
              violations: [
                {
                  quotaMetric:
                    'generativelanguage.googleapis.com/generate_content_paid_tier_input_token_count',
                  quotaId: 'GenerateContentPaidTierInputTokensPerModelPerMinute',
                },
              ],
            },
            { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${s}s` },
          ],
        },
      },
    }),
  },
};

describe('usage-limit-aware queueing', () => {
  it.each(['codex', 'gemini'] as const)(
    'keeps a %s prompt queued while its usage limit lasts, shows the wait, and sends it by itself after the reset',
    async (agent) => {
      const limit = LIMITS[agent];
      w.server.script(limit.api, [
        { when: 'Task behind the limit', error: limit.error(3) },
        { when: 'Task behind the limit', text: reply('Done after the reset.') },
      ]);
      const session = await newSession(agent, limit.model);

      expect(await w.controller.submitPrompt(session.id, 'Task behind the limit')).toBeNull();

      const waiting = await waitFor(
        'the session waiting for its agent',
        () => w.app.state.waiting[session.id],
      );
      expect(waiting.agent).toBe(agent);
      const queued = (await w.infra.store.operations.listUnfinished(session.id)).filter(
        (op) => op.status === 'queued',
      );
      expect(queued.map((op) => op.payload['prompt'])).toEqual(['Task behind the limit']);
      expect(queued[0]?.notBefore).toBe(waiting.until);
      expect(
        (await w.notices(session.id)).some(
          (n) => n.startsWith('[Waiting]') && n.includes(`waiting for ${agent} until`),
        ),
      ).toBe(true);

      await waitFor(
        'the answer after the reset',
        async () =>
          (await w.infra.store.transcript.list(session.id)).some(
            (e) => e.kind === 'assistant_answer' && e.content.includes('Done after the reset.'),
          ),
        60_000,
      );
      await waitFor(
        'the queue emptied',
        async () => (await w.infra.store.operations.listUnfinished(session.id)).length === 0,
      );
      await waitFor('the wait cleared', () => w.app.state.waiting[session.id] === undefined);
    },
    90_000,
  );

  it('drops "waiting for codex" (and its inbox item) once the waiting session is canceled', async () => {
    const limit = LIMITS.codex;
    w.server.script(limit.api, [{ when: 'Task behind a long limit', error: limit.error(3600) }]);
    const session = await newSession('codex', limit.model);
    expect(await w.controller.submitPrompt(session.id, 'Task behind a long limit')).toBeNull();
    const waiting = await waitFor(
      'the session waiting for its agent',
      () => w.app.state.waiting[session.id],
    );
    const items = (await w.controller.inbox()).filter((i) => i.sessionId === session.id);
    expect(items.map((i) => [i.kind, i.until])).toEqual([['usageLimit', waiting.until]]);
    expect(items[0]?.text).toMatch(/^codex's usage limit: the prompt runs in \d/);

    w.controller.confirmCancel(session.id);

    await waitFor(
      'the session canceled',
      () => w.app.state.sessions.find((s) => s.id === session.id)?.status === 'Canceled',
    );
    expect(w.app.state.waiting[session.id]).toBeUndefined();
    expect(w.app.state.queued[session.id]).toBeUndefined();
    // Nothing is left queued for a later Grove to send.
    expect(await w.infra.store.operations.listUnfinished(session.id)).toEqual([]);
    expect((await w.controller.inbox()).filter((i) => i.sessionId === session.id)).toEqual([]);
  });

  it('lets a session on another agent go on while one waits for its limit', async () => {
    w.server.script('openai', [{ when: 'Codex task', error: LIMITS.codex.error(600) }]);
    w.server.script('anthropic', [{ when: 'Claude task', text: reply('Claude went on.') }]);
    const waiting = await newSession('codex', 'gpt-5.5');
    const other = await newSession('claude', 'sonnet');

    expect(await w.controller.submitPrompt(waiting.id, 'Codex task')).toBeNull();
    await waitFor('the codex session waiting', () => w.app.state.waiting[waiting.id]);
    expect(await w.controller.submitPrompt(other.id, 'Claude task')).toBeNull();

    await waitFor(
      'the claude answer',
      async () =>
        (await w.infra.store.transcript.list(other.id)).some(
          // (A title prompt around the turn may take the scripted reply: any answer will do.)
          (e) => e.kind === 'assistant_answer',
        ),
      60_000,
    );
    const stillQueued = (await w.infra.store.operations.listUnfinished(waiting.id)).filter(
      (op) => op.status === 'queued',
    );
    expect(stillQueued.map((op) => op.payload['prompt'])).toEqual(['Codex task']);
    expect(
      w.server.modelRequests('openai').filter((r) => JSON.stringify(r.body).includes('Codex task')),
    ).toHaveLength(1);
  }, 90_000);
});
