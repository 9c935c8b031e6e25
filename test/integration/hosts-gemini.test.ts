import { execFileSync } from 'node:child_process';
import { rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { git } from '../helpers/grove-env.js';
import { killIfAlive, liveProcesses } from '../helpers/processes.js';
import { hostGeminiHome, hostHomeDir } from '../helpers/host-homes.js';
import { realCliPath } from '../helpers/real-clis.js';
import { sshdIt, sshdProblem, startSshd, type TestHost } from '../helpers/sshd.js';
import { expectExit, harness, reply, show, until, type Harness } from './headless-harness.js';
import { ResultSchema, ShowSchema } from './headless-schema.js';

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

/** What the host user runs now (the test host is this machine), seen without ssh. */
function hostProcesses(): string {
  try {
    return execFileSync('ps', ['-u', host().user, '-o', 'args='], { encoding: 'utf8' });
  } catch {
    return ''; // ps exits 1 when the user runs nothing
  }
}

function hostFile(sessionId: string, file: string): string {
  return host().ssh(`cat ${ROOT}/worktrees/*/${sessionId}/${file}`);
}

async function transcript(sessionId: string): Promise<string[]> {
  const shown = ShowSchema.parse(
    JSON.parse((await h.grove(['show', sessionId, '--json'], { env })).stdout),
  );
  return shown.transcript.map((e) => `${e.kind}: ${e.content.split('\n')[0] ?? ''}`);
}

function minuteNow(): number {
  return Math.floor(Date.now() / 60_000);
}

/** The id of an approval waiting in the inbox that is not one of `seen`, once there is one. */
async function heldApproval(timeoutMs: number, seen: readonly string[]): Promise<string> {
  let held = '';
  await until(
    'a request held in the inbox',
    async () => {
      const inbox = await h.grove(['inbox', '--json'], { env });
      const items = JSON.parse(inbox.stdout || '[]') as { kind: string; approvalId?: string }[];
      held =
        items.find((i) => i.kind === 'approval' && !seen.includes(i.approvalId ?? ''))
          ?.approvalId ?? '';
      return held !== '';
    },
    timeoutMs,
  );
  return held;
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
      hostProcesses()
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
    const lines = await transcript(result.sessionId);
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
    await until('the agent works on the host', () => hostProcesses().includes('sleep 6'), 120_000);
    const args = hostProcesses();
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
    const lines = await transcript(result.sessionId);
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
    const held = await heldApproval(120_000, []);
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
        (await transcript(sessionId)).some((l) => l.startsWith('tool') && l.includes('step-one')),
      60_000,
    );
    running.child.kill('SIGKILL');
    await running.done;
    // Gemini CLI goes on waiting for its answer on the host with no Grove.
    expect(hostProcesses()).toContain('--acp');

    h.utilities();
    h.utilities();
    h.server.script('gemini', [{ when: 'and one more', text: reply('One more done.') }]);
    const next = h.start(['reply', sessionId, '--progress', '--output', 'json', 'and one more'], {
      env,
    });
    await until(
      'the new Grove re-attached',
      async () => (await transcript(sessionId)).some((l) => l.includes('[Re-attached]')),
      120_000,
    );
    // The request still waits: the same one in the inbox, held again by this Grove and answered now.
    await until(
      'this Grove waits for the answer',
      () => next.stderr().includes('Waiting for your approval'),
      120_000,
    );
    expect(await heldApproval(60_000, [])).toBe(held);
    expectExit(await h.grove(['approve', held.slice(0, 8)], { env }), 0);
    const run = await next.done;
    expectExit(run, 0);
    expect(ResultSchema.parse(JSON.parse(run.stdout)).answer).toBe('One more done.');

    const lines = await transcript(sessionId);
    const once = (text: string): number => lines.filter((l) => l.includes(text)).length;
    for (const mark of ['step-one', 'approved.txt'])
      expect(
        lines.filter((l) => l.startsWith('tool') && l.includes(mark)),
        `${mark}\n${lines.join('\n')}\n${show(run)}`,
      ).toHaveLength(1);
    expect(once('[Approval] Gemini CLI asks to run')).toBe(1);
    expect(once('[Approved] Gemini CLI asked to run')).toBe(1);
    expect(once('[Re-attached]')).toBe(1);
    expect(lines.filter((l) => l.startsWith('user_prompt'))).toEqual([
      `user_prompt: ${task}`,
      'user_prompt: and one more',
    ]);
    expect(lines.filter((l) => l.startsWith('assistant_answer'))).toEqual([
      'assistant_answer: Finished after the re-attach.',
      'assistant_answer: One more done.',
    ]);
    expect(lines.filter((l) => l.includes('cannot be taken over'))).toEqual([]);
    const branch = ResultSchema.parse(JSON.parse(run.stdout)).branch;
    expect(git(h.repo, 'show', `${branch}:approved.txt`)).toBe('x');
    // Every run of this file on the host has ended (the left one and the reply's).
    const live = (): string =>
      host().ssh(`for d in ${ROOT}/runs/*/; do [ -e "$d/exit" ] || echo "$d"; done; true`).trim();
    await until('no run left going on the host', () => live() === '', 10_000).catch(() => {
      throw new Error(`still going on the host: ${live()}\n${hostProcesses()}`);
    });
    // What both Groves wrote to Gemini CLI's stdin: one answer per permission request, every request id once.
    const sent = host()
      .ssh(
        `for f in ${ROOT}/runs/*/in; do grep -q ${JSON.stringify(task)} "$f" && ! grep -q 'and one more' "$f" && cat "$f"; done; true`,
      )
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { id?: number; method?: string; result?: unknown });
    expect(
      sent.filter((m) => m.method === undefined && m.result !== undefined),
      JSON.stringify(sent),
    ).toHaveLength(1);
    const ids = sent.filter((m) => m.method !== undefined && m.id !== undefined).map((m) => m.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(sent.filter((m) => m.method === 'session/prompt')).toHaveLength(1);
  }, 400_000);
});
