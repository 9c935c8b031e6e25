import { rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { git } from '../helpers/grove-env.js';
import { killIfAlive, liveProcesses } from '../helpers/processes.js';
import { hostGeminiHome, hostHomeDir } from '../helpers/host-homes.js';
import { realCliPath } from '../helpers/real-clis.js';
import { sshdIt, sshdProblem, startSshd, type TestHost } from '../helpers/sshd.js';
import { expectExit, harness, reply, show, until, type Harness } from './headless-harness.js';
import { heldApproval, hostProcesses, replyAfterKill, transcriptLines } from './host-reattach.js';
import { ResultSchema } from './headless-schema.js';

// Gemini CLI on a host (issue 24, item 4), as a person runs it: `grove run
// --host build --agent gemini`, `grove reply`, with the built binary, the real
// pinned Gemini CLI (`gemini --acp` run on the host by the second unix user,
// grove-host, with the host's own node) and the fake model server. Its ACP
// stdio goes through the same channel on the host as Codex's app-server
// (hosts-codex.test.ts, hosts-remote-server.test.ts): every permission request
// Gemini CLI makes is answered by Grove through it. The host user is signed in
// by its own environment (sshd's SetEnv: its own GEMINI_CLI_HOME, whose
// settings pick the API key, and its own key and model URL).

const it = sshdIt();
const ROOT = `.grove-test-gemini-${process.pid}`;
const PERSON_KEY = 'sk-person-secret-2c7f0d';
let h: Harness;
let sshd: TestHost | undefined;
/** The host user's GEMINI_CLI_HOME and the folder with its `gemini`. */
let geminiHome: string;
let hostBin: string;
let env: Record<string, string>;

function host(): TestHost {
  if (!sshd) throw new Error('no test sshd');
  return sshd;
}

beforeAll(async () => {
  if (sshdProblem() !== null) return;
  h = await harness();
  geminiHome = hostGeminiHome(`.gemini-home-test-${process.pid}`);
  // Gemini CLI alone on the host user's PATH (its bundle, run by the host's own node).
  hostBin = hostHomeDir(`.gemini-bin-test-${process.pid}`);
  symlinkSync(realCliPath('gemini'), join(hostBin, 'gemini'));
  sshd = await startSshd({
    path: [hostBin],
    env: {
      GEMINI_CLI_HOME: geminiHome,
      GOOGLE_GEMINI_BASE_URL: h.server.url,
      GEMINI_API_KEY: 'host-own-key',
      GEMINI_CLI_NO_RELAUNCH: 'true',
    },
  });
  env = { GROVE_SSH_CONFIG: sshd.config, GEMINI_API_KEY: PERSON_KEY };
  expectExit(await h.grove(['host', 'add', 'build', sshd.alias, '--root', ROOT], { env }), 0);
}, 60_000);

afterAll(async () => {
  if (!sshd) return;
  await sshd.up();
  sshd.ssh(`rm -rf ${ROOT}`);
  await sshd.stop();
  rmSync(geminiHome, { recursive: true, force: true });
  rmSync(hostBin, { recursive: true, force: true });
  await h.close();
});

/** Grove's own ssh processes (their command lines name its socket folder). */
function groveSshProcesses(): { pid: number; cmdline: string }[] {
  const sockets = join(h.world.groveHome, 'ssh');
  return liveProcesses().filter((p) => p.cmdline.startsWith('ssh') && p.cmdline.includes(sockets));
}

function hostFile(sessionId: string, file: string): string {
  return host().ssh(`cat ${ROOT}/worktrees/*/${sessionId}/${file}`);
}

function minuteNow(): number {
  return Math.floor(Date.now() / 60_000);
}

describe('Gemini CLI on a host', () => {
  it('runs a command in the worktree there, brings the branch back here, and a reply reloads its session there', async () => {
    const task = 'make gemini greeting on the host';
    h.utilities();
    h.server.script('gemini', [
      { when: task, toolCall: { kind: 'shell', command: "printf 'hello\\n' > greeting.txt" } },
      { when: task, text: reply('I wrote greeting.txt on the host.') },
    ]);
    const run = await h.grove(
      ['run', '--host', 'build', '--agent', 'gemini', '--output', 'json', task],
      { env },
    );
    expectExit(run, 0);
    const startedIn = minuteNow();
    const result = ResultSchema.parse(JSON.parse(run.stdout));
    expect(result.host).toBe('build');
    expect(result.agent).toBe('gemini');
    expect(result.answer).toBe('I wrote greeting.txt on the host.');
    expect(hostFile(result.sessionId, 'greeting.txt')).toBe('hello\n');
    expect(git(h.repo, 'show', `${result.branch}:greeting.txt`)).toBe('hello');
    // The ACP process lives for its turn: none of this file's is left on the host.
    expect(
      hostProcesses(host())
        .split('\n')
        .filter((l) => l.includes('--acp') || l.includes(ROOT)),
    ).toEqual([]);

    // Gemini CLI reloads a session only in a later minute than the one it was made in.
    await until('the next minute', () => minuteNow() > startedIn, 70_000);
    h.utilities();
    h.server.script('gemini', [
      {
        when: 'add a gemini line',
        toolCall: { kind: 'shell', command: "printf 'more\\n' >> greeting.txt" },
      },
      { when: 'add a gemini line', text: reply('Added a line.') },
    ]);
    const second = await h.grove(['reply', result.sessionId, 'add a gemini line'], { env });
    expectExit(second, 0);
    expect(git(h.repo, 'show', `${result.branch}:greeting.txt`)).toBe('hello\nmore');
    // The session was reloaded on the host (no replay of the transcript): the reply's request carries the first turn.
    const replyRequest = h.server
      .modelRequests('gemini')
      .find((r) => JSON.stringify(r.body).includes('add a gemini line'));
    expect(JSON.stringify(replyRequest?.body)).toContain(task);
    const lines = await transcriptLines(h, result.sessionId, env);
    expect(lines.filter((l) => l.includes('[Resume]'))).toEqual([]);
    expect(lines.filter((l) => l.startsWith('assistant_answer'))).toEqual([
      'assistant_answer: I wrote greeting.txt on the host.',
      'assistant_answer: Added a line.',
    ]);
  }, 240_000);

  it('loses and repeats no transcript line when the link drops mid-turn, and the person key stays here', async () => {
    const task = 'drop the gemini link';
    h.utilities();
    h.server.script('gemini', [
      { when: task, toolCall: { kind: 'shell', command: 'echo first-step; sleep 6' } },
      { when: task, toolCall: { kind: 'shell', command: 'echo second-step' } },
      { when: task, text: reply('Done after the drop.') },
    ]);
    const running = h.start(
      ['run', '--host', 'build', '--agent', 'gemini', '--output', 'json', task],
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
    for (const p of groveSshProcesses()) killIfAlive(p.pid);
    const run = await running.done;
    expectExit(run, 0);
    expect(args).toContain('bwrap');
    for (const seen of [args, environ]) {
      expect(seen).not.toContain(PERSON_KEY);
      expect(seen).not.toContain(h.world.dir);
    }
    expect(environ).toContain('GEMINI_API_KEY=host-own-key');
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

  it('a Grove killed mid-turn (kill -9) is re-attached by the next one: every line once, the held permission answered after, the branch back', async () => {
    const task = 'gemini left by a killed grove';
    h.utilities('Gemini left by a killed grove');
    h.server.script('gemini', [
      { when: task, toolCall: { kind: 'shell', command: 'echo step-one' } },
      { when: task, toolCall: { kind: 'shell', command: 'printf x > approved.txt' } },
      { when: task, text: reply('Finished after the re-attach.') },
    ]);
    // Read Only: a command that writes is held for the person.
    const running = h.start(
      ['run', '--host', 'build', '--agent', 'gemini', '--mode', 'read-only', task],
      { env },
    );
    // `echo` runs as a read; the write is held for the person, who is away.
    const held = await heldApproval(h, env, 120_000);
    const listed = JSON.parse((await h.grove(['ls', '--json'], { env })).stdout) as {
      sessionId: string;
      agent: string;
      status: string;
    }[];
    const sessionId = listed.find(
      (s) => s.agent === 'gemini' && s.status === 'InProgress',
    )?.sessionId;
    if (!sessionId) throw new Error('the run left no session in progress');
    await until(
      'the first step is in the transcript',
      async () =>
        (await transcriptLines(h, sessionId, env)).some(
          (l) => l.startsWith('tool') && l.includes('step-one'),
        ),
      60_000,
    );
    running.child.kill('SIGKILL');
    await running.done;
    // Gemini CLI goes on waiting for its answer on the host with no Grove.
    expect(hostProcesses(host())).toContain('--acp');

    const sent = await replyAfterKill({
      h,
      env,
      host: host(),
      root: ROOT,
      sessionId,
      task,
      label: 'Gemini CLI',
      api: 'gemini',
      held,
      marks: ['step-one', 'approved.txt'],
      file: 'approved.txt',
    });
    // One answer per permission request.
    expect(
      sent.filter((m) => m.method === undefined && m.result !== undefined),
      JSON.stringify(sent),
    ).toHaveLength(1);
    expect(sent.filter((m) => m.method === 'session/prompt')).toHaveLength(1);
  }, 400_000);
});
