import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import {
  WAIT,
  children,
  control,
  hangingAgents,
  isGone,
  newSession,
  operations,
  promptOf,
  promptOperations,
  release,
  repo,
  sessionCalls,
  setUpWorkerWorld,
  startGrove,
  status,
  transcript,
} from '../helpers/worker-harness.js';
import { git } from '../helpers/worker-world.js';

// The per-session worker on a real SQLite file and real git repositories,
// with a fake `claude` first on PATH that replays a recorded real Claude
// Code stream (test/fixtures/fake-claude). Prompt markers steer the fake.
// Several Grove processes on one store: worker-processes.test.ts.

setUpWorkerWorld();

describe('the session worker', () => {
  it('a reply that is not in the protocol gets one repair round-trip; if that fails too, the turn fails with a diagnostic, never the raw reply', async () => {
    const grove = await startGrove();
    const { infra, controller } = grove;
    const session = await newSession(grove);

    await controller.submitPrompt(session.id, 'first [[prose]]');
    await vi.waitFor(
      async () => expect((await promptOperations(infra, session.id))[0]?.status).toBe('done'),
      WAIT,
    );
    await controller.workers.idle(session.id);
    const calls = sessionCalls();
    expect(calls).toHaveLength(2);
    expect(calls[1]?.prompt).toContain('could not be read by Grove');
    expect(calls[1]?.prompt).not.toContain('RAW_PROSE_MARKER');
    expect(
      (await transcript(infra, session.id))
        .filter((e) => e.kind === 'assistant_answer')
        .map((e) => e.content),
    ).toEqual(['Done.']);
    // The repair round is counted apart from the turn (same model), both in the session's usage.
    const usage = await infra.store.usage.bySession(session.id);
    expect(
      usage
        .filter((r) => r.role === 'turn' || r.role === 'repair')
        .map((r) => [r.role, r.model, r.inputTokens, r.outputTokens, r.requests]),
    ).toEqual([
      ['turn', session.model, 240, 80, 1],
      ['repair', session.model, 240, 80, 1],
    ]);

    writeFileSync(join(control, 'always-prose'), '');
    await controller.submitPrompt(session.id, 'second');
    await vi.waitFor(
      async () => expect((await promptOperations(infra, session.id))[1]?.status).toBe('failed'),
      WAIT,
    );
    await controller.workers.idle(session.id);
    expect(sessionCalls()).toHaveLength(4);
    expect(await status(infra, session.id)).toBe('Review');
    const entries = await transcript(infra, session.id);
    const error = entries.find((e) => e.kind === 'notice' && e.content.startsWith('[Error] '));
    expect(error?.content).toMatch(
      /did not follow the reply format[\s\S]*\d+ characters[\s\S]*position \d+[\s\S]*Top-level keys: /,
    );
    expect(entries.map((e) => e.content).join('\n')).not.toContain('RAW_PROSE_MARKER');
    expect((await promptOperations(infra, session.id))[1]?.last_error).not.toContain(
      'RAW_PROSE_MARKER',
    );
    // Both requests of the failed turn were billed: they count too, the repair apart.
    const after = await infra.store.usage.bySession(session.id);
    expect(
      after
        .filter((r) => r.role === 'turn' || r.role === 'repair')
        .map((r) => [r.role, r.inputTokens, r.outputTokens, r.requests]),
    ).toEqual([
      ['turn', 480, 160, 2],
      ['repair', 480, 160, 2],
    ]);
  });

  it('stores a prompt as a queued operation before it runs; it moves queued → running → done', async () => {
    const grove = await startGrove();
    const { infra, controller } = grove;
    const session = await newSession(grove);
    // Another live process holds the session, so the worker cannot take the prompt yet.
    const other = spawn('sleep', ['600'], { stdio: 'ignore' });
    children.push(other);
    const otherOwner = `${hostname()}:${other.pid}`;
    const blocker = await infra.store.operations.enqueue(session.id, 'utility', {}, Date.now());
    expect((await infra.store.operations.claimNext(session.id, otherOwner, Date.now()))?.id).toBe(
      blocker,
    );

    const prompt = 'Add a.txt [[file:a.txt]] [[wait:first]] [[answer:First answer]]';
    expect(await controller.submitPrompt(session.id, prompt)).toBeNull();
    await controller.workers.idle(session.id);

    const queued = await promptOperations(infra, session.id);
    // Queued, marked with the process that queued it (so recovery elsewhere leaves it alone).
    expect(queued.map((op) => [op.kind, op.status, op.owner, promptOf(op)])).toEqual([
      ['start_prompt', 'queued', infra.runtime.owner, prompt],
    ]);
    expect(sessionCalls()).toEqual([]);
    await vi.waitFor(() => expect(grove.app.state.queued[session.id]).toEqual([prompt]), WAIT);

    // The other process is done: the worker's lease retry takes the prompt.
    await infra.store.operations.finish(blocker, 'done', null, Date.now());
    await vi.waitFor(() => expect(sessionCalls()).toHaveLength(1), WAIT);
    const [running] = await promptOperations(infra, session.id);
    expect(running?.status).toBe('running');
    expect(running?.owner).toBe(infra.runtime.owner);
    expect(await status(infra, session.id)).toBe('InProgress');
    await vi.waitFor(() => expect(grove.app.state.queued[session.id] ?? []).toEqual([]), WAIT);

    release('first');
    await vi.waitFor(
      async () => expect((await promptOperations(infra, session.id))[0]?.status).toBe('done'),
      WAIT,
    );
    await controller.workers.idle(session.id);

    const [done] = await promptOperations(infra, session.id);
    expect(done?.last_error).toBeNull();
    expect(done?.started_at).not.toBeNull();
    expect(done?.finished_at).not.toBeNull();
    expect(sessionCalls()[0]?.cwd).toBe(session.worktreePath);
    expect(await status(infra, session.id)).toBe('Review');
    const entries = await transcript(infra, session.id);
    expect(entries.slice(0, 2)).toEqual([
      { kind: 'user_prompt', content: prompt },
      { kind: 'assistant_answer', content: 'First answer' },
    ]);
    expect(
      entries.some(
        (e) => e.kind === 'notice' && e.content.startsWith('[Commit] Fake commit subject'),
      ),
    ).toBe(true);
    // The work is committed on the session branch; the main checkout is untouched.
    expect(git(repo, 'log', '-1', '--format=%s', session.branch)).toBe('Fake commit subject');
    expect(git(repo, 'show', '--name-only', '--format=', session.branch)).toBe('a.txt');
    expect(existsSync(join(repo, 'a.txt'))).toBe(false);
    const stored = await infra.store.sessions.get(session.id);
    expect(stored?.summary).toEqual({ turn: 'turn: First answer', session: 'the session so far' });
    expect(stored?.providerConversationId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('queues prompts sent while a turn runs, shows them as queued, and runs them in order', async () => {
    const grove = await startGrove();
    const { infra, controller } = grove;
    const session = await newSession(grove);

    await controller.submitPrompt(session.id, 'one [[wait:one]] [[answer:A1]]');
    await vi.waitFor(() => expect(sessionCalls()).toHaveLength(1), WAIT);
    await controller.submitPrompt(session.id, 'two [[file:two.txt]] [[answer:A2]]');
    await controller.submitPrompt(session.id, 'three [[answer:A3]]');

    const waiting = await promptOperations(infra, session.id);
    expect(waiting.map((op) => [op.kind, op.status, promptOf(op)])).toEqual([
      ['start_prompt', 'running', 'one [[wait:one]] [[answer:A1]]'],
      ['reply', 'queued', 'two [[file:two.txt]] [[answer:A2]]'],
      ['reply', 'queued', 'three [[answer:A3]]'],
    ]);
    await vi.waitFor(
      () =>
        expect(grove.app.state.queued[session.id]).toEqual([
          'two [[file:two.txt]] [[answer:A2]]',
          'three [[answer:A3]]',
        ]),
      WAIT,
    );
    expect(
      grove.events.some(
        (e) => e.type === 'queueChanged' && e.sessionId === session.id && e.prompts.length === 2,
      ),
    ).toBe(true);

    release('one');
    await vi.waitFor(
      async () =>
        expect((await promptOperations(infra, session.id)).map((op) => op.status)).toEqual([
          'done',
          'done',
          'done',
        ]),
      WAIT,
    );
    await controller.workers.idle(session.id);

    expect(sessionCalls().map((call) => call.prompt.match(/^(one|two|three) /m)?.[1])).toEqual([
      'one',
      'two',
      'three',
    ]);
    // Follow-ups resume the conversation the first turn started.
    const calls = readFileSync(join(control, 'calls.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { utility: boolean; resume: string | null; sessionId: string });
    const turns = calls.filter((c) => !c.utility);
    expect(turns[0]?.resume).toBeNull();
    expect(turns[1]?.resume).toBe(turns[0]?.sessionId);
    expect(turns[2]?.resume).toBe(turns[0]?.sessionId);
    const answers = (await transcript(infra, session.id))
      .filter((e) => e.kind === 'user_prompt' || e.kind === 'assistant_answer')
      .map((e) => e.content.split(' ')[0]);
    expect(answers).toEqual(['one', 'A1', 'two', 'A2', 'three', 'A3']);
    await vi.waitFor(() => expect(grove.app.state.queued[session.id] ?? []).toEqual([]), WAIT);
    expect(await status(infra, session.id)).toBe('Review');
    // One evolving commit on the branch.
    expect(git(repo, 'rev-list', '--count', `main..${session.branch}`)).toBe('1');
    expect(git(repo, 'show', '--name-only', '--format=', session.branch)).toBe('two.txt');
  });

  it('Ctrl+C removes the newest queued prompt first, then stops the running turn and its whole process group', async () => {
    const grove = await startGrove();
    const { infra, controller, app } = grove;
    const session = await newSession(grove);

    await controller.submitPrompt(session.id, 'work [[file:partial.txt]] [[hang]]');
    await vi.waitFor(() => expect(hangingAgents()).toHaveLength(1), WAIT);
    const [agent] = hangingAgents();
    if (!agent) throw new Error('no agent');
    await controller.submitPrompt(session.id, 'second');
    await controller.submitPrompt(session.id, 'third');
    await vi.waitFor(() => expect(app.state.queued[session.id]).toEqual(['second', 'third']), WAIT);

    controller.stop(session.id);
    await vi.waitFor(() => expect(app.state.queued[session.id]).toEqual(['second']), WAIT);
    expect(app.state.notice?.text).toBe('Removed the newest queued prompt.');
    expect(
      (await promptOperations(infra, session.id)).map((op) => [
        promptOf(op).split(' ')[0],
        op.status,
      ]),
    ).toEqual([
      ['work', 'running'],
      ['second', 'queued'],
      ['third', 'canceled'],
    ]);
    expect(isGone(agent.pid)).toBe(false);

    controller.stop(session.id);
    await vi.waitFor(() => expect(app.state.queued[session.id] ?? []).toEqual([]), WAIT);
    expect(isGone(agent.pid)).toBe(false);

    controller.stop(session.id);
    await vi.waitFor(() => expect(isGone(agent.pid)).toBe(true), WAIT);
    await vi.waitFor(() => expect(isGone(agent.child)).toBe(true), WAIT);
    await vi.waitFor(
      async () => expect((await promptOperations(infra, session.id))[0]?.status).toBe('canceled'),
      WAIT,
    );
    await controller.workers.idle(session.id);

    expect((await promptOperations(infra, session.id)).map((op) => op.status)).toEqual([
      'canceled',
      'canceled',
      'canceled',
    ]);
    expect(await status(infra, session.id)).toBe('Review');
    const notices = (await transcript(infra, session.id))
      .filter((e) => e.kind === 'notice')
      .map((e) => e.content);
    expect(notices.some((n) => n.startsWith('[Stopped]'))).toBe(true);
    // Nothing queued ran, and the worktree keeps the partial work (committed on the branch).
    expect(sessionCalls()).toHaveLength(1);
    expect(readFileSync(join(session.worktreePath, 'partial.txt'), 'utf8')).toBe(
      'written by fake claude\n',
    );
    expect(git(repo, 'show', '--name-only', '--format=', session.branch)).toBe('partial.txt');

    controller.stop(session.id);
    await vi.waitFor(
      () => expect(app.state.notice?.text).toBe('Nothing is running in this session.'),
      WAIT,
    );
  });

  it('Ctrl+C removes only prompts from the queue, never a queued merge, rebase or publish', async () => {
    const grove = await startGrove();
    const { infra, controller, app } = grove;
    const session = await newSession(grove);
    await controller.submitPrompt(session.id, 'work [[hang]]');
    await vi.waitFor(() => expect(hangingAgents()).toHaveLength(1), WAIT);
    await controller.submitPrompt(session.id, 'queued prompt');
    const rebase = await infra.store.operations.enqueue(
      session.id,
      'rebase',
      {},
      Date.now(),
      infra.runtime.owner,
    );
    await vi.waitFor(() => expect(app.state.queued[session.id]).toEqual(['queued prompt']), WAIT);

    controller.stop(session.id);
    await vi.waitFor(() => expect(app.state.queued[session.id] ?? []).toEqual([]), WAIT);
    const rows = await operations(infra, session.id);
    expect(rows.map((op) => [op.kind, op.status])).toEqual([
      ['start_prompt', 'running'],
      ['reply', 'canceled'],
      ['rebase', 'queued'],
    ]);
    expect(rows.find((op) => op.id === rebase)?.status).toBe('queued');
    // The next Ctrl+C stops the turn; the rebase stays the worker's to run.
    await infra.store.operations.finish(rebase, 'canceled', null, Date.now());
    controller.stop(session.id);
    await vi.waitFor(
      async () => expect((await operations(infra, session.id))[0]?.status).toBe('canceled'),
      WAIT,
    );
    await controller.workers.idle(session.id);
  });

  it.each([
    [
      'exits 1 mid-turn',
      'crash [[file:partial.txt]] [[crash]]',
      null,
      /exited \(code 1\) without a result[\s\S]*simulated crash/,
    ],
    [
      'is killed mid-turn',
      'killed [[file:partial.txt]] [[hang]]',
      'SIGKILL',
      /exited \(SIGKILL\) without a result/,
    ],
  ] as const)(
    'an agent that %s fails the turn with a notice; the session is in Review and the worktree intact',
    async (_name, prompt, signal, notice) => {
      const grove = await startGrove();
      const { infra, controller } = grove;
      const session = await newSession(grove);

      await controller.submitPrompt(session.id, prompt);
      if (signal) {
        await vi.waitFor(() => expect(hangingAgents()).toHaveLength(1), WAIT);
        const [agent] = hangingAgents();
        if (agent) process.kill(agent.pid, signal);
      }
      await vi.waitFor(
        async () => expect((await promptOperations(infra, session.id))[0]?.status).toBe('failed'),
        WAIT,
      );
      await controller.workers.idle(session.id);

      const [op] = await promptOperations(infra, session.id);
      expect(op?.last_error).toMatch(
        /^Claude Code exited \((code 1|SIGKILL)\) without a result\.$/,
      );
      expect(await status(infra, session.id)).toBe('Review');
      const entries = await transcript(infra, session.id);
      const error = entries.find((e) => e.kind === 'notice' && e.content.startsWith('[Error] '));
      expect(error?.content).toMatch(notice);
      expect(entries.some((e) => e.kind === 'assistant_answer')).toBe(false);
      expect(git(session.worktreePath, 'rev-parse', '--abbrev-ref', 'HEAD')).toBe(session.branch);
      expect(readFileSync(join(session.worktreePath, 'partial.txt'), 'utf8')).toBe(
        'written by fake claude\n',
      );

      // The session takes the next prompt.
      await controller.submitPrompt(session.id, 'again [[answer:Recovered]]');
      await vi.waitFor(
        async () =>
          expect((await promptOperations(infra, session.id)).map((o) => o.status)).toEqual([
            'failed',
            'done',
          ]),
        WAIT,
      );
      await controller.workers.idle(session.id);
      expect(
        (await transcript(infra, session.id))
          .filter((e) => e.kind === 'assistant_answer')
          .map((e) => e.content),
      ).toEqual(['Recovered']);
    },
  );
});
