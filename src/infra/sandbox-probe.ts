// Is the operating system's sandbox engine there, and does it work here?
// bubblewrap on Linux (it must also be able to create a namespace: some
// containers and hardened kernels forbid it), Seatbelt (sandbox-exec) on
// macOS. Used by `grove doctor` and by the agent launcher.
import { existsSync } from 'node:fs';
import { which } from './agent/detect.js';
import { failureOf, firstLine, runTool, type ToolRun } from './exec.js';

export type SandboxProbe =
  | { readonly ok: true; readonly engine: 'bubblewrap' | 'seatbelt'; readonly version: string }
  | { readonly ok: false; readonly reason: string; readonly fix: string };

function run(
  file: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  signal: AbortSignal,
): Promise<ToolRun> {
  return runTool(file, args, { env, signal, timeoutMs: 5000 });
}

/** Finds the platform's sandbox engine on `env.PATH` and checks that it can confine a process. */
export async function probeSandbox(
  env: NodeJS.ProcessEnv,
  signal: AbortSignal,
): Promise<SandboxProbe> {
  switch (process.platform) {
    case 'linux':
      return probeBubblewrap(env, signal);
    case 'darwin':
      return probeSeatbelt(env, signal);
    default:
      return {
        ok: false,
        reason: `no sandbox engine is supported on ${process.platform}`,
        fix: 'run Grove on Linux (bubblewrap) or macOS (Seatbelt) to confine agents',
      };
  }
}

async function probeBubblewrap(env: NodeJS.ProcessEnv, signal: AbortSignal): Promise<SandboxProbe> {
  const bwrap = which('bwrap', env);
  if (bwrap === null) {
    return {
      ok: false,
      reason: 'bubblewrap (bwrap) is not installed',
      fix: 'install bubblewrap: sudo apt install bubblewrap (Debian, Ubuntu), sudo dnf install bubblewrap (Fedora), sudo pacman -S bubblewrap (Arch)',
    };
  }
  const version = await run(bwrap, ['--version'], env, signal);
  if (version.code !== 0) {
    return {
      ok: false,
      reason: `${bwrap} --version failed: ${failureOf(version)}`,
      fix: 'reinstall bubblewrap',
    };
  }
  const found = /\d+\.\d+(?:\.\d+)?/.exec(version.stdout)?.[0] ?? firstLine(version.stdout);
  // An absolute path: inside the sandbox, PATH lookup would test the caller's PATH, not bwrap.
  const probe = ['/usr/bin/true', '/bin/true'].find((path) => existsSync(path)) ?? '/usr/bin/true';
  const trial = await run(
    bwrap,
    [
      '--ro-bind',
      '/',
      '/',
      '--dev',
      '/dev',
      '--proc',
      '/proc',
      '--unshare-all',
      '--die-with-parent',
      probe,
    ],
    env,
    signal,
  );
  if (trial.code !== 0) {
    const why = failureOf(trial);
    return {
      ok: false,
      reason: `bubblewrap ${found} cannot create a sandbox here (${why})`,
      fix: 'allow unprivileged user namespaces (sudo sysctl kernel.unprivileged_userns_clone=1; on Ubuntu 24.04 and later, an AppArmor profile for bwrap or kernel.apparmor_restrict_unprivileged_userns=0), or in a container run it with --security-opt seccomp=unconfined',
    };
  }
  return { ok: true, engine: 'bubblewrap', version: found };
}

async function probeSeatbelt(env: NodeJS.ProcessEnv, signal: AbortSignal): Promise<SandboxProbe> {
  // sandbox-exec lives in /usr/bin on every macOS; look there too when PATH is narrow.
  const exec = which('sandbox-exec', env) ?? which('sandbox-exec', { PATH: '/usr/bin' });
  if (exec === null)
    return {
      ok: false,
      reason: 'sandbox-exec (Seatbelt) is not available',
      fix: 'sandbox-exec ships with macOS in /usr/bin; check that /usr/bin is on PATH',
    };
  const trial = await run(exec, ['-p', '(version 1)(allow default)', '/usr/bin/true'], env, signal);
  if (trial.code !== 0) {
    const why = failureOf(trial);
    return {
      ok: false,
      reason: `sandbox-exec cannot create a sandbox here (${why})`,
      fix: 'Grove cannot nest Seatbelt sandboxes: run it outside another sandbox',
    };
  }
  const release = await run('/usr/bin/sw_vers', ['-productVersion'], env, signal);
  return {
    ok: true,
    engine: 'seatbelt',
    version: release.code === 0 ? `macOS ${firstLine(release.stdout)}` : 'macOS',
  };
}
