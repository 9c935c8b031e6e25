import { loadExeca } from './exec.js';

export interface ShellResult {
  readonly exitCode: number;
  /** stdout and stderr interleaved, bounded to the last 64 KiB. */
  readonly output: string;
  readonly timedOut: boolean;
}

export interface ShellRunner {
  /** Runs a user-configured shell command (e.g. the worktree setup command). */
  run(command: string, options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number; signal?: AbortSignal }): Promise<ShellResult>;
}

const MAX_OUTPUT = 64 * 1024;

export const shellRunner: ShellRunner = {
  async run(command, { cwd, env, timeoutMs, signal }) {
    const { execa } = await loadExeca();
    const result = await execa('sh', ['-c', command], {
      cwd,
      env,
      extendEnv: false,
      all: true,
      reject: false,
      stdin: 'ignore',
      timeout: timeoutMs,
      ...(signal ? { cancelSignal: signal } : {}),
      killSignal: 'SIGTERM',
      forceKillAfterDelay: 2000,
    });
    const all = typeof result.all === 'string' ? result.all : '';
    return {
      exitCode: result.exitCode ?? (result.timedOut ? 124 : 1),
      output: all.length > MAX_OUTPUT ? all.slice(-MAX_OUTPUT) : all,
      timedOut: result.timedOut === true,
    };
  },
};
