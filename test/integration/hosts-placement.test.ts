import { afterAll, beforeAll, describe, expect } from 'vitest';
import { MAX_TURNS_KEY } from '../../src/domain/admission.js';
import { installAcpAgent } from '../helpers/acp-agent.js';
import { startClaudeHost, type ClaudeHost } from '../helpers/claude-host.js';
import { git } from '../helpers/grove-env.js';
import { withStore } from '../helpers/seed.js';
import { sshdIt, sshdProblem } from '../helpers/sshd.js';
import { waitUntil } from '../helpers/wait.js';
import { expectExit, harness, reply, type Harness } from './headless-harness.js';
import { ListSchema, ResultSchema, ShowSchema } from './headless-schema.js';

// Placement (issue 24, item 6) with the built binary, the test sshd of
// test/helpers/sshd.ts (a second unix user) and the real Claude Code there:
// `grove run --host auto` with this machine full (Most turns at once 0)
// reads the host's free memory and load over the shared connection, runs the
// session there and records it; with the host full too, the first turn waits
// in the queue, in words, and starts there once the host has room.

const it = sshdIt();
const ROOT = `.grove-test-placement-${process.pid}`;
let h: Harness;
let host: ClaudeHost | undefined;
let env: Record<string, string>;

async function setGlobal(key: string, value: string): Promise<void> {
  await withStore(h.world.groveHome, (store) => store.settings.setGlobal(key, value));
}

async function hostsNow(): Promise<
  {
    name: string;
    max: number | null;
    running: number;
    load: { availableBytes: number; load1: number; cores: number; readAt: string } | null;
  }[]
> {
  const ls = await h.grove(['host', 'ls', '--json'], { env });
  expectExit(ls, 0);
  return JSON.parse(ls.stdout) as never;
}

function scriptWrite(prompt: string, text: string): void {
  h.utilities('Write where');
  h.server.script('anthropic', [
    { when: prompt, toolCall: { kind: 'shell', command: `printf '${text}\\n' > where.txt` } },
    { when: prompt, text: reply('Wrote where.txt.') },
  ]);
}

beforeAll(async () => {
  if (sshdProblem() !== null) return;
  h = await harness();
  host = await startClaudeHost(h.server.url);
  env = { GROVE_SSH_CONFIG: host.sshd.config };
  expectExit(
    await h.grove(['host', 'add', 'build', host.sshd.alias, '--root', ROOT, '--max', '1'], {
      env,
    }),
    0,
  );
  // A host that cannot be reached (nothing listens on port 1 here): skipped, in words.
  expectExit(await h.grove(['host', 'add', 'gone', 'ssh://nobody@127.0.0.1:1'], { env }), 0);
  // The project is registered by its first command.
  expectExit(await h.grove(['ls', '--json'], { env }), 0);
  await setGlobal(MAX_TURNS_KEY, '0');
}, 60_000);

afterAll(async () => {
  if (!host) return;
  await host.close(ROOT);
  await h.close();
});

describe('placement with the host auto', () => {
  it('runs a session on the host when this machine is full, and records it on the session', async () => {
    expect(await hostsNow()).toMatchObject([
      { name: 'build', max: 1, running: 0, load: null },
      { name: 'gone', max: null, running: 0, load: null },
    ]);
    scriptWrite('write where auto placed it', 'placed');
    const run = await h.grove(
      ['run', '--host', 'auto', '--output', 'json', 'write where auto placed it'],
      { env },
    );
    expectExit(run, 0);
    const result = ResultSchema.parse(JSON.parse(run.stdout));
    expect(result.host).toBe('build');
    // The agent ran on the host, in its worktree there, and the work came back.
    expect(host?.sshd.ssh(`cat ${ROOT}/worktrees/*/${result.sessionId}/where.txt`)).toBe(
      'placed\n',
    );
    expect(git(h.repo, 'show', `${result.branch}:where.txt`)).toBe('placed');
    const shown = ShowSchema.parse(
      JSON.parse((await h.grove(['show', result.sessionId, '--json'], { env })).stdout),
    );
    expect(shown.host).toBe('build');
    const placed = shown.transcript.find((e) => e.content.startsWith('[Placement]'));
    expect(placed?.content).toMatch(
      /^\[Placement\] The session runs on build \(ssh \S+; load \d+\.\d\d, \d+\.\d GB free, 1 turns at most\)\. No room elsewhere: this machine: 0 of 0 running; gone: ssh to ssh:\/\/nobody@127\.0\.0\.1:1 failed: .*Connection refused\.$/,
    );
    // The reading is kept: grove host ls --json shows it.
    const [build, gone] = await hostsNow();
    expect(gone?.load).toBeNull();
    expect(build?.load?.availableBytes).toBeGreaterThan(0);
    expect(build?.load?.cores).toBeGreaterThan(0);
    expect(Date.parse(build?.load?.readAt ?? '')).toBeGreaterThan(Date.now() - 120_000);
  }, 180_000);

  it('keeps the first turn queued, in words, while no place has room, and starts it on the host once it has', async () => {
    expectExit(await h.grove(['host', 'set', 'build', 'max', '0'], { env }), 0);
    scriptWrite('write once there is room', 'waited');
    const running = h.start(
      ['run', '--host', 'auto', '--output', 'json', 'write once there is room'],
      { env },
    );
    const queued = async (): Promise<string | undefined> => {
      const ls = ListSchema.parse(JSON.parse((await h.grove(['ls', '--json'], { env })).stdout));
      const session = ls.find((s) => s.host === null && s.status !== 'Review');
      if (!session) return undefined;
      const shown = ShowSchema.parse(
        JSON.parse((await h.grove(['show', session.sessionId, '--json'], { env })).stdout),
      );
      return shown.transcript.find((e) => e.content.startsWith('[Admission]'))?.content;
    };
    let said: string | undefined;
    await waitUntil('the queued notice', async () => (said = await queued()) !== undefined, 60_000);
    expect(said).toMatch(
      /^\[Admission\] The turn is queued, waiting for a place with room: this machine: 0 of 0 running; build: 0 of 0 running; gone: ssh to ssh:\/\/nobody@127\.0\.0\.1:1 failed: .*Connection refused\.$/,
    );
    expect(
      h.server.requests.some((r) => JSON.stringify(r.body).includes('write once there is room')),
    ).toBe(false);
    expectExit(await h.grove(['host', 'set', 'build', 'max', '2'], { env }), 0);
    const run = await running.done;
    expectExit(run, 0);
    const result = ResultSchema.parse(JSON.parse(run.stdout));
    expect(result.host).toBe('build');
    expect(git(h.repo, 'show', `${result.branch}:where.txt`)).toBe('waited');
  }, 180_000);

  it("holds a session sent to the host by name to the host's maximum, in words, until it has room", async () => {
    expectExit(await h.grove(['host', 'set', 'build', 'max', '0'], { env }), 0);
    scriptWrite('write on build once it has a slot', 'named');
    const running = h.start(
      ['run', '--host', 'build', '--output', 'json', 'write on build once it has a slot'],
      { env },
    );
    const queued = async (): Promise<string | undefined> => {
      const ls = ListSchema.parse(JSON.parse((await h.grove(['ls', '--json'], { env })).stdout));
      const session = ls.find((s) => s.host === 'build' && s.status !== 'Review');
      if (!session) return undefined;
      const shown = ShowSchema.parse(
        JSON.parse((await h.grove(['show', session.sessionId, '--json'], { env })).stdout),
      );
      return shown.transcript.find((e) => e.content.startsWith('[Admission]'))?.content;
    };
    expect(await waitUntil('the queued notice', queued, 60_000)).toBe(
      '[Admission] The turn is queued, waiting for a turn slot on build: 0 of 0 running.',
    );
    expect(
      h.server.requests.some((r) => JSON.stringify(r.body).includes('on build once it has')),
    ).toBe(false);
    expectExit(await h.grove(['host', 'set', 'build', 'max', '1'], { env }), 0);
    const run = await running.done;
    expectExit(run, 0);
    const result = ResultSchema.parse(JSON.parse(run.stdout));
    expect(git(h.repo, 'show', `${result.branch}:where.txt`)).toBe('named');
  }, 180_000);

  it('keeps an agent that cannot run on hosts on this machine: it waits for room here while the host has room', async () => {
    installAcpAgent(h.world);
    expectExit(await h.grove(['host', 'set', 'build', 'max', '2'], { env }), 0);
    h.utilities('Write the note');
    const running = h.start(
      ['run', '--host', 'auto', '--agent', 'tiny', '--output', 'json', 'Write the note'],
      {
        env,
      },
    );
    const queued = async (): Promise<string | undefined> => {
      const ls = ListSchema.parse(JSON.parse((await h.grove(['ls', '--json'], { env })).stdout));
      const session = ls.find((s) => s.agent === 'acp:tiny');
      if (!session) return undefined;
      const shown = ShowSchema.parse(
        JSON.parse((await h.grove(['show', session.sessionId, '--json'], { env })).stdout),
      );
      return shown.transcript.find((e) => e.content.startsWith('[Admission]'))?.content;
    };
    expect(await waitUntil('the queued notice', queued, 60_000)).toBe(
      '[Admission] The turn is queued, waiting for a turn slot: 0 of 0 running.',
    );
    await setGlobal(MAX_TURNS_KEY, '1');
    const run = await running.done;
    expectExit(run, 0);
    const result = ResultSchema.parse(JSON.parse(run.stdout));
    expect(result.host).toBeNull();
    expect(git(h.repo, 'show', `${result.branch}:acp-note.txt`)).toBe('written by the ACP agent');
    const shown = ShowSchema.parse(
      JSON.parse((await h.grove(['show', result.sessionId, '--json'], { env })).stdout),
    );
    expect(shown.transcript.map((e) => e.content)).toContain(
      '[Placement] The session runs on this machine.',
    );
  }, 180_000);
});
