import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import { INTERRUPTED_NOTICE } from '../../src/app/services/recovery.js';
import { INTERRUPTED_BY_RESTART } from '../../src/domain/operation.js';
import { ownerOf } from '../../src/infra/owner.js';
import {
  DRIVER,
  WAIT,
  children,
  env,
  hangingAgents,
  isGone,
  newSession,
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

// Several Grove processes on one store and a restart: who drives a session,
// what a restart does with a dead process's operations. The world is
// worker.test.ts's (the fake `claude` steered by prompt markers).

setUpWorkerWorld();

/** Another Grove process that sends `prompt` to the session and keeps running; resolves once it is stored. */
async function otherGrove(
  sessionId: string,
  prompt: string,
): Promise<ChildProcess & { pid: number }> {
  const child = spawn(process.execPath, [DRIVER, repo, sessionId, prompt], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  await vi.waitFor(() => expect(out).toContain('submitted\n'), WAIT);
  if (child.pid === undefined) throw new Error('no pid');
  return child as ChildProcess & { pid: number };
}

async function kill(child: ChildProcess): Promise<void> {
  const exited = new Promise((done) => child.once('exit', done));
  child.kill('SIGKILL');
  await exited;
}

describe('several Grove processes and a restart', () => {
  it("never drive the same session at once; a restart fails the dead owners' operations as interrupted and returns the session to Review", async () => {
    const first = await startGrove();
    const session = await newSession(first);
    await first.controller.shutdown();

    // Process B runs a turn on the session.
    const b = await otherGrove(session.id, 'from B [[hang]]');
    await vi.waitFor(() => expect(hangingAgents()).toHaveLength(1), WAIT);
    const [agent] = hangingAgents();
    if (!agent) throw new Error('no agent');
    const ownerB = ownerOf(b.pid);

    // Process A sends a prompt too: it is stored, but waits while B holds the session.
    const a = await otherGrove(session.id, 'from A [[answer:A ran]]');
    const ownerA = ownerOf(a.pid);
    expect(
      await first.infra.store.operations.claimNext(
        session.id,
        first.infra.runtime.owner,
        Date.now(),
      ),
    ).toBeUndefined();
    expect(
      (await promptOperations(first.infra, session.id)).map((op) => [
        promptOf(op).slice(0, 6),
        op.status,
        op.owner,
      ]),
    ).toEqual([
      ['from B', 'running', ownerB],
      ['from A', 'queued', ownerA],
    ]);

    // Starting another Grove while both live changes nothing (their work is not "interrupted").
    const c = await startGrove();
    expect(c.interrupted).toEqual([]);
    expect((await promptOperations(c.infra, session.id)).map((op) => op.status)).toEqual([
      'running',
      'queued',
    ]);
    expect(sessionCalls().map((call) => call.prompt.includes('from B'))).toEqual([true]);
    expect(await status(c.infra, session.id)).toBe('InProgress');

    // B dies mid-turn, and its agent with it (no agent outlives its Grove); A dies too.
    await kill(b);
    await kill(a);
    await vi.waitFor(() => expect(isGone(agent.pid) && isGone(agent.child)).toBe(true), WAIT);

    // A restart, the way Grove starts: the dead owner's running operation fails as interrupted;
    // the prompt A queued stays queued, for whoever drives the session next.
    const restarted = await startGrove();
    expect(restarted.interrupted).toEqual([session.id]);
    expect(
      (await promptOperations(restarted.infra, session.id)).map((op) => [
        promptOf(op).slice(0, 6),
        op.status,
        op.last_error,
      ]),
    ).toEqual([
      ['from B', 'failed', INTERRUPTED_BY_RESTART],
      ['from A', 'queued', null],
    ]);
    expect(await status(restarted.infra, session.id)).toBe('Review');
    expect(restarted.app.state.sessions.find((s) => s.id === session.id)?.status).toBe('Review');
    // Its transcript says what happened.
    expect(
      (await transcript(restarted.infra, session.id))
        .filter((e) => e.kind === 'notice')
        .map((e) => e.content),
    ).toContain(INTERRUPTED_NOTICE);
    expect(existsSync(session.worktreePath)).toBe(true);

    // The restarted process drives the session from here: A's prompt first, then its own.
    expect(
      await restarted.controller.submitPrompt(session.id, 'after restart [[answer:Back]]'),
    ).toBeNull();
    await vi.waitFor(
      async () =>
        expect(
          (await promptOperations(restarted.infra, session.id)).map((op) => op.status),
        ).toEqual(['failed', 'done', 'done']),
      WAIT,
    );
    await restarted.controller.workers.idle(session.id);
    expect(
      (await transcript(restarted.infra, session.id))
        .filter((e) => e.kind === 'assistant_answer')
        .map((e) => e.content),
    ).toEqual(['A ran', 'Back']);
    expect(await status(restarted.infra, session.id)).toBe('Review');
  });

  it('a prompt queued by a live process survives another process starting, and runs when the session is free', async () => {
    const first = await startGrove();
    const session = await newSession(first);
    await first.controller.shutdown();
    const b = await otherGrove(session.id, 'from B [[wait:b]] [[answer:B done]]');
    await vi.waitFor(() => expect(sessionCalls()).toHaveLength(1), WAIT);
    const a = await otherGrove(session.id, 'from A [[answer:A done]]');

    const c = await startGrove();
    expect(c.interrupted).toEqual([]);
    expect((await promptOperations(c.infra, session.id)).map((op) => op.status)).toEqual([
      'running',
      'queued',
    ]);

    // B finishes; A's prompt runs next, in A or in B (whichever worker claims it first), never in parallel.
    release('b');
    await vi.waitFor(
      async () =>
        expect((await promptOperations(c.infra, session.id)).map((op) => op.status)).toEqual([
          'done',
          'done',
        ]),
      WAIT,
    );
    const [fromB, fromA] = await promptOperations(c.infra, session.id);
    expect(fromB?.owner).toBe(ownerOf(b.pid));
    expect([ownerOf(a.pid), ownerOf(b.pid)]).toContain(fromA?.owner);
    expect(fromA?.started_at).toBeGreaterThanOrEqual(fromB?.finished_at ?? Infinity);
    expect(
      (await transcript(c.infra, session.id))
        .filter((e) => e.kind === 'assistant_answer')
        .map((e) => e.content),
    ).toEqual(['B done', 'A done']);
  });
});
