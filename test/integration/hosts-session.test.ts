import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { gate } from '../helpers/fake-model/server.js';
import { git } from '../helpers/grove-env.js';
import { killIfAlive, liveProcesses } from '../helpers/processes.js';
import { REAL_CLI_BIN } from '../helpers/real-clis.js';
import { ensureHostUser, sshdIt, sshdProblem, startSshd, type TestHost } from '../helpers/sshd.js';
import { expectExit, harness, reply, show, until, type Harness } from './headless-harness.js';
import { ListSchema, ResultSchema, ShowSchema } from './headless-schema.js';

// Sessions on a host (issue 24), as a person runs them: `grove host add`,
// `grove run --host`, `grove reply`, with the built binary, the real Claude
// Code (run on the host by its second unix user, grove-host, from the pinned
// fixture, which that user can read and run) and the fake model server. The
// host user is signed in by its own environment (sshd's SetEnv: its own key
// and CLAUDE_CONFIG_DIR); the person's secrets are set only on this side.

const it = sshdIt();
const ROOT = `.grove-test-session-${process.pid}`;
const PERSON_KEY = 'sk-person-secret-4f1c9e';
const PERSON_TOKEN = 'ghp_personSecret7d2a0b';
/** Claude Code's turn in the host's process list. */
const CLAUDE_RUNNING = /claude\S* -p --output-format stream-json/;
let h: Harness;
let sshd: TestHost | undefined;
/** The host user's Claude Code folder (its CLAUDE_CONFIG_DIR). */
let claudeDir: string;
/** Grove's side: the ssh config and the person's secrets. */
let env: Record<string, string>;

function host(): TestHost {
  if (!sshd) throw new Error('no test sshd');
  return sshd;
}

/** A folder the host user owns (its Claude Code state, a fake bwrap). */
function hostOwnedDir(prefix: string): string {
  const user = ensureHostUser();
  const dir = mkdtempSync(join(tmpdir(), prefix));
  chownSync(dir, user.uid, user.gid);
  chmodSync(dir, 0o755);
  return dir;
}

/** A test sshd whose user runs the pinned Claude Code against this file's fake model. */
async function hostFor(extraPath: readonly string[] = []): Promise<TestHost> {
  return startSshd({
    path: [...extraPath, REAL_CLI_BIN],
    env: {
      ANTHROPIC_BASE_URL: h.server.url,
      ANTHROPIC_API_KEY: 'sk-host-own',
      CLAUDE_CONFIG_DIR: claudeDir,
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      CLAUDE_CODE_MAX_RETRIES: '0',
      DISABLE_AUTOUPDATER: '1',
    },
  });
}

beforeAll(async () => {
  if (sshdProblem() !== null) return;
  h = await harness();
  claudeDir = hostOwnedDir('grove-host-claude-');
  sshd = await hostFor();
  env = {
    GROVE_SSH_CONFIG: sshd.config,
    ANTHROPIC_API_KEY: PERSON_KEY,
    GITHUB_TOKEN: PERSON_TOKEN,
  };
  expectExit(await h.grove(['host', 'add', 'build', sshd.alias, '--root', ROOT], { env }), 0);
}, 60_000);

afterAll(async () => {
  if (!sshd) return;
  // Back up after a test that failed while the host was away.
  await sshd.up();
  sshd.ssh(`rm -rf ${ROOT}`);
  await sshd.stop();
  rmSync(claudeDir, { recursive: true, force: true });
  await h.close();
});

/** Grove's own ssh processes (their command lines name its socket folder). */
function groveSshProcesses(): { pid: number; cmdline: string }[] {
  const sockets = join(h.world.groveHome, 'ssh');
  return liveProcesses().filter((p) => p.cmdline.startsWith('ssh') && p.cmdline.includes(sockets));
}

/** What the host user runs now, as its `ps` shows it (the test host is this machine: only that user's processes). */
function hostProcesses(): string {
  return host().ssh('ps -u "$(id -u)" -o args=');
}

/** The host user's processes of this file's sessions (other test files run theirs as the same user at the same time). */
function ourHostProcesses(): string {
  return hostProcesses()
    .split('\n')
    .filter((line) => line.includes(ROOT))
    .join('\n');
}

/** The host's worktree of a session. */
function hostFile(sessionId: string, file: string): string {
  return host().ssh(`cat ${ROOT}/worktrees/*/${sessionId}/${file}`);
}

describe('a session on a host', () => {
  it('runs Claude Code there and brings the branch back here; the prompt arrives byte for byte; a reply goes on there', async () => {
    const prompt = `Say "hi" to it's $HOME and \`whoami\`;\nthen a second line  with  two spaces & a \\ backslash`;
    h.utilities();
    h.server.script('anthropic', [
      {
        when: 'second line',
        toolCall: { kind: 'shell', command: "printf 'hello\\n' > hello.txt" },
      },
      { when: 'second line', text: reply('I wrote hello.txt on the host.') },
    ]);
    const run = await h.grove(['run', '--host', 'build', '--output', 'json', prompt], { env });
    expectExit(run, 0);
    const result = ResultSchema.parse(JSON.parse(run.stdout));
    expect(result.host).toBe('build');
    expect(result.answer).toBe('I wrote hello.txt on the host.');
    // The prompt reached the model intact (quotes, $, backticks, newline, spaces, backslash).
    const turn = h.server
      .modelRequests('anthropic')
      .find((r) => JSON.stringify(r.body).includes('second line'));
    expect(JSON.stringify(turn?.body)).toContain(JSON.stringify(prompt).slice(1, -1));
    // The agent ran on the host, in the host's worktree, and its work is on the local branch.
    expect(hostFile(result.sessionId, 'hello.txt')).toBe('hello\n');
    expect(git(h.repo, 'show', `${result.branch}:hello.txt`)).toBe('hello');
    expect(git(result.worktree, 'status', '--porcelain')).toBe('');
    expect(result.files.map((f) => f.path)).toEqual(['hello.txt']);
    const list = ListSchema.parse(JSON.parse((await h.grove(['ls', '--json'], { env })).stdout));
    expect(list.find((s) => s.sessionId === result.sessionId)?.host).toBe('build');

    h.utilities();
    h.server.script('anthropic', [
      { when: 'add a line', toolCall: { kind: 'shell', command: "printf 'more\\n' >> hello.txt" } },
      { when: 'add a line', text: reply('Added a line.') },
    ]);
    const second = await h.grove(['reply', result.sessionId, 'add a line'], { env });
    expectExit(second, 0);
    expect(git(h.repo, 'show', `${result.branch}:hello.txt`)).toBe('hello\nmore');
    const shown = ShowSchema.parse(
      JSON.parse((await h.grove(['show', result.sessionId, '--json'], { env })).stdout),
    );
    expect(shown.host).toBe('build');
    expect(
      shown.transcript.filter((e) => e.kind === 'assistant_answer').map((e) => e.content),
    ).toEqual(['I wrote hello.txt on the host.', 'Added a line.']);
  }, 180_000);

  it('confines the agent on the host with bubblewrap, and no secret of the person reaches the host', async () => {
    const outside = `${host().home}/outside-${process.pid}`;
    h.utilities();
    h.server.script('anthropic', [
      {
        when: 'try outside',
        toolCall: { kind: 'shell', command: `touch inside.txt; sleep 6; touch ${outside}` },
      },
      { when: 'try outside', text: reply('Tried.') },
    ]);
    const running = h.start(['run', '--host', 'build', '--output', 'json', 'try outside'], {
      env,
    });
    // Mid-turn (the agent's command runs on the host), what the host user runs and its environments.
    await until('the agent works on the host', () => hostProcesses().includes('sleep 6'), 120_000);
    const args = hostProcesses();
    const environ = host().ssh(
      'for p in /proc/[0-9]*; do cat $p/environ 2>/dev/null | tr "\\0" "\\n"; done; true',
    );
    const run = await running.done;
    expectExit(run, 0);
    expect(args).toContain('bwrap');
    // Run by its real path on the host (claude.exe in the pinned package).
    expect(args).toMatch(CLAUDE_RUNNING);
    for (const seen of [args, environ]) {
      expect(seen).not.toContain(PERSON_KEY);
      expect(seen).not.toContain(PERSON_TOKEN);
      expect(seen).not.toContain('SSH_AUTH_SOCK');
      expect(seen).not.toContain(h.world.dir);
    }
    expect(args).not.toContain('sk-');
    // The agent's environment on the host is the host user's own (its key), not the person's.
    expect(environ).toContain('ANTHROPIC_API_KEY=sk-host-own');
    // The home stayed read-only; the worktree took the write.
    expect(host().ssh(`test -e ${outside} && echo there || echo absent`).trim()).toBe('absent');
    const { sessionId } = ResultSchema.parse(JSON.parse(run.stdout));
    expect(host().ssh(`ls ${ROOT}/worktrees/*/${sessionId}/`)).toContain('inside.txt');
  }, 180_000);

  it('loses and repeats no transcript line when the link drops mid-turn', async () => {
    h.utilities();
    h.server.script('anthropic', [
      { when: 'drop the link', toolCall: { kind: 'shell', command: 'echo first-step; sleep 5' } },
      { when: 'drop the link', toolCall: { kind: 'shell', command: 'echo second-step' } },
      { when: 'drop the link', text: reply('Done after the drop.') },
    ]);
    const running = h.start(['run', '--host', 'build', '--output', 'json', 'drop the link'], {
      env,
    });
    await until('the agent works on the host', () => hostProcesses().includes('sleep 5'), 120_000);
    const ours = groveSshProcesses();
    expect(ours.some((p) => p.cmdline.startsWith('ssh: '))).toBe(true); // the shared connection
    // Killing the shared connection may end the others first.
    for (const p of ours) killIfAlive(p.pid);
    const run = await running.done;
    expectExit(run, 0);
    const result = ResultSchema.parse(JSON.parse(run.stdout));
    const shown = ShowSchema.parse(
      JSON.parse((await h.grove(['show', result.sessionId, '--json'], { env })).stdout),
    );
    const lines = shown.transcript.map((e) => `${e.kind}: ${e.content.split('\n')[0] ?? ''}`);
    expect(
      lines.filter((l) => l.includes('first-step')),
      show(run),
    ).toHaveLength(1);
    expect(lines.filter((l) => l.includes('second-step'))).toHaveLength(1);
    expect(lines.filter((l) => l.startsWith('assistant_answer'))).toEqual([
      'assistant_answer: Done after the drop.',
    ]);
  }, 180_000);

  it('rides out the host being away for longer than 12 tries: reconnects on the 1, 2, 4, 7, 10 s schedule, says so, and every line arrives once, in order', async () => {
    // The drop outlasts the old follower (12 tries in a row, about 76 s of waits, then it gave up).
    const DROP_MS = 100_000;
    const resume = gate();
    const finish = gate();
    h.utilities();
    h.server.script('anthropic', [
      { when: 'away for a while', toolCall: { kind: 'shell', command: 'echo before-drop' } },
      {
        when: 'away for a while',
        until: resume.opened,
        then: { toolCall: { kind: 'shell', command: 'echo during-drop-1' } },
      },
      { when: 'away for a while', toolCall: { kind: 'shell', command: 'echo during-drop-2' } },
      { when: 'away for a while', toolCall: { kind: 'shell', command: 'echo during-drop-3' } },
      {
        when: 'away for a while',
        until: finish.opened,
        then: { text: reply('Done after the long drop.') },
      },
    ]);
    const asked = (): number =>
      h.server
        .modelRequests('anthropic')
        .filter((r) => JSON.stringify(r.body).includes('away for a while')).length;
    const before = asked();
    const running = h.start(
      ['run', '--host', 'build', '--progress', '--output', 'json', 'away for a while'],
      { env },
    );
    // The agent ran its first command and waits for the model: the host goes away.
    await until('the agent asks for its second step', () => asked() >= before + 2, 120_000);
    await host().down();
    const droppedAt = Date.now();
    resume.open();
    // The agent goes on on the host while it is unreachable, and prints more.
    await until('the agent asks for its last step', () => asked() >= before + 5, 60_000);
    await until(
      'the host has been away long enough',
      () => Date.now() - droppedAt >= DROP_MS,
      DROP_MS + 10_000,
    );
    expect(running.child.exitCode, running.stderr()).toBeNull();
    await host().up();
    await until(
      'Grove is back in touch',
      () => running.stderr().includes('Working (reconnected to build)'),
      60_000,
    );
    finish.open();
    const run = await running.done;
    expectExit(run, 0);

    const tries = [...run.stderr.matchAll(/Reconnecting to build \(try (\d+), next in (\d+)s\)/g)];
    expect(tries.length, show(run)).toBeGreaterThan(0);
    expect(tries[0]?.slice(1)).toEqual(['1', '1']);
    const last = Math.max(...tries.map((t) => Number(t[1])));
    // More tries than the old follower allowed, the later ones 10 s apart (±20 %: 8 to 12 s).
    expect(last, show(run)).toBeGreaterThan(12);
    for (const t of tries.filter((t) => Number(t[1]) >= 5))
      expect(Number(t[2])).toBeGreaterThanOrEqual(8);
    expect(run.stderr.lastIndexOf('Working (reconnected to build)')).toBeGreaterThan(
      run.stderr.lastIndexOf('Reconnecting to build'),
    );

    const result = ResultSchema.parse(JSON.parse(run.stdout));
    const shown = ShowSchema.parse(
      JSON.parse((await h.grove(['show', result.sessionId, '--json'], { env })).stdout),
    );
    const lines = shown.transcript.map((e) => `${e.kind}: ${e.content}`);
    const marks = ['before-drop', 'during-drop-1', 'during-drop-2', 'during-drop-3'];
    for (const mark of marks)
      expect(
        lines.filter((l) => l.includes(`echo ${mark}`)),
        show(run),
      ).toHaveLength(1);
    const order = marks.map((mark) => lines.findIndex((l) => l.includes(`echo ${mark}`)));
    expect(order).toEqual([...order].sort((x, y) => x - y));
    expect(lines.filter((l) => l.startsWith('assistant_answer'))).toEqual([
      'assistant_answer: Done after the long drop.',
    ]);
  }, 400_000);

  it('stops the whole agent on the host when the turn is stopped, and brings back what it wrote', async () => {
    h.utilities();
    h.server.script('anthropic', [
      { when: 'stop me', toolCall: { kind: 'shell', command: 'touch partial.txt; sleep 300' } },
    ]);
    const running = h.start(['run', '--host', 'build', '--output', 'json', 'stop me'], { env });
    await until(
      'the agent works on the host',
      () => hostProcesses().includes('sleep 300'),
      120_000,
    );
    running.child.kill('SIGINT');
    const run = await running.done;
    expect(run.code, show(run)).not.toBe(0);
    // Nothing of the agent's process group is left on the host.
    await until('the host has no agent left', () => !hostProcesses().includes('sleep 300'), 30_000);
    expect(ourHostProcesses()).not.toMatch(CLAUDE_RUNNING);
    const { sessionId } = ResultSchema.parse(JSON.parse(run.stdout));
    const shown = ShowSchema.parse(
      JSON.parse((await h.grove(['show', sessionId, '--json'], { env })).stdout),
    );
    expect(shown.transcript.some((e) => e.content.startsWith('[Stopped]'))).toBe(true);
    expect(git(h.repo, 'ls-tree', '--name-only', shown.branch)).toContain('partial.txt');
  }, 180_000);

  it('a stop while the host is away says it cannot reach it yet, keeps trying, and ends the agent there once it is back', async () => {
    h.utilities();
    h.server.script('anthropic', [
      {
        when: 'stop me while away',
        toolCall: { kind: 'shell', command: 'touch away.txt; sleep 301' },
      },
    ]);
    const running = h.start(
      ['run', '--host', 'build', '--progress', '--output', 'json', 'stop me while away'],
      { env },
    );
    await until(
      'the agent works on the host',
      () => hostProcesses().includes('sleep 301'),
      120_000,
    );
    await host().down();
    // The test host is this machine: its user's processes, seen without ssh.
    const onHost = (): string =>
      execFileSync('ps', ['-u', host().user, '-o', 'args='], { encoding: 'utf8' });
    running.child.kill('SIGINT');
    await until(
      'Grove says it cannot reach the host to stop the agent',
      () => /Stopping: cannot reach build yet \(try \d+, next in \d+s\)/.test(running.stderr()),
      60_000,
    );
    // Nothing was claimed: the turn goes on stopping and the agent still runs there.
    expect(running.child.exitCode).toBeNull();
    expect(onHost()).toContain('sleep 301');
    await host().up();
    const run = await running.done;
    expect(run.code, show(run)).not.toBe(0);
    await until('the host has no agent left', () => !onHost().includes('sleep 301'), 30_000);
    const { sessionId } = ResultSchema.parse(JSON.parse(run.stdout));
    const shown = ShowSchema.parse(
      JSON.parse((await h.grove(['show', sessionId, '--json'], { env })).stdout),
    );
    const notices = shown.transcript.map((e) => e.content);
    const told = notices.findIndex((c) =>
      c.startsWith('Could not reach build to stop the agent there yet'),
    );
    const stopped = notices.findIndex((c) => c.startsWith('[Stopped]'));
    expect(told, show(run)).toBeGreaterThanOrEqual(0);
    expect(stopped).toBeGreaterThan(told);
    expect(git(h.repo, 'ls-tree', '--name-only', shown.branch)).toContain('away.txt');
  }, 240_000);

  it('refuses to run an agent on a host without a working bubblewrap, unless unconfined runs were allowed for it', async () => {
    const fake = hostOwnedDir('grove-host-nobwrap-');
    writeFileSync(
      join(fake, 'bwrap'),
      '#!/bin/sh\necho "bwrap: No permissions to create new namespace" >&2\nexit 1\n',
    );
    chmodSync(join(fake, 'bwrap'), 0o755);
    const bare = await hostFor([fake]);
    try {
      const envBare = { ...env, GROVE_SSH_CONFIG: bare.config };
      expectExit(
        await h.grove(['host', 'add', 'bare', bare.alias, '--root', ROOT], { env: envBare }),
        0,
      );
      const refused = await h.grove(['run', '--host', 'bare', 'refused task'], { env: envBare });
      expect(refused.code, show(refused)).not.toBe(0);
      expect(refused.stderr).toContain('only inside bubblewrap');
      expect(refused.stderr).toContain('--allow-unconfined');
      expect(
        h.server
          .modelRequests('anthropic')
          .some((r) => JSON.stringify(r.body).includes('refused task')),
      ).toBe(false);

      expectExit(
        await h.grove(['host', 'add', 'bare', bare.alias, '--root', ROOT, '--allow-unconfined'], {
          env: envBare,
        }),
        0,
      );
      h.utilities();
      h.server.script('anthropic', [{ when: 'allowed task', text: reply('Ran unconfined.') }]);
      const allowed = await h.grove(['run', '--host', 'bare', '--output', 'json', 'allowed task'], {
        env: envBare,
      });
      expectExit(allowed, 0);
      expect(ResultSchema.parse(JSON.parse(allowed.stdout)).answer).toBe('Ran unconfined.');
    } finally {
      await bare.stop();
      rmSync(fake, { recursive: true, force: true });
    }
  }, 180_000);
});
