import { execFileSync, spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AgentError } from '../../src/infra/agent/agent-error.js';
import {
  createLauncher,
  type AgentLauncher,
  type LaunchSpec,
} from '../../src/infra/agent/confine/launcher.js';
import { sweepLeftoverAgents } from '../../src/infra/agent/confine/leftovers.js';
import { processOwner } from '../../src/infra/owner.js';
import type { AgentProcess } from '../../src/infra/agent/confine/process.js';
import { until } from './headless-harness.js';
import { liveGroupMembers } from '../helpers/processes.js';

// The agent launcher with real processes: bubblewrap confinement (installed
// here and in CI), the environment filter, the opt-out, the sweep.

let dir: string;
let main: string;
let worktree: string;
let home: string;
const started: AgentProcess[] = [];

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: {
      ...process.env,
      HOME: home,
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@t',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@t',
    },
  }).trim();
}

beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'grove-launcher-')));
  main = join(dir, 'project');
  worktree = join(dir, 'wt');
  home = join(dir, 'home');
  mkdirSync(home);
  mkdirSync(main);
  git(main, 'init', '-q', '-b', 'main');
  writeFileSync(join(main, 'README.md'), '# project\n');
  git(main, 'add', '-A');
  git(main, 'commit', '-q', '-m', 'init');
  git(main, 'worktree', 'add', '-q', '-b', 'grove/s1', worktree);
});

afterEach(() => {
  for (const proc of started.splice(0)) proc.kill(0);
  rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
});

function spec(script: string, env: Record<string, string> = {}): LaunchSpec {
  return {
    provider: 'claude',
    command: 'sh',
    args: ['-c', script],
    cwd: worktree,
    mainCheckout: main,
    env: {
      PATH: process.env['PATH'] ?? '/usr/bin:/bin',
      HOME: home,
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@t',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@t',
      ...env,
    },
  };
}

async function run(
  launcher: AgentLauncher,
  script: string,
  env: Record<string, string> = {},
): Promise<{ code: number | null; stderr: string }> {
  const proc = await launcher.launch(spec(script, env));
  started.push(proc);
  proc.child.stdin.end();
  proc.child.stdout.resume();
  const exit = await proc.exited;
  return { code: exit.code, stderr: proc.stderrTail() };
}

const confined = (): AgentLauncher =>
  createLauncher({ runDir: null, allowUnconfined: () => Promise.resolve(false) });
const noEngine = (allowUnconfined: boolean): AgentLauncher =>
  createLauncher({
    runDir: null,
    allowUnconfined: () => Promise.resolve(allowUnconfined),
    probe: () =>
      Promise.resolve({
        ok: false,
        reason: 'bubblewrap (bwrap) is not installed',
        fix: 'install bubblewrap',
      }),
  });

describe('a confined agent', () => {
  it('is confined by bubblewrap on this machine', async () => {
    expect(await confined().confinement()).toEqual({ kind: 'confined', engine: 'bubblewrap' });
  });

  it('writes files in its worktree and commits them on the session branch', async () => {
    const result = await run(
      confined(),
      'echo inside > inside.txt && git add inside.txt && git commit -q -m inside',
    );

    expect(result).toEqual({ code: 0, stderr: '' });
    expect(readFileSync(join(worktree, 'inside.txt'), 'utf8')).toBe('inside\n');
    expect(git(main, 'log', '-1', '--format=%s', 'grove/s1')).toBe('inside');
  });

  it('cannot write into the main checkout', async () => {
    const result = await run(confined(), `echo evil > '${main}/evil.txt'`);

    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/Read-only file system/);
    expect(existsSync(join(main, 'evil.txt'))).toBe(false);
  });

  it('cannot write into the home folder', async () => {
    const result = await run(confined(), `echo evil > '${home}/evil.txt'`);

    expect(result.code).not.toBe(0);
    expect(existsSync(join(home, 'evil.txt'))).toBe(false);
  });

  it("cannot add a git hook that Grove's own git would run later", async () => {
    const result = await run(
      confined(),
      `echo 'touch /tmp/pwned' > '${main}/.git/hooks/pre-commit'`,
    );

    expect(result.code).not.toBe(0);
    expect(existsSync(join(main, '.git', 'hooks', 'pre-commit'))).toBe(false);
  });

  it('writes its session store in the CLI state folder, which it creates, but not the folder itself', async () => {
    const result = await run(
      confined(),
      `echo state > '${home}/.claude/projects/state.json'; echo '{}' > '${home}/.claude/settings.json'`,
    );

    expect(result.code).not.toBe(0);
    expect(readFileSync(join(home, '.claude', 'projects', 'state.json'), 'utf8')).toBe('state\n');
    expect(existsSync(join(home, '.claude', 'settings.json'))).toBe(false);
  });

  it('removes the placeholders it made for missing protected paths when the agent ends, and nothing else', async () => {
    const codexHome = join(home, '.codex');
    mkdirSync(codexHome);
    writeFileSync(join(codexHome, 'config.toml'), 'model = "m"\n');
    const launcher = confined();
    const proc = await launcher.launch({
      ...spec(
        `test -f '${codexHome}/AGENTS.md' && test -d '${codexHome}/rules' && echo seen > seen.txt`,
      ),
      provider: 'codex',
    });
    started.push(proc);
    proc.child.stdin.end();
    proc.child.stdout.resume();

    expect((await proc.exited).code).toBe(0);
    expect(readFileSync(join(worktree, 'seen.txt'), 'utf8')).toBe('seen\n');
    await until(
      'the placeholders to be removed',
      () => !existsSync(join(codexHome, 'AGENTS.md')),
      5000,
    );
    expect(existsSync(join(codexHome, 'rules'))).toBe(false);
    expect(readFileSync(join(codexHome, 'config.toml'), 'utf8')).toBe('model = "m"\n');
  });

  it('cannot write the .git of a main checkout it runs in (conflict resolution)', async () => {
    const proc = await confined().launch({
      ...spec(`echo evil > .git/description; touch evil.txt`),
      cwd: main,
    });
    started.push(proc);
    proc.child.stdin.end();
    proc.child.stdout.resume();
    await proc.exited;

    expect(readFileSync(join(main, '.git', 'description'), 'utf8')).not.toBe('evil\n');
    expect(existsSync(join(main, 'evil.txt'))).toBe(true);
  });

  it('without the main checkout (a title or commit-message prompt) writes no part of the shared git folder', async () => {
    const proc = await confined().launch({
      ...spec('echo x > x.txt && git add x.txt'),
      mainCheckout: worktree,
    });
    started.push(proc);
    proc.child.stdin.end();
    proc.child.stdout.resume();

    expect((await proc.exited).code).not.toBe(0);
    expect(proc.stderrTail()).toMatch(/index\.lock.*Read-only file system/);
  });

  it("sees a private /tmp: none of the host's files there, and what it writes there stays inside", async () => {
    writeFileSync(join(dir, 'host-file'), 'host\n');

    const result = await run(
      confined(),
      `ls '${dir}' > seen.txt; cat '${dir}/host-file' >> seen.txt 2>&1; echo x > /tmp/made-inside && cat /tmp/made-inside >> seen.txt`,
    );

    expect(result.code).toBe(0);
    const seen = readFileSync(join(worktree, 'seen.txt'), 'utf8');
    // Only what the agent needs is bound back into the private /tmp: its HOME, the main checkout, its worktree.
    expect(seen.split('\n').slice(0, 3)).toEqual(['home', 'project', 'wt']);
    expect(seen).not.toContain('host\n');
    expect(seen).toMatch(/x\n$/);
    expect(existsSync('/tmp/made-inside')).toBe(false);
  });

  it('gets a private TMPDIR that is removed when it ends', async () => {
    const result = await run(confined(), 'echo t > "$TMPDIR/t" && echo "$TMPDIR" > tmpdir.txt');

    expect(result.code).toBe(0);
    const tmp = readFileSync(join(worktree, 'tmpdir.txt'), 'utf8').trim();
    expect(tmp).toMatch(/grove-agent-/);
    await until('the private temp folder to be removed', () => !existsSync(tmp), 5000);
  });
});

describe('the agent environment', () => {
  const TOKENS = {
    GITHUB_TOKEN: 'ght',
    GH_TOKEN: 'ght2',
    GH_ENTERPRISE_TOKEN: 'ghe',
    GITHUB_ENTERPRISE_TOKEN: 'ghe2',
    GITLAB_TOKEN: 'glt',
  };

  it.each([
    ['confined', confined],
    ['unconfined (opt-out)', () => noEngine(true)],
  ])('has no forge token when %s', async (_, make) => {
    const result = await run(make(), 'env > env.txt', { ...TOKENS, ANTHROPIC_API_KEY: 'kept' });

    expect(result.code).toBe(0);
    const seen = readFileSync(join(worktree, 'env.txt'), 'utf8');
    expect(seen).toContain('ANTHROPIC_API_KEY=kept');
    for (const name of Object.keys(TOKENS)) expect(seen).not.toContain(`${name}=`);
  });

  const AMBIENT = {
    TMUX: '/tmp/tmux-0/default,1,0',
    SSH_AUTH_SOCK: '/tmp/ssh-x/agent.1',
    DBUS_SESSION_BUS_ADDRESS: 'unix:path=/run/user/0/bus',
    DISPLAY: ':0',
    DOCKER_HOST: 'unix:///run/docker.sock',
    OPENAI_API_KEY: 'other-provider',
    AWS_SECRET_ACCESS_KEY: 'cloud',
  };

  it.each([
    ['confined', confined],
    ['unconfined (opt-out)', () => noEngine(true)],
  ])('holds only allowed variables when %s: no socket, no other provider key', async (_, make) => {
    const result = await run(make(), 'env > env.txt', { ...AMBIENT, LANG: 'C.UTF-8' });

    expect(result.code).toBe(0);
    const seen = readFileSync(join(worktree, 'env.txt'), 'utf8');
    expect(seen).toContain('LANG=C.UTF-8');
    expect(seen).toContain('GIT_AUTHOR_NAME=t');
    for (const name of Object.keys(AMBIENT)) expect(seen).not.toContain(`${name}=`);
  });
});

describe('without a sandbox engine', () => {
  it('refuses to start an agent, saying how to install one and naming the opt-out', async () => {
    const failure = await noEngine(false)
      .launch(spec('echo ran > ran.txt'))
      .catch((e: unknown) => e);

    expect(failure).toBeInstanceOf(AgentError);
    expect((failure as AgentError).reason).toBe('sandbox');
    expect((failure as AgentError).message).toMatch(
      /bubblewrap \(bwrap\) is not installed.*install bubblewrap.*agents\.allowUnconfined/,
    );
    expect(existsSync(join(worktree, 'ran.txt'))).toBe(false);
  });

  it('runs the agent unconfined once the opt-out is on', async () => {
    const launcher = noEngine(true);

    const result = await run(launcher, `echo outside > '${home}/outside.txt'`);

    expect(await launcher.confinement()).toEqual({
      kind: 'unconfined',
      reason: 'bubblewrap (bwrap) is not installed',
    });
    expect(result.code).toBe(0);
    expect(existsSync(join(home, 'outside.txt'))).toBe(true);
  });
});

describe('agent lifetimes', () => {
  it('stopAll ends every running agent and its children', async () => {
    const launcher = confined();
    const proc = await launcher.launch(spec('sleep 300 & sleep 300'));
    started.push(proc);

    await launcher.stopAll(500);

    await until('the agent group to be gone', () => liveGroupMembers(proc.pid).length === 0, 5000);
  });

  it('ends what an agent left running when the agent itself exits', async () => {
    const proc = await confined().launch(
      spec(`(trap '' TERM HUP; exec sleep 300) </dev/null >/dev/null 2>&1 & echo $! > child.txt`),
    );
    started.push(proc);
    proc.child.stdout.resume();

    await proc.exited;

    await until(
      'the leftover child to be gone',
      () => liveGroupMembers(proc.pid).length === 0,
      5000,
    );
  });

  it('records a running agent under run/agents/ and forgets it when it ends', async () => {
    const runDir = join(dir, 'run');
    const launcher = createLauncher({ runDir, allowUnconfined: () => Promise.resolve(false) });
    const proc = await launcher.launch(spec('read line'));
    started.push(proc);

    const records = readdirSync(join(runDir, 'agents'));
    expect(records).toEqual([`${proc.pid}.json`]);
    expect(
      JSON.parse(readFileSync(join(runDir, 'agents', records[0] ?? ''), 'utf8')),
    ).toMatchObject({ pgid: proc.pid, owner: processOwner(), provider: 'claude' });

    proc.child.stdin.end('done\n');
    await proc.exited;
    await until(
      'the record to be removed',
      () => readdirSync(join(runDir, 'agents')).length === 0,
      5000,
    );
  });
});

describe('the start-up sweep', () => {
  function leftover(owner: string): { pgid: number; runDir: string } {
    const child = spawn('sh', ['-c', 'sleep 300 & sleep 300'], { detached: true, stdio: 'ignore' });
    child.unref();
    const pgid = child.pid ?? -1;
    const runDir = join(dir, 'run');
    mkdirSync(join(runDir, 'agents'), { recursive: true });
    const startTime =
      readFileSync(`/proc/${pgid}/stat`, 'utf8').split(') ')[1]?.split(' ')[19] ?? null;
    writeFileSync(
      join(runDir, 'agents', `${pgid}.json`),
      JSON.stringify({ pgid, startTime, owner, provider: 'claude', startedAt: Date.now() }),
    );
    return { pgid, runDir };
  }

  /** The owner id of a process that has exited (and been reaped). */
  async function deadOwner(): Promise<string> {
    const pid = spawn('true').pid ?? 0;
    await until('the owner to be gone', () => !existsSync(`/proc/${pid}`), 5000);
    return `${hostname()}:${pid}`;
  }

  it('ends the recorded agents of a Grove process that is gone, and forgets them', async () => {
    const { pgid, runDir } = leftover(await deadOwner());
    await until('the leftover to run', () => liveGroupMembers(pgid).length >= 2, 5000);

    const ended = await sweepLeftoverAgents(runDir, `${hostname()}:${process.pid}`);

    expect(ended).toBe(1);
    expect(liveGroupMembers(pgid)).toEqual([]);
    expect(readdirSync(join(runDir, 'agents'))).toEqual([]);
  });

  it('leaves alone the agents of a Grove process that is still running', async () => {
    const { pgid, runDir } = leftover(`${hostname()}:${process.pid}`);
    await until('the leftover to run', () => liveGroupMembers(pgid).length >= 2, 5000);

    const ended = await sweepLeftoverAgents(runDir, `${hostname()}:1`);

    expect(ended).toBe(0);
    expect(liveGroupMembers(pgid).length).toBeGreaterThanOrEqual(2);
    process.kill(-pgid, 'SIGKILL');
  });
});
