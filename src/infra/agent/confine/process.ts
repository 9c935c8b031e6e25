// Raw child_process, not execa: a detached process group, a watchdog pipe on fd 3 and streamed stdio.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { createInterface } from 'node:readline';
import { which } from '../detect.js';

/**
 * An agent process in its own process group (and session, so it has no
 * controlling terminal), so a stop reaches everything it started. It is
 * started under a watchdog that ends the group when Grove goes away.
 */
export interface AgentProcess {
  readonly child: ChildProcessWithoutNullStreams;
  readonly pid: number;
  /** Resolves with the exit code (or signal) once the process has exited. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** The last ~8 KiB of stderr. */
  stderrTail(): string;
  /** SIGTERM to the whole group, SIGKILL after `graceMs`. Idempotent. */
  kill(graceMs?: number): void;
  /**
   * kill(), then wait until the process has exited (at most a second past
   * the grace), so a process started next never meets this one's files.
   */
  stop(graceMs?: number): Promise<void>;
}

const STDERR_TAIL = 8 * 1024;

export class SpawnError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The watchdog, run by /bin/sh as the group leader before it becomes the
 * agent (exec keeps the pid, so the group id is the agent's pid). A
 * background subshell blocks reading fd 3, a pipe whose other end only Grove
 * holds: when Grove exits, however it dies (kill -9 included), the read sees
 * end-of-file and the subshell SIGKILLs the whole process group. Grove also
 * closes its end when the agent exits, which ends any child the agent left
 * behind. Works with any POSIX sh (Linux and macOS).
 */
export const WATCHDOG_SCRIPT =
  '(read -r _ <&3; kill -s KILL 0) </dev/null >/dev/null 2>&1 & exec 3<&-; exec "$@"';

/** `command` as an absolute path (looked up on `env.PATH`), or null when it is not there. */
export function resolveCommand(command: string, env: NodeJS.ProcessEnv): string | null {
  if (!command.includes('/')) return which(command, env);
  try {
    accessSync(command, constants.X_OK);
    return command;
  } catch {
    return null;
  }
}

/**
 * Spawns `command` under the watchdog, in a new process group. Rejects with
 * SpawnError('ENOENT') when it is not installed, SpawnError('ENOCWD') when the
 * working folder is gone.
 */
export function spawnAgent(
  command: string,
  args: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): Promise<AgentProcess> {
  const resolved = resolveCommand(command, options.env);
  if (resolved === null)
    return Promise.reject(new SpawnError('ENOENT', `${command}: not found on PATH`));
  if (!isAbsolute(options.cwd) || !isDirectory(options.cwd))
    return Promise.reject(
      new SpawnError('ENOCWD', `the working folder ${options.cwd} does not exist`),
    );
  return new Promise((resolve, reject) => {
    const spawned = spawn('/bin/sh', ['-c', WATCHDOG_SCRIPT, 'grove-agent', resolved, ...args], {
      cwd: options.cwd,
      env: options.env,
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe', 'pipe'],
    });
    const child = spawned;
    const lifeline = spawned.stdio[3];
    // Closing Grove's end once the agent is gone lets the watchdog end the agent's leftovers.
    child.once('exit', () => lifeline?.destroy());
    let stderr = '';
    let killed = false;
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-STDERR_TAIL);
    });
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) => {
      // 'close' (not 'exit'): every line of stdout has been read by then.
      child.on('close', (code, signal) => done({ code, signal }));
    });
    const kill = (graceMs = 2000): void => {
      if (killed || child.exitCode !== null || child.signalCode !== null || child.pid === undefined)
        return;
      killed = true;
      const pid = child.pid;
      const signalGroup = (signal: NodeJS.Signals): void => {
        try {
          process.kill(-pid, signal);
        } catch {
          try {
            child.kill(signal);
          } catch {
            // Already gone.
          }
        }
      };
      signalGroup('SIGTERM');
      const timer = setTimeout(() => signalGroup('SIGKILL'), graceMs);
      timer.unref();
      void exited.then(() => clearTimeout(timer));
    };
    child.once('error', (error: NodeJS.ErrnoException) => {
      lifeline?.destroy();
      reject(new SpawnError(error.code ?? 'ERROR', error.message));
    });
    child.once('spawn', () => {
      child.stdin.on('error', () => {
        // The agent may exit before reading all of stdin.
      });
      const stop = async (graceMs = 2000): Promise<void> => {
        kill(graceMs);
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([
          exited,
          new Promise<void>((done) => {
            timer = setTimeout(done, graceMs + 1000);
            timer.unref();
          }),
        ]);
        clearTimeout(timer);
      };
      resolve({ child, pid: child.pid ?? -1, exited, stderrTail: () => stderr, kill, stop });
    });
  });
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** Calls `onLine` for each stdout line. */
export function readLines(
  child: ChildProcessWithoutNullStreams,
  onLine: (line: string) => void,
): void {
  const reader = createInterface({ input: child.stdout, crlfDelay: Infinity });
  reader.on('line', onLine);
}

const ESC = '\u001b';

/** A bounded, readable tail of stderr for diagnostics. */
export function stderrSummary(tail: string, max = 800): string {
  const clean = tail.replace(new RegExp(`${ESC}\\[[0-9;]*[A-Za-z]`, 'g'), '').trim();
  return clean.length > max ? `…${clean.slice(-max)}` : clean;
}
