/** Where a GitHub repository lives and where its API is. */
export interface GitHubRepo {
  readonly host: string;
  readonly owner: string;
  readonly repo: string;
  readonly apiBaseUrl: string;
  /** The GraphQL endpoint: api.github.com/graphql, or `https://HOST/api/graphql` on Enterprise. */
  readonly graphqlUrl: string;
}

/**
 * Parses a git remote URL (https, ssh://, scp-like `git@host:o/r.git`, with
 * or without `.git`). github.com uses api.github.com; any other host is
 * treated as GitHub Enterprise (`https://HOST/api/v3`, GraphQL at
 * `https://HOST/api/graphql`). GROVE_GITHUB_API_URL overrides the API base
 * (GraphQL then at its `/graphql`, or `/api/graphql` for an `/api/v3` base).
 * Credentials in the URL are never kept.
 */
export function parseGitHubRemote(url: string, env: NodeJS.ProcessEnv = {}): GitHubRepo | null {
  const text = url.trim();
  let host: string | null = null;
  // An https remote on a non-standard port serves the API on that port too.
  let webHost: string | null = null;
  let path: string | null = null;
  const scp = /^(?:[^@/\s]+@)?([^:/\s]+):(?!\/)(.+)$/.exec(text);
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) {
    try {
      const parsed = new URL(text);
      if (!['https:', 'http:', 'ssh:', 'git:', 'git+ssh:', 'ssh+git:'].includes(parsed.protocol))
        return null;
      host = parsed.hostname;
      if (parsed.protocol === 'https:' || parsed.protocol === 'http:') webHost = parsed.host;
      path = parsed.pathname;
    } catch {
      return null;
    }
  } else if (scp) {
    host = scp[1] ?? null;
    path = scp[2] ?? null;
  }
  if (!host || !path) return null;
  const parts = path
    .replace(/^\/+|\/+$/g, '')
    .replace(/\.git$/, '')
    .split('/');
  if (parts.length !== 2 || !parts[0] || !parts[1]) return null;
  const [owner, repo] = parts as [string, string];
  const override = env['GROVE_GITHUB_API_URL']?.trim();
  // www.github.com and ssh.github.com (SSH over port 443) are github.com.
  const name = ['www.github.com', 'ssh.github.com'].includes(host.toLowerCase())
    ? 'github.com'
    : host.toLowerCase();
  const apiBaseUrl = override
    ? override.replace(/\/+$/, '')
    : name === 'github.com'
      ? 'https://api.github.com'
      : `https://${(webHost ?? host).toLowerCase()}/api/v3`;
  // Enterprise serves GraphQL beside the REST API, not under it.
  const graphqlUrl = /\/api\/v3$/.test(apiBaseUrl)
    ? apiBaseUrl.replace(/\/api\/v3$/, '/api/graphql')
    : `${apiBaseUrl}/graphql`;
  return { host: name, owner, repo, apiBaseUrl, graphqlUrl };
}
