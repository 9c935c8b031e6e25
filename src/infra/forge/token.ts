import { runTool } from '../exec.js';

export type TokenSource = 'GITHUB_TOKEN' | 'GH_TOKEN' | 'gh';

/** Runs `gh` and returns its stdout, or null when it is missing or fails. */
export type GhRunner = (args: readonly string[]) => Promise<string | null>;

/** A GhRunner for the `gh` at `file` (5 s, no stdin); Grove's environment unless `env` is given. */
export function ghRunner(
  file: string,
  options: { readonly env?: NodeJS.ProcessEnv; readonly signal?: AbortSignal } = {},
): GhRunner {
  return async (args) => {
    const run = await runTool(file, args, { ...options, timeoutMs: 5000 });
    return run.code === 0 ? run.stdout.trim() || null : null;
  };
}

export const runGh: GhRunner = ghRunner('gh');

/** GITHUB_TOKEN, then GH_TOKEN, then `gh auth token` for the host. */
export async function resolveGitHubToken(
  env: NodeJS.ProcessEnv,
  host: string,
  gh: GhRunner = runGh,
): Promise<{ token: string; source: TokenSource } | null> {
  const fromEnv = env['GITHUB_TOKEN']?.trim();
  if (fromEnv) return { token: fromEnv, source: 'GITHUB_TOKEN' };
  const ghToken = env['GH_TOKEN']?.trim();
  if (ghToken) return { token: ghToken, source: 'GH_TOKEN' };
  const fromGh = await gh(['auth', 'token', '--hostname', host]);
  return fromGh ? { token: fromGh, source: 'gh' } : null;
}
