import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { gate } from '../helpers/fake-model/server.js';
import { git } from '../helpers/grove-env.js';
import { startClaudeHost, type ClaudeHost } from '../helpers/claude-host.js';
import { sshdIt, sshdProblem, type TestHost } from '../helpers/sshd.js';
import {
  expectExit,
  harness,
  reply,
  show,
  until,
  type Harness,
  type Running,
  sessionIdOf,
  transcriptOf,
} from './headless-harness.js';
import { ShowSchema } from './headless-schema.js';

// A Grove killed (kill -9) in the middle of a turn on a host (issue 24, item
// 4): the agent goes on there, detached; the next Grove that takes the
// session (here `grove reply`, headless) re-attaches to the run and reads its
// output on from the offset kept with the turn's operation, so the
// transcript has each line once, and the turn ends as any other (the branch
// brought back). Also: a run that ended while Grove was away, a run folder
// the host lost, and a cancel after re-attaching, with a pid file the agent
// rewrote to name another process.

const it = sshdIt();
const ROOT = `.grove-test-reattach-${process.pid}`;
let h: Harness;
let sshd: TestHost | undefined;
let claude: ClaudeHost | undefined;
let env: Record<string, string>;

function host(): TestHost {
  if (!sshd) throw new Error('no test sshd');
  return sshd;
}

beforeAll(async () => {
  if (sshdProblem() !== null) return;
  h = await harness();
  claude = await startClaudeHost(h.server.url);
  sshd = claude.sshd;
  env = { GROVE_SSH_CONFIG: sshd.config };
  expectExit(await h.grove(['host', 'add', 'build', sshd.alias, '--root', ROOT], { env }), 0);
}, 60_000);

afterAll(async () => {
  if (!claude) return;
  await claude.close(ROOT);
  await h.close();
});

/** What the host user runs now (the test host is this machine: that user's processes, seen without ssh). */
function onHost(): string {
  return execFileSync('ps', ['-u', host().user, '-o', 'args='], { encoding: 'utf8' });
}

/** How many requests of the turn whose prompt has `mark` the model was sent. */
function asked(mark: string): number {
  return h.server
    .modelRequests('anthropic')
    .map((r) => JSON.stringify(r.body))
    .filter((body) => body.includes(mark) && !body.includes('Write a title for a coding task'))
    .length;
}

/** The commit message of one more turn (the title was written by the Grove that was killed). */
function commitMessage(text: string): void {
  h.server.script('anthropic', [
    { when: 'Write the git commit message for the changes', text: reply(text) },
  ]);
}

const sessionOf = (title: string): Promise<string> => sessionIdOf(h, title, env);

const transcript = (sessionId: string): Promise<string[]> => transcriptOf(h, sessionId, env);

/** Starts `grove run --host build` and kills it (-9) once the agent waits at `held` with `first` in the transcript. */
async function killedMidTurn(
  title: string,
  prompt: string,
  first: string,
  before: number,
): Promise<{ sessionId: string; killed: Running }> {
  const killed = h.start(['run', '--host', 'build', '--output', 'json', prompt], { env });
  await until('the agent waits for its next step', () => asked(prompt) >= before + 2, 120_000);
  const sessionId = await sessionOf(title);
  await until(
    'the first step is in the transcript',
    async () => (await transcript(sessionId)).some((l) => l.includes(first)),
    60_000,
  );
  killed.child.kill('SIGKILL');
  await killed.done;
  return { sessionId, killed };
}

function once(lines: readonly string[], text: string): number {
  return lines.filter((l) => l.includes(text)).length;
}

describe('a Grove killed mid-turn on a host', () => {
  it('re-attaches on its next start: every line of the turn once, the turn ends and its branch comes back', async () => {
    const resume = gate();
    const prompt = 'reattach after a kill';
    h.utilities('Reattach after a kill');
    h.server.script('anthropic', [
      { when: prompt, toolCall: { kind: 'shell', command: 'echo step-one' } },
      {
        when: prompt,
        until: resume.opened,
        then: { toolCall: { kind: 'shell', command: "printf 'back\\n' > back.txt" } },
      },
      { when: prompt, toolCall: { kind: 'shell', command: 'echo step-three' } },
      { when: prompt, text: reply('Finished on the host.') },
    ]);
    const before = asked(prompt);
    const { sessionId } = await killedMidTurn('Reattach after a kill', prompt, 'step-one', before);
    // The agent goes on on the host with no Grove.
    expect(onHost()).toMatch(/claude\S* -p/);

    commitMessage('Write back.txt\n\nThe agent wrote it on the host.');
    h.server.script('anthropic', [{ when: 'and then one more', text: reply('One more done.') }]);
    const next = h.start(['reply', sessionId, 'and then one more'], { env });
    await until(
      'the new Grove re-attached',
      async () => (await transcript(sessionId)).some((l) => l.includes('[Re-attached]')),
      120_000,
    );
    resume.open();
    const run = await next.done;
    expectExit(run, 0);

    const lines = await transcript(sessionId);
    for (const mark of ['echo step-one', 'back.txt', 'echo step-three'])
      expect(once(lines, mark), `${mark}\n${lines.join('\n')}\n${show(run)}`).toBe(1);
    expect(lines.filter((l) => l.startsWith('user_prompt'))).toEqual([
      `user_prompt: ${prompt}`,
      'user_prompt: and then one more',
    ]);
    expect(lines.filter((l) => l.startsWith('assistant_answer'))).toEqual([
      'assistant_answer: Finished on the host.',
      'assistant_answer: One more done.',
    ]);
    expect(once(lines, '[Interrupted]') + once(lines, '[Restart]')).toBe(0);
    const shown = ShowSchema.parse(
      JSON.parse((await h.grove(['show', sessionId, '--json'], { env })).stdout),
    );
    expect(git(h.repo, 'show', `${shown.branch}:back.txt`)).toBe('back');
  }, 400_000);

  it('finishes a turn whose run ended while no Grove was there: read to its end, the branch brought back', async () => {
    const resume = gate();
    const prompt = 'ended while away';
    h.utilities('Ended while away');
    h.server.script('anthropic', [
      { when: prompt, toolCall: { kind: 'shell', command: 'echo early-step' } },
      {
        when: prompt,
        until: resume.opened,
        then: { toolCall: { kind: 'shell', command: "printf 'late\\n' > late.txt" } },
      },
      { when: prompt, text: reply('Done while you were away.') },
    ]);
    const before = asked(prompt);
    const { sessionId } = await killedMidTurn('Ended while away', prompt, 'early-step', before);
    resume.open();
    await until('the run ended on the host', () => !/claude\S* -p/.test(onHost()), 120_000);
    expect(asked(prompt)).toBeGreaterThanOrEqual(before + 3);

    commitMessage('Write late.txt\n\nWritten while Grove was away.');
    h.server.script('anthropic', [{ when: 'what next', text: reply('Nothing next.') }]);
    const run = await h.grove(['reply', sessionId, 'what next'], { env });
    expectExit(run, 0);
    const lines = await transcript(sessionId);
    expect(once(lines, 'echo early-step'), lines.join('\n')).toBe(1);
    expect(once(lines, 'late.txt')).toBe(1);
    expect(lines.filter((l) => l.startsWith('assistant_answer'))).toEqual([
      'assistant_answer: Done while you were away.',
      'assistant_answer: Nothing next.',
    ]);
    const shown = ShowSchema.parse(
      JSON.parse((await h.grove(['show', sessionId, '--json'], { env })).stdout),
    );
    expect(git(h.repo, 'show', `${shown.branch}:late.txt`)).toBe('late');
  }, 400_000);

  it('ends the turn in words when the host lost the run, keeping what the agent wrote', async () => {
    const prompt = 'lost run folder';
    h.utilities('Lost run folder');
    h.server.script('anthropic', [
      { when: prompt, toolCall: { kind: 'shell', command: 'touch kept.txt; echo wrote-it' } },
      { when: prompt, toolCall: { kind: 'shell', command: 'echo holding; sleep 302' } },
    ]);
    const before = asked(prompt);
    const { sessionId } = await killedMidTurn('Lost run folder', prompt, 'wrote-it', before);
    await until('the agent sleeps on the host', () => onHost().includes('sleep 302'), 60_000).catch(
      async (error: unknown) => {
        throw new Error(
          `${String(error)}\n${onHost()}\n${(await transcript(sessionId)).join('\n')}`,
        );
      },
    );
    // The host is cleaned: its processes of the run ended, the run folders removed.
    host().ssh(
      `for f in ${ROOT}/runs/*/pid; do kill -KILL "-$(cat "$f")"; done; rm -rf ${ROOT}/runs; true`,
    );
    await until('the run is gone on the host', () => !onHost().includes('sleep 302'), 30_000);

    commitMessage('Keep kept.txt');
    h.server.script('anthropic', [{ when: 'go on after the loss', text: reply('Went on.') }]);
    const run = await h.grove(['reply', sessionId, 'go on after the loss'], { env });
    expectExit(run, 0);
    const lines = await transcript(sessionId);
    const error = lines.find((l) => l.includes('is no longer on build'));
    expect(error, lines.join('\n')).toMatch(/folder is gone/);
    expect(once(lines, 'wrote-it')).toBe(1);
    expect(lines.filter((l) => l.startsWith('assistant_answer'))).toEqual([
      'assistant_answer: Went on.',
    ]);
    const shown = ShowSchema.parse(
      JSON.parse((await h.grove(['show', sessionId, '--json'], { env })).stdout),
    );
    expect(git(h.repo, 'ls-tree', '--name-only', shown.branch)).toContain('kept.txt');
  }, 400_000);

  it('a cancel after re-attaching ends the run on the host, not the process a rewritten pid file names', async () => {
    const prompt = 'cancel after reattach';
    h.utilities('Cancel after reattach');
    h.server.script('anthropic', [
      { when: prompt, toolCall: { kind: 'shell', command: 'echo started-it' } },
      { when: prompt, toolCall: { kind: 'shell', command: 'echo holding; sleep 303' } },
    ]);
    const before = asked(prompt);
    const { sessionId } = await killedMidTurn(
      'Cancel after reattach',
      prompt,
      'started-it',
      before,
    );
    await until('the agent sleeps on the host', () => onHost().includes('sleep 303'), 60_000);
    // Another process of the host user, in a process group of its own; the agent names it in its pid file.
    const decoy = host()
      .ssh(`setsid sh -c 'exec sleep 304' </dev/null >/dev/null 2>&1 & echo $!`)
      .trim();
    await until('the decoy runs', () => onHost().includes('sleep 304'), 30_000);
    host().ssh(
      `for d in ${ROOT}/runs/*/; do [ -e "$d/exit" ] || echo ${decoy} > "$d/pid"; done; true`,
    );

    const next = h.start(['reply', sessionId, 'never sent'], { env });
    await until(
      'the new Grove re-attached',
      async () => (await transcript(sessionId)).some((l) => l.includes('[Re-attached]')),
      120_000,
    );
    expectExit(await h.grove(['cancel', sessionId, '--yes'], { env }), 0);
    await until('the agent is gone on the host', () => !onHost().includes('sleep 303'), 60_000);
    expect(onHost()).toContain('sleep 304');
    next.child.kill('SIGTERM');
    await next.done;
    host().ssh(`kill ${decoy}; true`);
    const lines = await transcript(sessionId);
    expect(once(lines, 'echo started-it'), lines.join('\n')).toBe(1);
  }, 400_000);

  it('grove cancel of a turn no Grove re-attached to ends its run on the host and keeps what the agent wrote', async () => {
    const prompt = 'cancel while left alone';
    h.utilities('Cancel while left alone');
    h.server.script('anthropic', [
      {
        when: prompt,
        toolCall: {
          kind: 'shell',
          command: "printf 'so far\\n' > partial.txt; echo wrote-partial",
        },
      },
      { when: prompt, toolCall: { kind: 'shell', command: 'echo holding; sleep 305' } },
    ]);
    const before = asked(prompt);
    const { sessionId } = await killedMidTurn(
      'Cancel while left alone',
      prompt,
      'wrote-partial',
      before,
    );
    await until('the agent sleeps on the host', () => onHost().includes('sleep 305'), 60_000);
    commitMessage('Keep partial.txt');

    const cancel = await h.grove(['cancel', sessionId, '--yes'], { env });
    expectExit(cancel, 0);
    // Its whole process group ended: the agent, its shell and the sleep it started.
    await until(
      'the run is gone on the host',
      () => !onHost().includes('sleep 305') && !/claude\S* -p/.test(onHost()),
      60_000,
    ).catch((error: unknown) => {
      throw new Error(`${String(error)}\n${onHost()}\n${show(cancel)}`);
    });
    const lines = await transcript(sessionId);
    expect(lines.join('\n')).toContain("[Cancel] The agent's run on build was stopped");
    const shown = ShowSchema.parse(
      JSON.parse((await h.grove(['show', sessionId, '--json'], { env })).stdout),
    );
    expect(shown.status).toBe('Canceled');
    expect(git(h.repo, 'show', `${shown.branch}:partial.txt`)).toBe('so far');
  }, 400_000);

  it('grove cancel of such a turn while the host is away says the agent may go on there', async () => {
    const prompt = 'cancel while the host is away';
    h.utilities('Cancel while the host is away');
    h.server.script('anthropic', [
      { when: prompt, toolCall: { kind: 'shell', command: 'echo before-away' } },
      { when: prompt, toolCall: { kind: 'shell', command: 'echo holding; sleep 306' } },
    ]);
    const before = asked(prompt);
    const { sessionId } = await killedMidTurn(
      'Cancel while the host is away',
      prompt,
      'before-away',
      before,
    );
    await until('the agent sleeps on the host', () => onHost().includes('sleep 306'), 60_000);
    commitMessage('Nothing to keep');
    await host().down();
    try {
      expectExit(await h.grove(['cancel', sessionId, '--yes'], { env }), 0);
      const lines = await transcript(sessionId);
      expect(lines.join('\n')).toMatch(
        /\[Error\] Could not stop the agent's run on build \([\s\S]+\)\. It may still be working there/,
      );
      // The run goes on, detached; nothing claimed it was stopped.
      expect(onHost()).toContain('sleep 306');
    } finally {
      await host().up();
      host().ssh(
        `for f in ${ROOT}/runs/*/pid; do kill -KILL "-$(cat "$f")" 2>/dev/null; done; true`,
      );
    }
    await until('the run is gone on the host', () => !onHost().includes('sleep 306'), 30_000);
  }, 400_000);
});
