import { loadExeca } from '../exec.js';

export type TokenSource = 'GITHUB_TOKEN' | 'GH_TOKEN' | 'gh';

/** Runs `gh` and returns its stdout, or null when it is missing or fails. */
export type GhRunner = (args: readonly string[]) => Promise<string | null>;

export const runGh: GhRunner = async (args) => {
  try {
    const { execa } = await loadExeca();
    const result = await execa('gh', [...args], { timeout: 5000, reject: false, stdin: 'ignore' });
    return result.exitCode === 0 ? String(result.stdout).trim() || null : null;
  } catch {
    return null;
  }
};

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
