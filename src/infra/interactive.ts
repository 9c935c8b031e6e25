// Programs the person works in, started in a session's worktree: a shell or
// an editor that takes the terminal over (Grove waits), or, inside tmux, a
// new tmux window (Grove goes on).
// The shell and the editor get Grove's terminal (stdio inherited): a raw spawn, not a tool run.
import { spawn } from 'node:child_process';
import { failureOf, runTool } from './exec.js';

/** The shell and the editor a person asked for, from their environment. */
export function shellCommand(env: NodeJS.ProcessEnv): string {
  return env['SHELL'] && env['SHELL'].trim() !== '' ? env['SHELL'] : '/bin/sh';
}

/** $VISUAL, else $EDITOR; null when neither is set (Grove guesses no editor). */
export function editorCommand(env: NodeJS.ProcessEnv): string | null {
  for (const name of ['VISUAL', 'EDITOR'] as const) {
    const value = env[name];
    if (value && value.trim() !== '') return value;
  }
  return null;
}

/** What `e` says when neither $VISUAL nor $EDITOR is set. */
export const NO_EDITOR =
  'no editor is set: set VISUAL or EDITOR (export EDITOR=nano) and restart Grove';

/**
 * Runs `command` (a program path, or an editor setting such as `code -w`,
 * split on spaces) with the terminal (stdio inherited) in `cwd`; resolves
 * with its exit code (or 1 when it could not start, with the reason).
 */
export function runInteractive(
  command: string,
  args: readonly string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<{ exitCode: number; error: string | null }> {
  const [file = command, ...rest] = command.trim().split(/\s+/);
  return new Promise((resolve) => {
    const child = spawn(file, [...rest, ...args], { cwd, env, stdio: 'inherit' });
    child.once('error', (error) => resolve({ exitCode: 1, error: error.message }));
    child.once('exit', (code, signal) =>
      resolve({ exitCode: code ?? (signal ? 128 : 1), error: null }),
    );
  });
}

/** Opens `command args` in a new tmux window whose folder is `cwd` (`tmux new-window -c`). */
export async function openTmuxWindow(
  command: string,
  args: readonly string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<void> {
  const [file = command, ...rest] = command.trim().split(/\s+/);
  const run = await runTool('tmux', ['new-window', '-c', cwd, '--', file, ...rest, ...args], {
    env,
    timeoutMs: 10_000,
  });
  if (run.code !== 0) throw new Error(`tmux new-window failed: ${failureOf(run)}`);
}
