import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseHeadless } from '../../src/cli/args.js';
import { runHeadless } from '../../src/cli/dispatch.js';
import { EXIT, shutdownContexts } from '../../src/cli/headless.js';
import { budgetLines } from '../../src/cli/parallel.js';
import { recoverInterruptedOperations } from '../../src/app/services/recovery.js';
import { BUDGET_KEYS } from '../../src/domain/settings.js';
import type { Session } from '../../src/domain/session.js';
import { GROVE_BIN } from '../helpers/grove-env.js';
import { makeReviewWorld, reply, waitFor, type ReviewWorld } from '../helpers/review-world.js';

// Budgets on real SQLite with the real Claude Code CLI, whose model (the
// fake model server) reports 120 input and 40 output tokens a request: a
// turn pushes the session over a small limit, and the prompt queued behind
// it is held, never sent, until the limit is raised.

let w: ReviewWorld;

beforeEach(async () => {
  w = await makeReviewWorld();
});

afterEach(async () => {
  await shutdownContexts();
  await w.close();
});

const sentToModel = (text: string): boolean =>
  w.server.modelRequests('anthropic').some((r) => JSON.stringify(r.body).includes(text));

async function newSession(): Promise<Session> {
  const session = await w.controller.sessions.create(
    w.projectId,
    { agent: 'claude', model: 'sonnet', reasoning: 'high' },
    w.app.state.settings,
  );
  await w.controller.sessions.whenReady(session.id);
  w.app.emit({ type: 'sessionUpdated', session });
  return session;
}

async function queuedPrompts(sessionId: string): Promise<string[]> {
  return (await w.infra.store.operations.listUnfinished(sessionId))
    .filter((op) => op.status === 'queued')
    .map((op) => String(op.payload['prompt']));
}

/** A session that spent one turn's tokens with `limit` as the per-session token budget, and a second prompt queued behind that turn. */
async function overBudget(limit: string): Promise<Session> {
  await w.infra.store.settings.setProject(w.projectId, BUDGET_KEYS.sessionTokens, limit);
  w.server.script('anthropic', [
    { when: 'First task for the budget', text: reply('First done.') },
    { when: 'Second task for the budget', text: reply('Second done.') },
  ]);
  const session = await newSession();
  expect(await w.controller.submitPrompt(session.id, 'First task for the budget')).toBeNull();
  expect(await w.controller.submitPrompt(session.id, 'Second task for the budget')).toBeNull();
  await waitFor('the hold at the limit', () => w.app.state.budget?.held[session.id]);
  await w.controller.workers.idle(session.id);
  return session;
}

describe('budgets', () => {
  it('finishes the turn under way, then holds the queued prompt of a session over its token budget', async () => {
    const session = await overBudget('100');

    // Asked again (as a new prompt or a changed setting does), it still holds.
    w.controller.workers.notify(session.id);
    await w.controller.workers.idle(session.id);

    expect(sentToModel('First task for the budget')).toBe(true);
    expect(sentToModel('Second task for the budget')).toBe(false);
    expect(await queuedPrompts(session.id)).toEqual(['Second task for the budget']);
    expect((await w.get(session.id)).status).toBe('Review');
    expect(w.app.state.budget?.held[session.id]).toMatchObject({
      scope: 'session',
      measure: 'tokens',
      limit: 100,
    });
    expect((await w.notices(session.id)).filter((n) => n.startsWith('[Budget]'))).toEqual([
      expect.stringMatching(
        /^\[Budget\] This session's token budget is reached: .* used of 100 tokens\. The queued prompt is held, not sent: Second task for the budget\. Raise the limit to go on\.$/,
      ),
    ]);
    const popup = w.app.state.popup;
    expect(popup?.kind === 'confirm' ? popup.intent : null).toMatchObject({
      kind: 'raiseBudget',
      sessionId: session.id,
      scope: 'session',
      measure: 'tokens',
    });
  });

  it("holds the queued prompt when Grove's own calls for the session push it over its token budget", async () => {
    // The turn is two requests (the write, then the reply): 2 × 160 tokens, under the
    // limit of 400. Its commit message (160 more, a request Grove makes) takes it over.
    await w.infra.store.settings.setProject(w.projectId, BUDGET_KEYS.sessionTokens, '400');
    w.server.script('anthropic', [
      // The title prompt quotes the task: its own step first, so it never takes the turn's.
      { when: 'Write a title for a coding task', text: reply('Write the greeting') },
      {
        when: 'Write the greeting for the budget',
        toolCall: { kind: 'write_file', path: 'hello.txt', content: 'hello\n' },
      },
      { when: 'Write the greeting for the budget', text: reply('Wrote it.') },
      { when: 'Write the git commit message for the changes', text: reply('Add the greeting') },
      { when: 'Second task for the budget', text: reply('Second done.') },
    ]);
    const session = await newSession();
    expect(
      await w.controller.submitPrompt(session.id, 'Write the greeting for the budget'),
    ).toBeNull();
    expect(await w.controller.submitPrompt(session.id, 'Second task for the budget')).toBeNull();
    await waitFor('the hold at the limit', () => w.app.state.budget?.held[session.id]);
    await w.controller.workers.idle(session.id);

    expect(sentToModel('Second task for the budget')).toBe(false);
    expect(await queuedPrompts(session.id)).toEqual(['Second task for the budget']);
    const usage = await w.infra.store.usage.bySession(session.id);
    const spent = (role: string): number =>
      usage
        .filter((r) => r.role === role)
        .reduce((sum, r) => sum + r.inputTokens + r.outputTokens, 0);
    expect(spent('turn')).toBe(320);
    expect(spent('commit')).toBe(160);
    expect(w.app.state.budget?.held[session.id]?.used).toBeGreaterThanOrEqual(480);
  });

  it('sends the held prompt once the person raises the limit', async () => {
    const session = await overBudget('100');
    const popup = w.app.state.popup;
    if (popup?.kind !== 'confirm' || popup.intent.kind !== 'raiseBudget')
      throw new Error('no budget question on screen');
    const { scope, measure, limit } = popup.intent;

    w.controller.raiseBudget(session.id, scope, measure, limit);

    await waitFor(
      'the held prompt to run',
      async () =>
        (await queuedPrompts(session.id)).length === 0 && sentToModel('Second task for the budget'),
    );
    await waitFor(
      'the turn to end',
      async () =>
        (await w.get(session.id)).status === 'Review' &&
        w.app.state.budget?.held[session.id] === undefined,
    );
    expect(await w.infra.store.usage.sessionLimits(session.id)).toEqual({
      tokens: limit,
      usd: null,
    });
  });

  it('lists the held prompt in the inbox until the person raises the limit', async () => {
    const session = await overBudget('100');

    const held = (await w.controller.inbox()).filter((i) => i.sessionId === session.id);

    expect(held.map((i) => i.kind)).toEqual(['budget']);
    expect(held[0]?.text).toMatch(
      /^This session's token budget is reached: .* A prompt is held\.$/,
    );
    w.controller.raiseBudget(session.id, 'session', 'tokens', 1_000_000);
    await waitFor('the held prompt to leave the inbox', async () =>
      (await w.controller.inbox()).every((i) => i.sessionId !== session.id),
    );
  });

  it('no longer marks the session held once grove approve budget:ID in another process has raised the limit and run the prompt', async () => {
    const session = await overBudget('100');
    expect(w.app.state.budget?.held[session.id]).toBeDefined();

    // grove approve from a shell: the built binary, another Grove process on the same GROVE_HOME.
    const code = await new Promise<number | null>((resolve) => {
      const child = execFile(
        process.execPath,
        [GROVE_BIN, 'approve', `budget:${session.id.slice(0, 8)}`, '--json'],
        { env: w.env, cwd: w.repo },
        () => resolve(child.exitCode),
      );
    });
    expect(code).toBe(0);
    expect(sentToModel('Second task for the budget')).toBe(true);

    // This Grove's inbox refresh sees no limit holds the session any more.
    w.controller.loadInbox();
    await waitFor('the held mark to go', () => w.app.state.budget?.held[session.id] === undefined);
    expect(w.app.state.inbox.filter((i) => i.sessionId === session.id)).toEqual([]);
  });

  it('runs no turn at all once the project budget is spent, and grove reply exits 5 with the prompt kept queued', async () => {
    w.server.script('anthropic', [
      { when: 'First task for the budget', text: reply('First done.') },
    ]);
    const session = await newSession();
    expect(await w.controller.submitPrompt(session.id, 'First task for the budget')).toBeNull();
    await waitFor(
      'the first turn',
      async () =>
        sentToModel('First task for the budget') && (await w.get(session.id)).status === 'Review',
    );
    await w.controller.workers.idle(session.id);
    await w.infra.store.settings.setProject(w.projectId, BUDGET_KEYS.projectTokens, '50');
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    let out = '';
    let err = '';
    stdout.on('data', (d: Buffer) => (out += d.toString()));
    stderr.on('data', (d: Buffer) => (err += d.toString()));
    const stdin = Object.assign(new PassThrough(), { isTTY: true });

    const code = await runHeadless(
      parseHeadless('reply', [session.id, 'Third task for the budget']),
      w.infra,
      { stdout, stderr, stdin, stderrIsTTY: false, env: process.env, cwd: w.repo },
    );

    expect(code).toBe(EXIT.budget);
    expect(err).toMatch(
      /^grove: The project's token budget is reached: .* used of 50 tokens\. The prompt was not sent and stays queued in session ([0-9a-f]{8}); it runs once the limit is raised \(grove approve budget:\1, Settings in the TUI, or its popup when you open the session\), or grove deny budget:\1 drops it\.$/m,
    );
    expect(sentToModel('Third task for the budget')).toBe(false);
    expect(await queuedPrompts(session.id)).toEqual(['Third task for the budget']);
    expect(out).toBe('');
  });

  it.each(['rebase', 'publish', 'merge'] as const)(
    'grove %s behind a held prompt says the budget holds it and what to do, exits 5, and leaves nothing for a restart to fail',
    async (kind) => {
      const session = await overBudget('100');
      let err = '';
      const stderr = new PassThrough();
      stderr.on('data', (d: Buffer) => (err += d.toString()));
      const stdin = Object.assign(new PassThrough(), { isTTY: true });

      const code = await runHeadless(parseHeadless(kind, [session.id]), w.infra, {
        stdout: new PassThrough(),
        stderr,
        stdin,
        stderrIsTTY: false,
        env: process.env,
        cwd: w.repo,
      });
      // The next Grove process finds whatever this one left queued, its owner gone.
      await recoverInterruptedOperations(w.infra.store, Date.now(), () => false);

      expect(code).toBe(EXIT.budget);
      expect(err).toMatch(
        new RegExp(
          `^grove: This session's token budget is reached: .* used of 100 tokens\\. The ${kind} was not started: it waits behind the session's held prompt\\. Raise the limit \\(grove approve budget:${session.id.slice(0, 8)}, Settings in the TUI, or its popup when you open the session\\), or drop the held prompt \\(grove deny budget:${session.id.slice(0, 8)}, or Ctrl\\+C in the session\\), then run grove ${kind} again\\.$`,
          'm',
        ),
      );
      expect(err).not.toMatch(/did not finish/);
      const left = await w.infra.store.operations.listUnfinished(session.id);
      expect(left.map((op) => op.kind)).toEqual(['reply']);
      expect((await w.notices(session.id)).filter((n) => n.startsWith('[Restart]'))).toEqual([]);
      expect((await w.get(session.id)).status).toBe('Review');
    },
  );

  it('grove show prints spending against the limits and the hold', async () => {
    const session = await overBudget('100');

    const lines = await budgetLines(w.infra, session);

    expect(lines[0]).toMatch(
      /^budget session .* of 100 tokens \(limit reached\), \$\d+\.\d\d; project .* tokens, \$\d+\.\d\d$/,
    );
    expect(lines.at(-1)).toMatch(
      /^held: This session's token budget is reached: .* tokens used of 100 tokens\. 1 queued prompt waits for the limit to be raised\.$/,
    );
  });

  it('writes the example price table to GROVE_HOME/prices.json for the person to edit', async () => {
    await overBudget('100');
    const file = join(w.world.groveHome, 'prices.json');

    await waitFor('the prices file', () => existsSync(file));
    const table = JSON.parse(readFileSync(file, 'utf8')) as {
      note: string;
      models: Record<string, { input: number; output: number }>;
    };

    expect(table.note).toMatch(/Example prices/);
    expect(Object.keys(table.models)).toContain('sonnet');
  });
});
