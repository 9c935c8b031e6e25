// Session limits enforced by the operating system (issue 27, item 3;
// docs/usage/capacity.md, "Limits"). Three ways, tried in order once per
// process:
//   1. systemd-run --user --scope -p MemoryMax= -p TasksMax=, where a user
//      systemd answers and has the memory and pids controllers (cgroup v2);
//   2. a cgroup Grove makes itself: under its own cgroup on a cgroup v2
//      layout that gives it memory and pids, or, as root, under its own
//      cgroups of the cgroup v1 memory and pids hierarchies;
//   3. none, with the reason in words.
// With a cgroup of its own, the agent is moved in before it runs anything (a
// small sh wrapper writes its own pid to cgroup.procs, then execs), so no
// child can be forked outside it; the counters (oom_kill, pids max) say
// afterwards whether the limit was met, and the cgroup is removed when the
// agent has ended. Grove only ever removes the cgroups it made.
import {
  accessSync,
  constants,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import type { LimitHit, SessionLimits } from '../../../domain/limits.js';
import { runTool } from '../../exec.js';
import { pidAlive } from './leftovers.js';

/** How limits are enforced on this machine. */
export type LimitBackend =
  | { readonly kind: 'systemd' }
  | {
      readonly kind: 'cgroup';
      readonly version: 1 | 2;
      /** Where Grove makes its cgroups: the memory and the pids hierarchy's folder (the same on v2). */
      readonly memory: string;
      readonly pids: string;
    }
  | { readonly kind: 'unavailable'; readonly reason: string };

/** What the probe reads; each part replaceable (tests give a cgroup folder of their own). */
export interface LimitProbeInput {
  readonly platform: NodeJS.Platform;
  readonly uid: number;
  /** The text of /proc/self/mounts. */
  readonly mounts: string;
  /** The text of /proc/self/cgroup. */
  readonly ownCgroup: string;
  /** Null when a user systemd runs scopes with the limits; else why not. */
  readonly systemd: () => Promise<string | null>;
}

function readOr(path: string, fallback: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return fallback;
  }
}

function words(path: string): Set<string> {
  return new Set(readOr(path, '').trim().split(/\s+/).filter(Boolean));
}

interface Mount {
  readonly dir: string;
  readonly type: string;
  readonly options: readonly string[];
}

function parseMounts(text: string): Mount[] {
  return text
    .split('\n')
    .map((line) => line.split(' '))
    .filter((f) => f.length >= 4)
    .map(([, dir = '', type = '', options = '']) => ({
      dir: dir.replace(/\\040/g, ' '),
      type,
      options: options.split(','),
    }));
}

/** The process's path in the hierarchy of `controller` ('' for cgroup v2), from /proc/self/cgroup. */
function ownPath(text: string, controller: string): string | null {
  for (const line of text.split('\n')) {
    const [, list, path] = /^\d+:([^:]*):(.*)$/.exec(line.trim()) ?? [];
    if (list === undefined || path === undefined) continue;
    if (controller === '' ? list === '' : list.split(',').includes(controller)) return path;
  }
  return null;
}

/** Whether a folder takes a child cgroup: one is made and removed at once. */
function canMakeChild(dir: string): boolean {
  const probe = join(dir, `grove-probe-${process.pid}`);
  try {
    accessSync(dir, constants.W_OK);
    mkdirSync(probe);
    rmdirSync(probe);
    return true;
  } catch {
    return false;
  }
}

function cgroupV2(input: LimitProbeInput, mounts: Mount[]): LimitBackend | string {
  const mount = mounts.find((m) => m.type === 'cgroup2');
  if (!mount) return 'there is no cgroup v2 hierarchy';
  const own = join(mount.dir, ownPath(input.ownCgroup, '') ?? '/');
  const has = (set: Set<string>): boolean => set.has('memory') && set.has('pids');
  // Grove's own cgroup hands memory and pids to the cgroups it makes, or (as root) the hierarchy's top does.
  for (const dir of input.uid === 0 ? [own, mount.dir] : [own]) {
    if (has(words(join(dir, 'cgroup.subtree_control'))) && canMakeChild(dir))
      return { kind: 'cgroup', version: 2, memory: dir, pids: dir };
  }
  const controllers = words(join(own, 'cgroup.controllers'));
  return has(controllers)
    ? `cgroup v2 gives Grove's cgroup (${own}) the memory and pids controllers but does not let it make cgroups that use them`
    : `cgroup v2 does not delegate the memory and pids controllers to Grove's cgroup (it has ${[...controllers].join(' ') || 'none'})`;
}

function cgroupV1(input: LimitProbeInput, mounts: Mount[]): LimitBackend | string {
  const hierarchy = (controller: string): string | null => {
    const mount = mounts.find((m) => m.type === 'cgroup' && m.options.includes(controller));
    const path = ownPath(input.ownCgroup, controller);
    return mount && path !== null ? join(mount.dir, path) : null;
  };
  const memory = hierarchy('memory');
  const pids = hierarchy('pids');
  if (memory === null || pids === null)
    return 'the cgroup v1 memory and pids hierarchies are not both mounted';
  if (input.uid !== 0) return 'cgroup v1 cgroups can be made only by root';
  if (!canMakeChild(memory) || !canMakeChild(pids))
    return `Grove cannot make cgroups in ${memory} and ${pids}`;
  return { kind: 'cgroup', version: 1, memory, pids };
}

/** Whether a user systemd runs a scope with a memory and a task limit, and hands those controllers to the user. */
export async function userSystemd(uid: number, mounts: string): Promise<string | null> {
  const run = await runTool(
    'systemd-run',
    ['--user', '--scope', '--quiet', '-p', 'MemoryMax=1G', '-p', 'TasksMax=64', '--', 'true'],
    { timeoutMs: 10_000 },
  );
  if (run.error || run.code !== 0) {
    const why = (run.stderr.trim().split('\n')[0] ?? '').slice(0, 200);
    return `no user systemd answers (systemd-run --user${why ? `: ${why}` : ' is not installed'})`;
  }
  const v2 = parseMounts(mounts).find((m) => m.type === 'cgroup2');
  const service = v2 && join(v2.dir, `user.slice/user-${uid}.slice/user@${uid}.service`);
  const given = service ? words(join(service, 'cgroup.controllers')) : new Set<string>();
  return given.has('memory') && given.has('pids')
    ? null
    : 'the user systemd does not have the memory and pids controllers (cgroup v2 delegation)';
}

/** How limits can be enforced here, or why they cannot. */
export async function probeLimits(given: Partial<LimitProbeInput> = {}): Promise<LimitBackend> {
  const platform = given.platform ?? process.platform;
  if (platform === 'darwin')
    return { kind: 'unavailable', reason: 'session limits are not supported on macOS' };
  if (platform !== 'linux')
    return { kind: 'unavailable', reason: `session limits are not supported on ${platform}` };
  const mounts = given.mounts ?? readOr('/proc/self/mounts', '');
  const uid = given.uid ?? process.getuid?.() ?? -1;
  const input: LimitProbeInput = {
    platform,
    uid,
    mounts,
    ownCgroup: given.ownCgroup ?? readOr('/proc/self/cgroup', ''),
    systemd: given.systemd ?? (() => userSystemd(uid, mounts)),
  };
  const reasons: string[] = [];
  const systemd = await input.systemd();
  if (systemd === null) return { kind: 'systemd' };
  reasons.push(systemd);
  const parsed = parseMounts(input.mounts);
  for (const attempt of [cgroupV2, cgroupV1]) {
    const found = attempt(input, parsed);
    if (typeof found !== 'string') return found;
    reasons.push(found);
  }
  return { kind: 'unavailable', reason: reasons.join('; ') };
}

/**
 * Enters the cgroups named before `--` (each a cgroup.procs file), then
 * becomes the command after it: the pid stays, nothing runs outside.
 */
export const ENTER_SCRIPT =
  'while [ "$1" != -- ]; do echo $$ > "$1" || { echo "grove: could not enter the agent\'s cgroup $1" >&2; exit 125; }; shift; done; shift; exec "$@"';

/** One agent process under its limits. */
export interface LimitedRun {
  /** The command line that runs `command args` inside the limits. */
  readonly command: string;
  readonly args: readonly string[];
  /** Variables the wrapper itself needs (the user bus for systemd-run), taken away again before the agent runs. */
  readonly env: Readonly<Record<string, string>>;
  /** The limit met since the last call (counters read now, or as they were when the agent ended); null: none. */
  takeHit(): Promise<LimitHit | null>;
  /** Once the agent has ended: keeps the final counters and removes what was made. */
  finish(): Promise<void>;
}

interface Counters {
  readonly oomKills: number;
  readonly pidsMax: number;
}

function counter(text: string, name: string): number | null {
  const match = new RegExp(`^${name} (\\d+)$`, 'm').exec(text);
  return match ? Number(match[1]) : null;
}

let made = 0;

/**
 * Makes this agent's cgroups (or its scope's command line); throws an Error
 * in words. `agentEnv` is the environment the agent gets.
 */
export function startLimited(
  backend: Exclude<LimitBackend, { kind: 'unavailable' }>,
  limits: SessionLimits,
  command: string,
  args: readonly string[],
  agentEnv: NodeJS.ProcessEnv = {},
): LimitedRun {
  const name = `grove-${process.pid}-${++made}`;
  return backend.kind === 'systemd'
    ? systemdRun(name, limits, command, args, agentEnv)
    : cgroupRun(backend, name, limits, command, args);
}

function hitOf(limits: SessionLimits, before: Counters, now: Counters): LimitHit | null {
  if (limits.memoryBytes !== null && now.oomKills > before.oomKills)
    return { kind: 'memory', bytes: limits.memoryBytes };
  if (limits.tasks !== null && now.pidsMax > before.pidsMax)
    return { kind: 'tasks', tasks: limits.tasks };
  return null;
}

function cgroupRun(
  backend: Extract<LimitBackend, { kind: 'cgroup' }>,
  name: string,
  limits: SessionLimits,
  command: string,
  args: readonly string[],
): LimitedRun {
  const memDir = limits.memoryBytes === null ? null : join(backend.memory, name);
  const pidsDir =
    limits.tasks === null
      ? null
      : backend.version === 2 && memDir
        ? memDir
        : join(backend.pids, name);
  const dirs = [...new Set([memDir, pidsDir].filter((d): d is string => d !== null))];
  const write = (dir: string, file: string, value: string): void =>
    writeFileSync(join(dir, file), value);
  try {
    for (const dir of dirs) mkdirSync(dir);
    if (memDir && limits.memoryBytes !== null) {
      const bytes = String(limits.memoryBytes);
      if (backend.version === 2) {
        write(memDir, 'memory.max', bytes);
        // As cgroup v1's memsw below: no swapping past the limit.
        if (existsSync(join(memDir, 'memory.swap.max'))) write(memDir, 'memory.swap.max', '0');
      } else {
        write(memDir, 'memory.limit_in_bytes', bytes);
        if (existsSync(join(memDir, 'memory.memsw.limit_in_bytes')))
          write(memDir, 'memory.memsw.limit_in_bytes', bytes);
      }
    }
    if (pidsDir && limits.tasks !== null) write(pidsDir, 'pids.max', String(limits.tasks));
  } catch (error) {
    for (const dir of dirs) removeCgroup(dir);
    throw new Error(
      `Grove could not make the agent's cgroup: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
  const read = (): Counters => ({
    oomKills: memDir
      ? ((backend.version === 2
          ? counter(readOr(join(memDir, 'memory.events'), ''), 'oom_kill')
          : (counter(readOr(join(memDir, 'memory.oom_control'), ''), 'oom_kill') ??
            Number(readOr(join(memDir, 'memory.failcnt'), '0').trim() || 0))) ?? 0)
      : 0,
    pidsMax: pidsDir ? (counter(readOr(join(pidsDir, 'pids.events'), ''), 'max') ?? 0) : 0,
  });
  let seen: Counters = { oomKills: 0, pidsMax: 0 };
  let final: Counters | null = null;
  return {
    env: {},
    command: '/bin/sh',
    args: [
      '-c',
      ENTER_SCRIPT,
      'grove-limits',
      ...dirs.map((d) => join(d, 'cgroup.procs')),
      '--',
      command,
      ...args,
    ],
    takeHit: () => {
      const now = final ?? read();
      const hit = hitOf(limits, seen, now);
      seen = now;
      return Promise.resolve(hit);
    },
    finish: async () => {
      if (final) return;
      final = read();
      await Promise.all(dirs.map((dir) => removeWhenEmpty(dir)));
    },
  };
}

/** rmdir of a cgroup Grove made; processes still in it (left by the agent) are ended first. */
async function removeWhenEmpty(dir: string): Promise<void> {
  for (let attempt = 0; attempt < 20; attempt++) {
    if (removeCgroup(dir)) return;
    for (const pid of readOr(join(dir, 'cgroup.procs'), '').split('\n').filter(Boolean)) {
      try {
        process.kill(Number(pid), 'SIGKILL');
      } catch {
        // Gone already.
      }
    }
    await new Promise((done) => setTimeout(done, 100));
  }
}

function removeCgroup(dir: string): boolean {
  try {
    rmdirSync(dir);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT';
  }
}

/**
 * The cgroups of Grove processes that are gone (`grove-PID-N` with no
 * process PID), left when one was killed before it could remove them.
 */
export function sweepLimitCgroups(backend: LimitBackend): number {
  if (backend.kind !== 'cgroup') return 0;
  let removed = 0;
  for (const base of new Set([backend.memory, backend.pids])) {
    let names: string[] = [];
    try {
      names = readdirSync(base);
    } catch {
      continue;
    }
    for (const name of names) {
      const pid = /^grove-(\d+)-\d+$/.exec(name)?.[1];
      if (pid === undefined || Number(pid) === process.pid || pidAlive(Number(pid))) continue;
      if (removeCgroup(join(base, name))) removed++;
    }
  }
  return removed;
}

/**
 * A transient scope of the user systemd. Its cgroup goes when the agent
 * ends, so the memory limit is read from the scope's result (systemd stops a
 * scope whose process the kernel OOM-killed, with the result oom-kill); the
 * failed scope is then reset. A process-count limit met is not recorded by
 * systemd, so it is not reported (docs/usage/capacity.md).
 */
function systemdRun(
  name: string,
  limits: SessionLimits,
  command: string,
  args: readonly string[],
  agentEnv: NodeJS.ProcessEnv,
): LimitedRun {
  const unit = `${name}.scope`;
  // systemd-run finds the user's bus through these; the agent's filtered environment has neither.
  const bus: Record<string, string> = {};
  for (const variable of ['XDG_RUNTIME_DIR', 'DBUS_SESSION_BUS_ADDRESS']) {
    const value = process.env[variable];
    if (value !== undefined && agentEnv[variable] === undefined) bus[variable] = value;
  }
  const unset = Object.keys(bus).flatMap((variable) => ['-u', variable]);
  let result: Promise<string> | null = null;
  let reported = false;
  return {
    env: bus,
    command: 'systemd-run',
    args: [
      '--user',
      '--scope',
      '--quiet',
      `--unit=${unit}`,
      ...(limits.memoryBytes === null ? [] : ['-p', `MemoryMax=${limits.memoryBytes}`]),
      ...(limits.tasks === null ? [] : ['-p', `TasksMax=${limits.tasks}`]),
      '--',
      ...(unset.length > 0 ? ['/usr/bin/env', ...unset] : []),
      command,
      ...args,
    ],
    takeHit: async () => {
      if (!result || reported) return null;
      if ((await result) !== 'oom-kill' || limits.memoryBytes === null) return null;
      reported = true;
      return { kind: 'memory', bytes: limits.memoryBytes };
    },
    finish: async () => {
      result ??= runTool('systemctl', ['--user', 'show', '-p', 'Result', '--value', unit], {
        timeoutMs: 10_000,
      }).then(async (run) => {
        await runTool('systemctl', ['--user', 'reset-failed', unit], { timeoutMs: 10_000 });
        return run.stdout.trim();
      });
      await result;
    },
  };
}
