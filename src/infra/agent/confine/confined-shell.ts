import type { ProviderId } from '../../../domain/providers.js';
import type { ShellResult, ShellRunner } from '../../shell.js';
import type { AgentLauncher } from './launcher.js';

// Commands Grove runs in a worktree an agent has written: the best-of check
// command (`npm test` runs the package.json scripts the agent edited) and,
// when the person turns them on, the repository's git hooks. They run code
// the agent controls, so they run where the agent does: through the one
// launcher, in the same sandbox as the agent of `provider`, with its
// filtered environment and network.

const MAX_OUTPUT = 64 * 1024;

/**
 * A ShellRunner whose commands run confined, as an agent of `provider`
 * would; with `mainCheckout`, a command in a session worktree gets that
 * session's own git access (its branch, its worktree's git folder).
 */
export function confinedShell(
  launcher: AgentLauncher,
  provider: ProviderId,
  mainCheckout?: string,
): ShellRunner {
  return {
    async run(command, { cwd, env, timeoutMs, signal, vars }): Promise<ShellResult> {
      const proc = await launcher.launch({
        provider,
        command: 'sh',
        args: ['-c', command],
        cwd,
        env,
        ...(vars ? { groveVars: vars } : {}),
        ...(mainCheckout ? { mainCheckout } : {}),
      });
      proc.child.stdin.end();
      let output = '';
      const take = (chunk: Buffer): void => {
        output += chunk.toString('utf8');
        if (output.length > 2 * MAX_OUTPUT) output = output.slice(-MAX_OUTPUT);
      };
      proc.child.stdout.on('data', take);
      proc.child.stderr.on('data', take);
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        proc.kill(2000);
      }, timeoutMs);
      const onAbort = (): void => proc.kill(2000);
      signal?.addEventListener('abort', onAbort, { once: true });
      if (signal?.aborted) onAbort();
      try {
        const exit = await proc.exited;
        return {
          exitCode: timedOut ? 124 : (exit.code ?? 1),
          output: output.length > MAX_OUTPUT ? output.slice(-MAX_OUTPUT) : output,
          timedOut,
        };
      } finally {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      }
    },
  };
}
