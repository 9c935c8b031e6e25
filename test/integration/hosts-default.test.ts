import { chmodSync, chownSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { installAcpAgent } from '../helpers/acp-agent.js';
import { git } from '../helpers/grove-env.js';
import { REAL_CLI_BIN } from '../helpers/real-clis.js';
import { withStore } from '../helpers/seed.js';
import { ensureHostUser, sshdIt, sshdProblem, startSshd, type TestHost } from '../helpers/sshd.js';
import { expectExit, harness, reply, type Harness } from './headless-harness.js';
import { ListSchema, ResultSchema } from './headless-schema.js';

// A project's default host (issue 24): the Settings row `host.default` sends
// `grove run` without --host to that host, `--host local` keeps one session on
// this machine, `grove ls` says where each runs, and a default that names no
// host (any more), or an agent that cannot run on one, is refused in words
// before anything is made. The built binary, the test sshd of
// test/helpers/sshd.ts (a second unix user) and the real Claude Code there.

const it = sshdIt();
const ROOT = `.grove-test-default-${process.pid}`;
let h: Harness;
let sshd: TestHost | undefined;
let claudeDir: string;
let env: Record<string, string>;

function host(): TestHost {
  if (!sshd) throw new Error('no test sshd');
  return sshd;
}

/** Sets the project's default host as the Settings tab stores it. */
async function setDefaultHost(value: string): Promise<void> {
  await withStore(h.world.groveHome, async (store) => {
    const [project] = await store.projects.list();
    if (!project) throw new Error('no project registered');
    await store.settings.setProject(project.id, 'host.default', value);
  });
}

async function sessionsNow(): Promise<ReturnType<typeof ListSchema.parse>> {
  const ls = await h.grove(['ls', '--json'], { env });
  expectExit(ls, 0);
  return ListSchema.parse(JSON.parse(ls.stdout));
}

beforeAll(async () => {
  if (sshdProblem() !== null) return;
  h = await harness();
  const user = ensureHostUser();
  claudeDir = mkdtempSync(join(tmpdir(), 'grove-host-claude-'));
  chownSync(claudeDir, user.uid, user.gid);
  chmodSync(claudeDir, 0o755);
  sshd = await startSshd({
    path: [REAL_CLI_BIN],
    env: {
      ANTHROPIC_BASE_URL: h.server.url,
      ANTHROPIC_API_KEY: 'sk-host-own',
      CLAUDE_CONFIG_DIR: claudeDir,
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      CLAUDE_CODE_MAX_RETRIES: '0',
      DISABLE_AUTOUPDATER: '1',
    },
  });
  env = { GROVE_SSH_CONFIG: sshd.config };
  expectExit(await h.grove(['host', 'add', 'build', sshd.alias, '--root', ROOT], { env }), 0);
  // The project is registered by its first command.
  expect(await sessionsNow()).toEqual([]);
}, 60_000);

afterAll(async () => {
  if (!sshd) return;
  sshd.ssh(`rm -rf ${ROOT}`);
  await sshd.stop();
  rmSync(claudeDir, { recursive: true, force: true });
  await h.close();
});

describe("a project's default host", () => {
  it('runs grove run there without --host, here with --host local, and grove ls says where each runs', async () => {
    await setDefaultHost('build');
    h.utilities('Write there');
    h.server.script('anthropic', [
      {
        when: 'write on the default host',
        toolCall: { kind: 'shell', command: "printf 'there\\n' > where.txt" },
      },
      { when: 'write on the default host', text: reply('Wrote where.txt.') },
    ]);
    const there = await h.grove(['run', '--output', 'json', 'write on the default host'], { env });
    expectExit(there, 0);
    const remote = ResultSchema.parse(JSON.parse(there.stdout));
    expect(remote.host).toBe('build');
    expect(host().ssh(`cat ${ROOT}/worktrees/*/${remote.sessionId}/where.txt`)).toBe('there\n');
    expect(git(h.repo, 'show', `${remote.branch}:where.txt`)).toBe('there');

    h.utilities('Write here');
    h.server.script('anthropic', [
      {
        when: 'write on this machine',
        toolCall: { kind: 'shell', command: "printf 'here\\n' > where.txt" },
      },
      { when: 'write on this machine', text: reply('Wrote it here.') },
    ]);
    const here = await h.grove(
      ['run', '--host', 'local', '--output', 'json', 'write on this machine'],
      { env },
    );
    expectExit(here, 0);
    const local = ResultSchema.parse(JSON.parse(here.stdout));
    expect(local.host).toBeNull();
    expect(git(local.worktree, 'show', 'HEAD:where.txt')).toBe('here');
    expect(host().ssh(`ls ${ROOT}/worktrees/*/ | grep -c ${local.sessionId} || true`).trim()).toBe(
      '0',
    );

    const listed = await sessionsNow();
    expect(listed.find((s) => s.sessionId === remote.sessionId)?.host).toBe('build');
    expect(listed.find((s) => s.sessionId === local.sessionId)?.host).toBeNull();
    const plain = await h.grove(['ls'], { env });
    expectExit(plain, 0);
    const lines = plain.stdout.split('\n');
    const remoteLine = lines.find((l) => l.startsWith(remote.sessionId.slice(0, 8)));
    const localLine = lines.find((l) => l.startsWith(local.sessionId.slice(0, 8)));
    expect(remoteLine).toMatch(/claude\/\S+ @build {2}Write there$/);
    expect(localLine).toMatch(/claude\/\S+ {2}Write here$/);
    expect(localLine).not.toContain('@');
  }, 240_000);

  it('refuses another agent on the default host in words, and starts nothing', async () => {
    await setDefaultHost('build');
    const before = (await sessionsNow()).length;
    // An agent of agents.json (the small ACP agent of the fixtures).
    installAcpAgent(h.world);
    const run = await h.grove(['run', '--agent', 'tiny', 'tiny on the default host'], { env });
    expectExit(run, 2);
    expect(run.stderr).toContain(
      'only Claude Code, Codex and Gemini CLI run on hosts yet, not acp:tiny (Grove starts the agents of agents.json on this machine only: agents.json names the command that starts one here, not the folder where it keeps its state',
    );
    expect(run.stderr).toContain(
      "; this project's default host is build: use --agent claude, or --host local to run acp:tiny on this machine",
    );
    expect(run.stderr).toContain('No session was started.');
    expect((await sessionsNow()).length).toBe(before);
  }, 60_000);

  it('refuses a default host that names no host, in words, and starts nothing', async () => {
    await setDefaultHost('gone');
    const before = (await sessionsNow()).length;
    const run = await h.grove(['run', 'on a host that is gone'], { env });
    expectExit(run, 1);
    expect(run.stderr).toContain(
      "this project's default host is gone, and no host has that name (hosts: build): choose another in Settings (Default host), or run on this machine with --host local",
    );
    expect(run.stderr).toContain(
      'No session was started. Your prompt was:\non a host that is gone',
    );
    expect((await sessionsNow()).length).toBe(before);
    // --host local runs here whatever the default says.
    h.utilities();
    h.server.script('anthropic', [{ when: 'here despite it', text: reply('Done here.') }]);
    const here = await h.grove(['run', '--host', 'local', '--output', 'json', 'here despite it'], {
      env,
    });
    expectExit(here, 0);
    expect(ResultSchema.parse(JSON.parse(here.stdout)).host).toBeNull();
  }, 120_000);
});
