import { loadExeca } from './exec.js';

export interface ShellResult {
  readonly exitCode: number;
  /** stdout and stderr interleaved, bounded to the last 64 KiB. */
  readonly output: string;
  readonly timedOut: boolean;
}

export interface ShellRunner {
  /** Runs a user-configured shell command (e.g. the worktree setup command). */
  run(
    command: string,
    options: {
      cwd: string;
      env: NodeJS.ProcessEnv;
      timeoutMs: number;
      signal?: AbortSignal;
      /**
       * Variables Grove sets for this run (a session hook's GROVE_*), added
       * after a confined runner has filtered `env`.
       */
      vars?: Readonly<Record<string, string>>;
    },
  ): Promise<ShellResult>;
}

const MAX_OUTPUT = 64 * 1024;

export const shellRunner: ShellRunner = {
  async run(command, { cwd, env, timeoutMs, signal, vars }) {
    const { execa } = await loadExeca();
    // Its own process group: on timeout or abort the whole group is ended (a
    // test runner's children too), not only `sh`, whose children would keep
    // the output open and the command running.
    const child = execa('sh', ['-c', command], {
      cwd,
      env: { ...env, ...vars },
      extendEnv: false,
      all: true,
      reject: false,
      stdin: 'ignore',
      detached: true,
    });
    let timedOut = false;
    let killTimer: NodeJS.Timeout | null = null;
    const stopGroup = (): void => {
      const pid = child.pid;
      if (pid === undefined || killTimer) return;
      const kill = (sig: NodeJS.Signals): void => {
        try {
          process.kill(-pid, sig);
        } catch {
          // Already gone.
        }
      };
      kill('SIGTERM');
      killTimer = setTimeout(() => kill('SIGKILL'), 2000);
      killTimer.unref();
    };
    const timer = setTimeout(() => {
      timedOut = true;
      stopGroup();
    }, timeoutMs);
    const onAbort = (): void => stopGroup();
    signal?.addEventListener('abort', onAbort, { once: true });
    if (signal?.aborted) stopGroup();
    try {
      const result = await child;
      const all = typeof result.all === 'string' ? result.all : '';
      return {
        exitCode: timedOut ? 124 : (result.exitCode ?? 1),
        output: all.length > MAX_OUTPUT ? all.slice(-MAX_OUTPUT) : all,
        timedOut,
      };
    } finally {
      clearTimeout(timer);
      if (killTimer) clearTimeout(killTimer);
      signal?.removeEventListener('abort', onAbort);
    }
  },
};
