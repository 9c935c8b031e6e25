import { providerInfo } from '../../domain/providers.js';
import { GIT_HOOKS_KEY } from '../../domain/settings.js';
import type { HookRunner } from '../../infra/git/hooks.js';
import type { Agents } from '../ports.js';

// The setting git.hooks: Grove's own commits run none of the repository's
// hooks (an agent can edit them), unless the person asks for them; then
// pre-commit and commit-msg run through `git hook run` inside the sandbox of
// the session's agent, never as the person outside it.

const HOOK_TIMEOUT_MS = 5 * 60_000;
const MESSAGE_MARK = '--- grove: commit message ---';

/**
 * The hook runner for a commit in `dir` (a session's worktree, or the main
 * checkout for a merge), or undefined when git.hooks is off.
 */
export function hooksFor(
  settings: Readonly<Record<string, string>>,
  agents: Agents,
  agent: string,
  dir: string,
  env: NodeJS.ProcessEnv,
  mainCheckout: string,
): HookRunner | undefined {
  if (settings[GIT_HOOKS_KEY] !== 'sandboxed') return undefined;
  const shell = agents.shell(providerInfo(agent)?.id ?? 'claude', mainCheckout);
  return async (hook, message) => {
    // The message travels inside the command (the sandbox's environment is an
    // allow-list) and comes back after a mark, as commit-msg left it.
    const encoded = Buffer.from(message).toString('base64');
    const script =
      hook === 'pre-commit'
        ? 'git hook run --ignore-missing pre-commit'
        : `f="\${TMPDIR:-/tmp}/grove-commit-msg"; printf %s ${encoded} | base64 -d > "$f" && git hook run --ignore-missing commit-msg -- "$f"; s=$?; printf '\\n${MESSAGE_MARK}\\n'; base64 < "$f"; exit $s`;
    const result = await shell.run(script, { cwd: dir, env, timeoutMs: HOOK_TIMEOUT_MS });
    if (hook === 'pre-commit') return { ...result, message };
    const at = result.output.lastIndexOf(`\n${MESSAGE_MARK}\n`);
    if (at < 0) return { exitCode: result.exitCode || 1, output: result.output, message };
    const edited = Buffer.from(
      result.output.slice(at + MESSAGE_MARK.length + 2),
      'base64',
    ).toString('utf8');
    return {
      exitCode: result.exitCode,
      output: result.output.slice(0, at),
      message: edited.trim() === '' ? message : edited,
    };
  };
}
