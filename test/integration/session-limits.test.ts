import { execFileSync, spawn } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createLauncher, type AgentLauncher } from '../../src/infra/agent/confine/launcher.js';
import {
  ENTER_SCRIPT,
  probeLimits,
  userSystemd,
  type LimitBackend,
} from '../../src/infra/agent/confine/limits.js';
import { sessionLimits, type SessionLimits } from '../../src/domain/limits.js';
import { GROVE_BIN, ROOT, makeRepo, makeWorld, type GroveWorld } from '../helpers/grove-env.js';
import { alive, liveProcesses } from '../helpers/processes.js';

// Session limits (issue 27, item 3) with real processes. Where Grove can make
// cgroups itself (root on a cgroup v1 layout, as on the CI machines, or a
// delegated cgroup v2 subtree), the built binary runs a fake `claude` that
// allocates memory or starts many children under `grove run --memory-max` /
// `--tasks-max` or the project's settings: the turn fails with the words, and
// what the agent wrote before is committed. The "unavailable" path is the
// probe run against a cgroup2 folder of the test's own that delegates nothing.

const found: LimitBackend = await probeLimits();
const own = found.kind === 'cgroup';
const why =
  found.kind === 'unavailable'
    ? `session limits are unavailable here: ${found.reason}`
    : 'limits go through the user systemd here, which does not report a process-count limit met';

const MB = 1024 * 1024;
let dir: string;

beforeAll(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'grove-limits-')));
});
afterAll(() => rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 }));

function resolveBwrap(): string {
  return ['/usr/bin/bwrap', '/bin/bwrap'].find((path) => existsSync(path)) ?? 'bwrap';
}

/**
 * Cgroups Grove made (grove-PID-N) still in the limits' folders: this test
 * process's, or those of a Grove process that has ended.
 */
function leftCgroups(backend: LimitBackend): string[] {
  if (backend.kind !== 'cgroup') return [];
  return [...new Set([backend.memory, backend.pids])].flatMap((base) =>
    readdirSync(base).filter((name) => {
      const pid = Number(/^grove-(\d+)-\d+$/.exec(name)?.[1] ?? NaN);
      return Number.isInteger(pid) && (pid === process.pid || !alive(pid));
    }),
  );
}

describe('the probe', () => {
  it('says in words why limits are unavailable where cgroup v2 delegates nothing and no user systemd answers', async () => {
    // A cgroup2 "mount" of the test's own: Grove's cgroup has only cpu, and hands nothing down.
    const mount = join(dir, 'cgroup2');
    const mine = join(mount, 'user.slice', 'grove-test');
    mkdirSync(mine, { recursive: true });
    writeFileSync(join(mine, 'cgroup.controllers'), 'cpu io\n');
    writeFileSync(join(mine, 'cgroup.subtree_control'), '\n');
    writeFileSync(join(mount, 'cgroup.subtree_control'), 'cpu io\n');
    const backend = await probeLimits({
      uid: 1000,
      mounts: `cgroup2 ${mount} cgroup2 rw,nosuid,nodev,noexec,relatime 0 0\n`,
      ownCgroup: '0::/user.slice/grove-test\n',
      // The real question to the user systemd, unless this machine has one that works.
      systemd: async () =>
        (await userSystemd(1000, '')) ?? 'no user systemd answers (the test asks for none)',
    });
    expect(backend.kind).toBe('unavailable');
    if (backend.kind !== 'unavailable') return;
    expect(backend.reason).toMatch(/user systemd/);
    expect(backend.reason).toContain(
      "cgroup v2 does not delegate the memory and pids controllers to Grove's cgroup (it has cpu io)",
    );
    expect(backend.reason).toContain('cgroup v1 memory and pids hierarchies are not both mounted');
  });

  it('says limits are not supported on macOS', async () => {
    expect(await probeLimits({ platform: 'darwin' })).toEqual({
      kind: 'unavailable',
      reason: 'session limits are not supported on macOS',
    });
  });
});

describe('the launcher', () => {
  const launchers: AgentLauncher[] = [];
  afterEach(async () => {
    for (const l of launchers.splice(0)) await l.stopAll(0);
  });

  const launcher = (
    limits?: SessionLimits,
    limitProbe?: () => Promise<LimitBackend>,
  ): AgentLauncher => {
    const made = createLauncher({
      runDir: null,
      allowUnconfined: () => Promise.resolve(false),
      ...(limits ? { limits: () => Promise.resolve(limits) } : {}),
      ...(limitProbe ? { limitProbe } : {}),
    });
    launchers.push(made);
    return made;
  };

  const start = async (l: AgentLauncher, script: string) => {
    const worktree = mkdtempSync(join(dir, 'wt-'));
    const proc = await l.launch({
      provider: 'claude',
      sessionId: 'session-1',
      command: 'sh',
      args: ['-c', script],
      cwd: worktree,
      env: {
        PATH: `${dirname(process.execPath)}:${process.env['PATH'] ?? '/usr/bin:/bin'}`,
        HOME: join(dir, 'home'),
      },
    });
    proc.child.stdin.end();
    return proc;
  };

  it('starts an agent with no limit exactly as before: the same command line', async () => {
    const plain = await start(launcher(), 'exit 0');
    const none = await start(launcher(sessionLimits('', '')), 'exit 0');
    await Promise.all([plain.exited, none.exited]);
    // Each launch's own temporary folders (private /tmp, the proxy's socket) and worktree aside.
    const line = (argv: readonly string[]) =>
      argv.map((a) => a.replace(/grove-(agent|net)-[\w-]+/g, 'TMP').replace(/wt-\w+/g, 'WT'));
    expect(line(none.child.spawnargs)).toEqual(line(plain.child.spawnargs));
    expect(plain.child.spawnargs.join(' ')).not.toContain(ENTER_SCRIPT);
  });

  it('runs the agent without its limits where they cannot be enforced, and says so once', async () => {
    const l = launcher(sessionLimits('64M', '32'), () =>
      Promise.resolve({ kind: 'unavailable', reason: 'session limits are not supported on macOS' }),
    );
    const proc = await start(l, 'exit 0');
    await proc.exited;
    expect(proc.child.spawnargs.join(' ')).not.toContain(ENTER_SCRIPT);
    expect(await l.limits.notice('session-1')).toBe(
      "[Limits Warning] This session's limits (64 MB memory, 32 processes) are not enforced on this machine: session limits are not supported on macOS. The agent runs without them.",
    );
    expect(await l.limits.notice('session-1')).toBeNull();
    expect(await l.limits.takeHit('session-1')).toBeNull();
  });

  it.skipIf(!own)(
    "stops a tree past its memory limit, says so from the cgroup's counters, and removes the cgroup",
    async () => {
      const l = launcher(sessionLimits('64M', ''));
      const proc = await start(
        l,
        `node -e "const k = []; for (let i = 0; i < 200; i++) k.push(Buffer.alloc(${MB}, 1)); console.log('survived')"`,
      );
      let out = '';
      proc.child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      expect(proc.child.spawnargs).toContain(ENTER_SCRIPT);
      await proc.exited;
      expect(out).not.toContain('survived');
      expect(await l.limits.takeHit('session-1')).toEqual({ kind: 'memory', bytes: 64 * MB });
      // Said once: the counters are taken.
      expect(await l.limits.takeHit('session-1')).toBeNull();
      expect(leftCgroups(found)).toEqual([]);
    },
  );

  it.skipIf(!own)('an agent within its limits meets none', async () => {
    const l = launcher(sessionLimits('256M', '64'));
    const proc = await start(l, 'node -e "console.log(Buffer.alloc(8 * 1024 * 1024, 1).length)"');
    expect((await proc.exited).code).toBe(0);
    expect(await l.limits.takeHit('session-1')).toBeNull();
    expect(leftCgroups(found)).toEqual([]);
  });
});

/** The built binary with a fake `claude` first on PATH (test/fixtures/fake-claude). */
describe.skipIf(!own)(`grove run with limits (${own ? 'cgroups Grove makes' : why})`, () => {
  let world: GroveWorld;
  let repo: string;
  let env: Record<string, string>;

  beforeAll(() => {
    if (!existsSync(GROVE_BIN)) throw new Error(`${GROVE_BIN} is missing: run npm run build first`);
    world = makeWorld();
    repo = makeRepo(world);
    const fake = join(ROOT, 'test', 'fixtures', 'fake-claude');
    for (const file of ['fake-claude.mjs', 'recorded-turn.jsonl'])
      copyFileSync(join(fake, file), join(world.bin, file));
    writeFileSync(
      join(world.bin, 'claude'),
      `#!/bin/sh\nexec '${process.execPath}' '${join(world.bin, 'fake-claude.mjs')}' "$@"\n`,
    );
    chmodSync(join(world.bin, 'claude'), 0o755);
    // In Claude Code's own state folder: writable inside the sandbox.
    const control = join(world.home, '.claude', 'debug', 'fake-claude');
    mkdirSync(control, { recursive: true });
    env = world.env({ CLAUDE_FAKE_DIR: control });
  });
  afterAll(() => world.cleanup());

  /**
   * What Grove's cgroups and their processes are doing now: for a run that
   * did not end in time (once on CI, a 1 s run took over 240 s).
   */
  const cgroupState = (): string =>
    found.kind !== 'cgroup'
      ? ''
      : [...new Set([found.memory, found.pids])]
          .flatMap((base) =>
            readdirSync(base)
              .filter((name) => name.startsWith('grove-'))
              .map((name) => join(base, name)),
          )
          .map((cg) => {
            const read = (file: string) => {
              try {
                return readFileSync(join(cg, file), 'utf8').trim();
              } catch {
                return '-';
              }
            };
            const procs = read('cgroup.procs')
              .split('\n')
              .filter((pid) => /^\d+$/.test(pid))
              .map((pid) => {
                const stat = (file: string) => {
                  try {
                    return readFileSync(`/proc/${pid}/${file}`, 'utf8').replace(/\0/g, ' ').trim();
                  } catch {
                    return '-';
                  }
                };
                return `  ${pid} ${stat('stat').split(' ')[2] ?? '?'} wchan=${stat('wchan')} ${stat('cmdline').slice(0, 200)}`;
              });
            return [
              cg,
              `  oom_control: ${read('memory.oom_control').replace(/\n/g, ', ')}`,
              `  usage: ${read('memory.usage_in_bytes')} events: ${read('pids.events').replace(/\n/g, ', ')}`,
              ...procs,
            ].join('\n');
          })
          .join('\n');

  /**
   * The built binary; `wrap` runs it inside another command (bwrap with the
   * cgroups read-only). A run that has not ended after 100 s is killed and
   * fails the test with what it printed and the state of Grove's cgroups.
   */
  const grove = (args: string[], wrap: readonly string[] = []) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((done, fail) => {
      const [command = process.execPath, ...rest] = [...wrap, process.execPath, GROVE_BIN, ...args];
      const child = spawn(command, rest, { cwd: repo, env, detached: true });
      let stdout = '';
      let stderr = '';
      const timer = setTimeout(() => {
        const state = cgroupState();
        // Every process below the run, with its state and wait channel, and the fake CLI's calls.
        const below = (root: number): string[] => {
          const all = liveProcesses();
          const lines: string[] = [];
          const walk = (pid: number, depth: number): void => {
            for (const p of all.filter((q) => q.ppid === pid)) {
              let wchan = '-';
              try {
                wchan = readFileSync(`/proc/${p.pid}/wchan`, 'utf8');
              } catch {
                // Gone.
              }
              lines.push(
                `${'  '.repeat(depth)}${p.pid} ${p.state} wchan=${wchan} ${p.cmdline.slice(0, 200)}`,
              );
              walk(p.pid, depth + 1);
            }
          };
          walk(root, 1);
          return lines;
        };
        const tree = child.pid === undefined ? [] : below(child.pid);
        let calls = '';
        try {
          calls = readFileSync(join(env['CLAUDE_FAKE_DIR'] ?? '', 'calls.jsonl'), 'utf8')
            .split('\n')
            .slice(-6)
            .map((line) => line.slice(0, 300))
            .join('\n');
        } catch {
          calls = '(none)';
        }
        let log = '';
        try {
          log = readFileSync(join(world.groveHome, 'logs', 'grove.log'), 'utf8').slice(-4000);
        } catch {
          log = '(no log)';
        }
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
        fail(
          new Error(
            `grove ${args.join(' ')} did not end in 100 s.\nstdout: ${stdout}\nstderr: ${stderr}\ncgroups:\n${state}\nprocesses below it:\n${tree.join('\n')}\nthe fake claude's last calls:\n${calls}\nGrove's log (its end):\n${log}`,
          ),
        );
      }, 100_000);
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.stdin.end();
      child.on('close', (code) => {
        clearTimeout(timer);
        done({ code, stdout, stderr });
      });
    });

  const committed = (sessionJson: string, file: string): string => {
    const { branch } = JSON.parse(sessionJson) as { branch: string };
    return execFileSync('git', ['show', '--stat', '--format=%s', branch], {
      cwd: repo,
      encoding: 'utf8',
    }).includes(file)
      ? file
      : `${file} is not in the last commit of ${branch}`;
  };

  it('--memory-max 64M stops an agent that fills 200 MB: the turn fails in words, its work is committed', async () => {
    const run = await grove([
      'run',
      '--json',
      '--memory-max',
      '64M',
      '[[file:before-oom.txt]] [[hog:200]]',
    ]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      "grove: The agent's process tree was stopped at its 64 MB memory limit. Its work so far is kept and committed.",
    );
    expect(committed(run.stdout, 'before-oom.txt')).toBe('before-oom.txt');
    const inbox = await grove(['inbox', '--json']);
    expect(JSON.parse(inbox.stdout)).toContainEqual(
      expect.objectContaining({
        kind: 'failedTurn',
        text: "The turn failed: The agent's process tree was stopped at its 64 MB memory limit. Its work so far is kept and committed.",
      }),
    );
    const { sessionId } = JSON.parse(run.stdout) as { sessionId: string };
    const shown = await grove(['show', sessionId]);
    expect(shown.stdout).toContain('stopped at its 64 MB memory limit');
  }, 180_000);

  it('--tasks-max 40 stops an agent that starts 100 children, even though it answers', async () => {
    const run = await grove([
      'run',
      '--json',
      '--tasks-max',
      '40',
      '[[file:before-forks.txt]] [[forks:100]]',
    ]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      "grove: The agent's process tree was stopped at its 40-process limit. Its work so far is kept and committed.",
    );
    expect(committed(run.stdout, 'before-forks.txt')).toBe('before-forks.txt');
  }, 180_000);

  it("takes the project's setting, which --memory-max none turns off", async () => {
    const db = new Database(join(world.groveHome, 'db', 'grove.db'));
    try {
      const project = db.prepare('SELECT id FROM project').get() as { id: number };
      db.prepare('INSERT INTO project_setting (project_id, name, value) VALUES (?, ?, ?)').run(
        project.id,
        'capacity.memoryMax',
        '64M',
      );
    } finally {
      db.close();
    }
    const limited = await grove(['run', '--json', '[[file:by-setting.txt]] [[hog:200]]']);
    expect(limited.code).toBe(1);
    expect(limited.stderr).toContain('stopped at its 64 MB memory limit');
    const free = await grove(['run', '--json', '--memory-max', 'none', '[[hog:200]]']);
    expect(free.stderr).toBe('');
    expect(free.code).toBe(0);
    expect(leftCgroups(found)).toEqual([]);
  }, 240_000);

  it('on a machine whose cgroups Grove cannot write, runs the agent without its limit and says why, once', async () => {
    // The same machine with /sys/fs/cgroup mounted read-only for Grove (and the agents it starts).
    const readOnly = [
      resolveBwrap(),
      '--dev-bind',
      '/',
      '/',
      '--ro-bind',
      '/sys/fs/cgroup',
      '/sys/fs/cgroup',
      '--',
    ];
    const run = await grove(
      [
        'run',
        '--json',
        '--memory-max',
        '64M',
        '--tasks-max',
        '40',
        '[[file:free.txt]] [[hog:100]]',
      ],
      readOnly,
    );
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(committed(run.stdout, 'free.txt')).toBe('free.txt');
    const { sessionId } = JSON.parse(run.stdout) as { sessionId: string };
    const shown = await grove(['show', '--json', sessionId]);
    const notices = (
      JSON.parse(shown.stdout) as { transcript: { kind: string; content: string }[] }
    ).transcript.filter((e) => e.content.startsWith('[Limits Warning]'));
    expect(notices.map((e) => e.content)).toEqual([
      expect.stringMatching(
        /^\[Limits Warning\] This session's limits \(64 MB memory, 40 processes\) are not enforced on this machine: .*Grove cannot make cgroups in \/sys\/fs\/cgroup\/.*\. The agent runs without them\.$/,
      ),
    ]);
  }, 180_000);

  it('refuses a bad --memory-max before anything is made', async () => {
    const run = await grove(['run', '--memory-max', '4X', 'hi']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--memory-max: Memory limit: give a size from 32M to 1P');
  });
});
