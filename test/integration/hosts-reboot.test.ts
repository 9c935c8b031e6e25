import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect } from 'vitest';
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
  sessionIdOf,
  transcriptOf,
} from './headless-harness.js';
import { ShowSchema } from './headless-schema.js';

// The host reboots in the middle of a turn (issue 24, item 4), simulated as
// the issue says: the host-side processes of the run killed and the boot id
// the host-side scripts read changed (GROVE_HOST_BOOT_ID_FILE, a root-owned
// file named by the test sshd's SetEnv; the host user cannot write it). The
// turn ends with the reason in words, what the agent wrote is committed on
// the host and fetched back, and a reply goes on with the same conversation
// of the real Claude Code there.

const it = sshdIt();
const ROOT = `.grove-test-reboot-${process.pid}`;
let h: Harness;
let sshd: TestHost | undefined;
let claude: ClaudeHost | undefined;
let bootDir: string;
let env: Record<string, string>;
let boots = 0;

function host(): TestHost {
  if (!sshd) throw new Error('no test sshd');
  return sshd;
}

const bootFile = (): string => join(bootDir, 'boot_id');

/** A new boot id, as the host has after a restart. */
function newBoot(): void {
  boots += 1;
  writeFileSync(bootFile(), `0b7d1e3c-1111-4000-8000-${String(boots).padStart(12, '0')}\n`);
}

beforeAll(async () => {
  if (sshdProblem() !== null) return;
  h = await harness();
  bootDir = mkdtempSync(join(tmpdir(), 'grove-host-boot-'));
  chmodSync(bootDir, 0o755);
  newBoot();
  claude = await startClaudeHost(h.server.url, { GROVE_HOST_BOOT_ID_FILE: bootFile() });
  sshd = claude.sshd;
  env = { GROVE_SSH_CONFIG: sshd.config };
  expectExit(await h.grove(['host', 'add', 'build', sshd.alias, '--root', ROOT], { env }), 0);
}, 60_000);

afterAll(async () => {
  if (!claude) return;
  await claude.close(ROOT);
  rmSync(bootDir, { recursive: true, force: true });
  await h.close();
});

/** What the host user runs now (the test host is this machine: that user's processes). */
function onHost(): string {
  try {
    return execFileSync('ps', ['-u', host().user, '-o', 'args='], { encoding: 'utf8' });
  } catch {
    return ''; // ps exits 1 when the user runs nothing
  }
}

/** The model requests of the turns whose prompt has `mark` (not Grove's own titles and messages). */
function requests(mark: string): string[] {
  return h.server
    .modelRequests('anthropic')
    .map((r) => JSON.stringify(r.body))
    .filter((body) => body.includes(mark) && !body.includes('Write a title for a coding task'));
}

const sessionOf = (title: string): Promise<string> => sessionIdOf(h, title, env);

const transcript = (sessionId: string): Promise<string[]> => transcriptOf(h, sessionId, env);

async function branchOf(sessionId: string): Promise<string> {
  return ShowSchema.parse(
    JSON.parse((await h.grove(['show', sessionId, '--json'], { env })).stdout),
  ).branch;
}

/** Kills, as the host user, the process group of each run on the host that has not ended (by the pid in its folder). */
function killRuns(): void {
  const runs = `${host().home}/${ROOT}/runs`;
  execFileSync('su', [
    '-s',
    '/bin/sh',
    host().user,
    '-c',
    `for d in ${runs}/*/; do [ -e "$d/exit" ] || kill -KILL "-$(cat "$d/pid")" 2>/dev/null; done; true`,
  ]);
}

/**
 * The host restarts: it drops off the network (the sshd and every process it
 * started), its boot id changes and the run's processes die (their whole
 * group, as a restart takes them), and it answers again.
 */
async function reboot(sleeper: string): Promise<void> {
  await host().down();
  newBoot();
  killRuns();
  await until('the run is gone on the host', () => !onHost().includes(sleeper), 30_000);
  await host().up();
}

const RESTARTED =
  'build restarted during the turn (its boot id changed); the agent was stopped by the restart. What it wrote is kept.';

describe('a host that restarts in the middle of a turn', () => {
  it('ends the turn with the reason, keeps what the agent wrote, and a reply goes on with the same conversation', async () => {
    const prompt = 'work through a reboot';
    h.utilities('Work through a reboot', 'Keep kept.txt\n\nWritten before the restart.');
    h.server.script('anthropic', [
      {
        when: prompt,
        toolCall: { kind: 'shell', command: "printf 'kept\\n' > kept.txt; echo wrote-kept" },
      },
      { when: prompt, toolCall: { kind: 'shell', command: 'echo holding; sleep 311' } },
    ]);
    const running = h.start(['run', '--host', 'build', prompt], { env });
    await until('the agent sleeps on the host', () => onHost().includes('sleep 311'), 180_000);
    const sessionId = await sessionOf('Work through a reboot');

    await reboot('sleep 311');
    const run = await running.done;
    expect(run.code, show(run)).not.toBe(0);

    const lines = await transcript(sessionId);
    const error = lines.find((l) => l.includes('restarted during the turn'));
    expect(error, lines.join('\n')).toContain(RESTARTED);
    expect(lines.filter((l) => l.includes('wrote-kept'))).toHaveLength(1);
    const branch = await branchOf(sessionId);
    expect(git(h.repo, 'show', `${branch}:kept.txt`)).toBe('kept');

    // The reply resumes Claude Code's conversation on the host: the first turn's tool result is in it.
    h.server.script('anthropic', [
      { when: 'carry on after the restart', text: reply('Carried on.') },
    ]);
    const next = await h.grove(['reply', sessionId, 'carry on after the restart'], { env });
    expectExit(next, 0);
    const resumed = requests('carry on after the restart');
    expect(resumed.length).toBeGreaterThan(0);
    // (Booleans: a request's body is a long text.)
    expect(
      resumed[0]?.includes('wrote-kept'),
      "the first turn's tool output is in the conversation",
    ).toBe(true);
    expect(resumed[0]?.includes(prompt)).toBe(true);
    const after = await transcript(sessionId);
    expect(after.filter((l) => l.startsWith('assistant_answer'))).toEqual([
      'assistant_answer: Carried on.',
    ]);
  }, 400_000);

  it('a Grove killed before the restart re-attaches after it and says the host restarted', async () => {
    const prompt = 'killed then rebooted';
    h.utilities('Killed then rebooted', 'Keep early.txt');
    h.server.script('anthropic', [
      {
        when: prompt,
        toolCall: { kind: 'shell', command: "printf 'early\\n' > early.txt; echo wrote-early" },
      },
      { when: prompt, toolCall: { kind: 'shell', command: 'echo holding; sleep 312' } },
    ]);
    const killed = h.start(['run', '--host', 'build', prompt], { env });
    await until('the agent sleeps on the host', () => onHost().includes('sleep 312'), 180_000);
    const sessionId = await sessionOf('Killed then rebooted');
    await until(
      'the first step is in the transcript',
      async () => (await transcript(sessionId)).some((l) => l.includes('wrote-early')),
      60_000,
    );
    killed.child.kill('SIGKILL');
    await killed.done;
    await reboot('sleep 312');

    h.server.script('anthropic', [{ when: 'after the reboot', text: reply('Went on.') }]);
    const next = await h.grove(['reply', sessionId, 'after the reboot'], { env });
    expectExit(next, 0);
    const lines = await transcript(sessionId);
    expect(
      lines.some((l) => l.includes('[Re-attached]')),
      lines.join('\n'),
    ).toBe(true);
    expect(lines.find((l) => l.includes('restarted during the turn'))).toContain(RESTARTED);
    expect(lines.filter((l) => l.includes('wrote-early'))).toHaveLength(1);
    expect(lines.filter((l) => l.startsWith('assistant_answer'))).toEqual([
      'assistant_answer: Went on.',
    ]);
    expect(git(h.repo, 'show', `${await branchOf(sessionId)}:early.txt`)).toBe('early');
  }, 400_000);

  it('a process killed on the host with no restart keeps the lost-process words', async () => {
    const prompt = 'killed on the host';
    h.utilities('Killed on the host', 'Keep lost.txt');
    h.server.script('anthropic', [
      {
        when: prompt,
        toolCall: { kind: 'shell', command: 'touch lost.txt; echo holding; sleep 313' },
      },
    ]);
    const running = h.start(['run', '--host', 'build', prompt], { env });
    await until('the agent sleeps on the host', () => onHost().includes('sleep 313'), 180_000);
    const sessionId = await sessionOf('Killed on the host');
    killRuns();
    const run = await running.done;
    expect(run.code, show(run)).not.toBe(0);
    const lines = await transcript(sessionId);
    expect(lines.join('\n')).toContain(
      "the agent's process on build is gone and left no exit code (something on build killed it; the host did not restart",
    );
    expect(lines.join('\n')).not.toContain('restarted during the turn');
    expect(git(h.repo, 'ls-tree', '--name-only', await branchOf(sessionId))).toContain('lost.txt');
  }, 400_000);
});
