import { chmodSync, chownSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { gate } from '../helpers/fake-model/server.js';
import { git } from '../helpers/grove-env.js';
import { killIfAlive, liveProcesses } from '../helpers/processes.js';
import { hostCodexHome } from '../helpers/host-homes.js';
import { realCliPath } from '../helpers/real-clis.js';
import { ensureHostUser, sshdIt, sshdProblem, startSshd, type TestHost } from '../helpers/sshd.js';
import { expectExit, harness, reply, show, until, type Harness } from './headless-harness.js';
import { heldApproval, hostProcesses, replyAfterKill, transcriptLines } from './host-reattach.js';
import { ListSchema, ResultSchema } from './headless-schema.js';

// Codex on a host (issue 24, item 4), as a person runs it: `grove run --host
// build --agent codex`, `grove reply`, with the built binary, the real pinned
// Codex (its app-server run on the host by the second unix user, grove-host)
// and the fake model server. Codex's app-server is long-lived and two-way:
// its stdout is followed by byte offset, its stdin is a channel on the host
// (an input log fed into a FIFO) that Grove appends to by offset, so a link
// that drops while Grove sends it a line (an approval's answer) delivers that
// line once. The host user is signed in by its own environment (sshd's
// SetEnv: its own CODEX_HOME, whose config points Codex at the fake model,
// and its own key); the person's secrets are set only on this side.

const it = sshdIt();
const ROOT = `.grove-test-codex-${process.pid}`;
const PERSON_KEY = 'sk-person-secret-9b3e1a';
const PERSON_TOKEN = 'ghp_personSecret51c0de';
/** Codex's app-server in the host's process list. */
const APP_SERVER = /codex\S* app-server/;
let h: Harness;
let sshd: TestHost | undefined;
/** The host user's CODEX_HOME and the folder with its `codex`. */
let codexHome: string;
let hostBin: string;
let env: Record<string, string>;

function host(): TestHost {
  if (!sshd) throw new Error('no test sshd');
  return sshd;
}

/** A folder the host user owns. */
function hostOwnedDir(prefix: string): string {
  const user = ensureHostUser();
  const dir = mkdtempSync(join(tmpdir(), prefix));
  chownSync(dir, user.uid, user.gid);
  chmodSync(dir, 0o755);
  return dir;
}

beforeAll(async () => {
  if (sshdProblem() !== null) return;
  h = await harness();
  // In the host user's home, as ~/.codex would be.
  codexHome = hostCodexHome(`.codex-test-${process.pid}`, h.server.url);
  // Codex alone on the host user's PATH (its native binary, which that user can read and run).
  hostBin = hostOwnedDir('grove-host-codex-bin-');
  symlinkSync(realCliPath('codex'), join(hostBin, 'codex'));
  sshd = await startSshd({
    path: [hostBin],
    env: { CODEX_HOME: codexHome, FAKE_OPENAI_KEY: 'sk-host-own' },
  });
  env = {
    GROVE_SSH_CONFIG: sshd.config,
    ANTHROPIC_API_KEY: PERSON_KEY,
    GITHUB_TOKEN: PERSON_TOKEN,
  };
  expectExit(await h.grove(['host', 'add', 'build', sshd.alias, '--root', ROOT], { env }), 0);
}, 60_000);

afterAll(async () => {
  if (!sshd) return;
  await sshd.up();
  sshd.ssh(`rm -rf ${ROOT}`);
  await sshd.stop();
  rmSync(codexHome, { recursive: true, force: true });
  rmSync(hostBin, { recursive: true, force: true });
  await h.close();
});

/** Grove's own ssh processes (their command lines name its socket folder). */
function groveSshProcesses(): { pid: number; cmdline: string }[] {
  const sockets = join(h.world.groveHome, 'ssh');
  return liveProcesses().filter((p) => p.cmdline.startsWith('ssh') && p.cmdline.includes(sockets));
}

/** The host's worktree of a session. */
function hostFile(sessionId: string, file: string): string {
  return host().ssh(`cat ${ROOT}/worktrees/*/${sessionId}/${file}`);
}

describe('Codex on a host', () => {
  it('runs a command in the worktree there, brings the branch back here, and a reply resumes its thread there', async () => {
    h.utilities();
    h.server.script('openai', [
      {
        when: 'make greeting on the host',
        toolCall: { kind: 'shell', command: "printf 'hello\\n' > greeting.txt" },
      },
      { when: 'make greeting on the host', text: reply('I wrote greeting.txt on the host.') },
    ]);
    const run = await h.grove(
      [
        'run',
        '--host',
        'build',
        '--agent',
        'codex',
        '--output',
        'json',
        'make greeting on the host',
      ],
      { env },
    );
    expectExit(run, 0);
    const result = ResultSchema.parse(JSON.parse(run.stdout));
    expect(result.host).toBe('build');
    expect(result.agent).toBe('codex');
    expect(result.answer).toBe('I wrote greeting.txt on the host.');
    expect(hostFile(result.sessionId, 'greeting.txt')).toBe('hello\n');
    expect(git(h.repo, 'show', `${result.branch}:greeting.txt`)).toBe('hello');
    expect(git(result.worktree, 'status', '--porcelain')).toBe('');
    const list = ListSchema.parse(JSON.parse((await h.grove(['ls', '--json'], { env })).stdout));
    expect(list.find((s) => s.sessionId === result.sessionId)?.host).toBe('build');
    // The app-server lives for its turn: none of this file's is left on the host.
    expect(
      hostProcesses(host())
        .split('\n')
        .filter((l) => APP_SERVER.test(l) || l.includes(ROOT)),
    ).toEqual([]);

    h.utilities();
    h.server.script('openai', [
      {
        when: 'add a second line',
        toolCall: { kind: 'shell', command: "printf 'more\\n' >> greeting.txt" },
      },
      { when: 'add a second line', text: reply('Added a line.') },
    ]);
    const second = await h.grove(['reply', result.sessionId, 'add a second line'], { env });
    expectExit(second, 0);
    expect(git(h.repo, 'show', `${result.branch}:greeting.txt`)).toBe('hello\nmore');
    // Codex resumed its thread on the host: the reply's request carries the first turn.
    const replyRequest = h.server
      .modelRequests('openai')
      .find((r) => JSON.stringify(r.body).includes('add a second line'));
    expect(JSON.stringify(replyRequest?.body)).toContain('make greeting on the host');
    const lines = await transcriptLines(h, result.sessionId, env);
    expect(lines.filter((l) => l.startsWith('assistant_answer'))).toEqual([
      'assistant_answer: I wrote greeting.txt on the host.',
      'assistant_answer: Added a line.',
    ]);
  }, 240_000);

  it('loses and repeats no transcript line when the link drops mid-turn, and no secret of the person reaches the host', async () => {
    h.utilities();
    h.server.script('openai', [
      {
        when: 'drop the codex link',
        toolCall: { kind: 'shell', command: 'echo first-step; sleep 6' },
      },
      { when: 'drop the codex link', toolCall: { kind: 'shell', command: 'echo second-step' } },
      { when: 'drop the codex link', text: reply('Done after the drop.') },
    ]);
    const running = h.start(
      ['run', '--host', 'build', '--agent', 'codex', '--output', 'json', 'drop the codex link'],
      { env },
    );
    await until(
      'the agent works on the host',
      () => hostProcesses(host()).includes('sleep 6'),
      120_000,
    );
    const args = hostProcesses(host());
    const environ = host().ssh(
      'for p in /proc/[0-9]*; do cat $p/environ 2>/dev/null | tr "\\0" "\\n"; done; true',
    );
    const ours = groveSshProcesses();
    expect(ours.some((p) => p.cmdline.startsWith('ssh: '))).toBe(true); // the shared connection
    for (const p of ours) killIfAlive(p.pid);
    const run = await running.done;
    expectExit(run, 0);
    expect(args).toContain('bwrap');
    expect(args).toMatch(APP_SERVER);
    for (const seen of [args, environ]) {
      expect(seen).not.toContain(PERSON_KEY);
      expect(seen).not.toContain(PERSON_TOKEN);
      expect(seen).not.toContain('SSH_AUTH_SOCK');
      expect(seen).not.toContain(h.world.dir);
    }
    expect(environ).toContain('FAKE_OPENAI_KEY=sk-host-own');
    const result = ResultSchema.parse(JSON.parse(run.stdout));
    const lines = await transcriptLines(h, result.sessionId, env);
    expect(
      lines.filter((l) => l.includes('first-step')),
      show(run),
    ).toHaveLength(1);
    expect(lines.filter((l) => l.includes('second-step'))).toHaveLength(1);
    expect(lines.filter((l) => l.startsWith('assistant_answer'))).toEqual([
      'assistant_answer: Done after the drop.',
    ]);
  }, 240_000);

  it('an approval answered while the host is away reaches Codex once the link is back, exactly once', async () => {
    const task = 'approve across a drop';
    h.utilities();
    h.server.script('openai', [
      {
        when: task,
        toolCall: { kind: 'shell', command: 'printf x > approved.txt', escalate: true },
      },
      { when: task, text: reply('Approved and written.') },
    ]);
    const running = h.start(
      ['run', '--host', 'build', '--agent', 'codex', '--progress', '--output', 'json', task],
      { env },
    );
    // Codex asks to run the command outside its sandbox: the request is held for the person.
    let held = '';
    await until(
      'the request held in the inbox',
      async () => {
        const inbox = await h.grove(['inbox', '--json'], { env });
        const items = JSON.parse(inbox.stdout || '[]') as { kind: string; approvalId?: string }[];
        held = items.find((i) => i.kind === 'approval')?.approvalId ?? '';
        return held !== '';
      },
      120_000,
    );
    await host().down();
    // Approved while the host cannot be reached: Grove's answer waits to be delivered.
    expectExit(await h.grove(['approve', held.slice(0, 8)], { env }), 0);
    await until(
      'Grove has tried to reach the host a few times',
      () => /Reconnecting to build \(try 3,/.test(running.stderr()),
      60_000,
    );
    expect(running.child.exitCode).toBeNull();
    await host().up();
    const run = await running.done;
    expectExit(run, 0);
    const result = ResultSchema.parse(JSON.parse(run.stdout));
    expect(result.answer).toBe('Approved and written.');
    expect(hostFile(result.sessionId, 'approved.txt')).toBe('x');
    expect(git(h.repo, 'show', `${result.branch}:approved.txt`)).toBe('x');
    // What Grove wrote to Codex's stdin (the run's input log on the host): each message once.
    const sent = host()
      .ssh(`grep -l ${JSON.stringify(task)} ${ROOT}/runs/*/in | xargs cat`)
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { id?: number; method?: string; result?: unknown });
    const answers = sent.filter((m) => m.method === undefined && m.result !== undefined);
    expect(answers, JSON.stringify(sent)).toEqual([
      { id: expect.anything() as unknown, result: { decision: 'accept' } },
    ]);
    const ids = sent.filter((m) => m.method !== undefined && m.id !== undefined).map((m) => m.id);
    expect(new Set(ids).size).toBe(ids.length);
    const lines = await transcriptLines(h, result.sessionId, env);
    expect(
      lines.filter((l) => l.includes('printf x > approved.txt') && l.startsWith('tool')),
    ).toHaveLength(1);
  }, 300_000);

  it('a Grove killed mid-turn (kill -9) is re-attached by the next one: every line once, the held approval answered after, the branch back', async () => {
    const task = 'codex left by a killed grove';
    h.utilities('Codex left by a killed grove');
    h.server.script('openai', [
      { when: task, toolCall: { kind: 'shell', command: 'echo step-one' } },
      {
        when: task,
        toolCall: { kind: 'shell', command: 'printf x > approved.txt', escalate: true },
      },
      { when: task, toolCall: { kind: 'shell', command: 'echo step-three' } },
      { when: task, text: reply('Finished after the re-attach.') },
    ]);
    const before = ListSchema.parse(
      JSON.parse((await h.grove(['ls', '--json'], { env })).stdout),
    ).map((s) => s.sessionId);
    const running = h.start(['run', '--host', 'build', '--agent', 'codex', task], { env });
    // Codex asks to run the second command outside its sandbox: held for the person, who is away.
    const heldId = await heldApproval(h, env, 120_000);
    const sessionId = ListSchema.parse(
      JSON.parse((await h.grove(['ls', '--json'], { env })).stdout),
    ).find((s) => !before.includes(s.sessionId))?.sessionId;
    if (!sessionId) throw new Error('the run made no session');
    await until(
      'the first step is in the transcript',
      async () =>
        (await transcriptLines(h, sessionId, env)).some((l) => l.includes('echo step-one')),
      60_000,
    );
    running.child.kill('SIGKILL');
    await running.done;
    // Codex goes on waiting on the host with no Grove.
    expect(hostProcesses(host())).toMatch(APP_SERVER);

    const sent = await replyAfterKill({
      h,
      env,
      host: host(),
      root: ROOT,
      sessionId,
      task,
      label: 'Codex',
      api: 'openai',
      held: heldId,
      marks: ['echo step-one', 'printf x > approved.txt', 'echo step-three'],
      file: 'approved.txt',
    });
    // One answer to the request, from whichever Grove sent it.
    expect(
      sent.filter((m) => m.method === undefined && m.result !== undefined),
      JSON.stringify(sent),
    ).toEqual([{ id: expect.anything() as unknown, result: { decision: 'accept' } }]);
    expect(sent.filter((m) => m.method === 'turn/start')).toHaveLength(1);
  }, 400_000);
  it('a turn that ended on the host while no Grove was there is read to its end by the next one and finished', async () => {
    const task = 'codex ended while away';
    const resume = gate();
    h.utilities('Codex ended while away');
    h.server.script('openai', [
      { when: task, toolCall: { kind: 'shell', command: 'echo early-step' } },
      {
        when: task,
        until: resume.opened,
        then: { toolCall: { kind: 'shell', command: "printf 'late\\n' > late.txt" } },
      },
      { when: task, text: reply('Done while you were away.') },
    ]);
    // The left turn's requests (the reply's resumed thread carries the task too).
    const asked = (): number =>
      h.server
        .modelRequests('openai')
        .map((r) => JSON.stringify(r.body))
        .filter((body) => body.includes(task) && !body.includes('what comes next')).length;
    const before = ListSchema.parse(
      JSON.parse((await h.grove(['ls', '--json'], { env })).stdout),
    ).map((s) => s.sessionId);
    const running = h.start(['run', '--host', 'build', '--agent', 'codex', task], { env });
    await until('the model waits for its second step', () => asked() >= 2, 120_000);
    const sessionId = ListSchema.parse(
      JSON.parse((await h.grove(['ls', '--json'], { env })).stdout),
    ).find((s) => !before.includes(s.sessionId))?.sessionId;
    if (!sessionId) throw new Error('the run made no session');
    await until(
      'the first step is in the transcript',
      async () =>
        (await transcriptLines(h, sessionId, env)).some((l) => l.includes('echo early-step')),
      60_000,
    );
    running.child.kill('SIGKILL');
    await running.done;
    resume.open();
    // Codex finishes the turn there with no Grove: its turn/completed is in the run's output.
    await until(
      'the turn completed on the host',
      () =>
        host()
          .ssh(
            `for f in ${ROOT}/runs/*/in; do grep -q ${JSON.stringify(task)} "$f" && grep -c turn/completed "$(dirname "$f")/out"; done; true`,
          )
          .trim()
          .split('\n')
          .some((n) => Number(n) > 0),
      120_000,
    );

    h.utilities();
    h.utilities();
    h.server.script('openai', [{ when: 'what comes next', text: reply('Nothing next.') }]);
    const run = await h.grove(['reply', sessionId, '--output', 'json', 'what comes next'], {
      env,
    });
    expectExit(run, 0);
    const lines = await transcriptLines(h, sessionId, env);
    for (const mark of ['echo early-step', 'late.txt'])
      expect(
        lines.filter((l) => l.startsWith('tool') && l.includes(mark)),
        `${mark}\n${lines.join('\n')}\n${show(run)}`,
      ).toHaveLength(1);
    expect(lines.filter((l) => l.startsWith('assistant_answer'))).toEqual([
      'assistant_answer: Done while you were away.',
      'assistant_answer: Nothing next.',
    ]);
    // The model was not asked the left turn again.
    expect(asked()).toBe(3);
    const branch = ResultSchema.parse(JSON.parse(run.stdout)).branch;
    expect(git(h.repo, 'show', `${branch}:late.txt`)).toBe('late');
    expect(hostProcesses(host())).not.toContain(ROOT);
  }, 400_000);
});
