import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';

/** An agent process in its own process group, so a stop reaches everything it started. */
export interface AgentProcess {
  readonly child: ChildProcessWithoutNullStreams;
  readonly pid: number;
  /** Resolves with the exit code (or signal) once the process has exited. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** The last ~8 KiB of stderr. */
  stderrTail(): string;
  /** SIGTERM to the whole group, SIGKILL after `graceMs`. Idempotent. */
  kill(graceMs?: number): void;
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

/** Spawns `command`; rejects with SpawnError('ENOENT') when it is not installed. */
export function spawnAgent(command: string, args: readonly string[], options: { cwd: string; env: NodeJS.ProcessEnv }): Promise<AgentProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, [...args], { cwd: options.cwd, env: options.env, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
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
      if (killed || child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
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
      reject(new SpawnError(error.code ?? 'ERROR', error.message));
    });
    child.once('spawn', () => {
      child.stdin.on('error', () => {
        // The agent may exit before reading all of stdin.
      });
      resolve({ child, pid: child.pid ?? -1, exited, stderrTail: () => stderr, kill });
    });
  });
}

/** Calls `onLine` for each stdout line. */
export function readLines(child: ChildProcessWithoutNullStreams, onLine: (line: string) => void): void {
  const reader = createInterface({ input: child.stdout, crlfDelay: Infinity });
  reader.on('line', onLine);
}

const ESC = '\u001b';

/** A bounded, readable tail of stderr for diagnostics. */
export function stderrSummary(tail: string, max = 800): string {
  const clean = tail.replace(new RegExp(`${ESC}\\[[0-9;]*[A-Za-z]`, 'g'), '').trim();
  return clean.length > max ? `…${clean.slice(-max)}` : clean;
}
