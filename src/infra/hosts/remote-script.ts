// A POSIX sh script run on a host over the shared connection, its arguments
// passed as quoted words (never pasted into the script), and its failure put
// in words. Also where Grove's root folder on a host is: the host's own path
// for `.grove-host`, `~/x` or `/abs`, as the host user's shell resolves it.
import type { Host } from '../../domain/host.js';
import { sanitizeText } from '../../domain/sanitize.js';
import { firstLine } from '../exec.js';
import { shellCommand } from './quote.js';
import { sshFailure, type Ssh } from './ssh.js';

/** A remote command that failed: ssh could not run it, or it exited non-zero. */
export class HostError extends Error {
  readonly kind = 'host' as const;
  constructor(
    message: string,
    /** What to do about it, when known. */
    readonly fix: string | null = null,
  ) {
    super(sanitizeText(message));
    this.name = 'HostError';
  }
}

/**
 * Shell lines that set `root` from `$1` (Grove's root folder as the host was
 * added with it) to an absolute path: `~` and `~/…` are the host user's home,
 * a relative path is under it (where ssh starts a command).
 */
export const ROOT_PRELUDE = `root=$1
case $root in "~") root=$HOME ;; "~/"*) root=$HOME/\${root#??} ;; esac
case $root in /*) ;; *) root=$HOME/$root ;; esac
`;

export interface ScriptOptions {
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
  readonly input?: string;
}

/**
 * Runs `script` with `sh -c` on the host; `args` are its $1, $2… (the first
 * is usually the host's root, for ROOT_PRELUDE). Returns its stdout; throws a
 * HostError in words when ssh fails or the script exits non-zero.
 */
export async function runScript(
  ssh: Ssh,
  host: Host,
  what: string,
  script: string,
  args: readonly string[],
  options: ScriptOptions,
): Promise<string> {
  const command = shellCommand(['sh', '-c', script, 'grove', ...args]);
  const run = await ssh.run(host.destination, command, {
    timeoutMs: options.timeoutMs,
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.input === undefined ? {} : { input: options.input }),
  });
  const failure = sshFailure(run, host.destination);
  if (failure) throw new HostError(`${what}: ${failure.reason}`, failure.fix);
  if (run.code !== 0)
    throw new HostError(
      `${what} failed on ${host.name} (exit ${String(run.code)}): ${firstLine(run.stderr) || firstLine(run.stdout)}`,
    );
  return run.stdout;
}

/** Grove's root folder on the host as an absolute, real path; created when missing. */
export async function resolveRoot(ssh: Ssh, host: Host, signal?: AbortSignal): Promise<string> {
  const out = await runScript(
    ssh,
    host,
    `the root folder ${host.root}`,
    `${ROOT_PRELUDE}mkdir -p -- "$root" && cd -- "$root" && pwd -P`,
    [host.root],
    { timeoutMs: 60_000, ...(signal ? { signal } : {}) },
  );
  const path = out.replace(/\n$/, '');
  if (!path.startsWith('/') || path.includes('\n'))
    throw new HostError(`the root folder ${host.root} on ${host.name} is not a path: ${path}`);
  return path;
}
