import type { GitHubState } from './state.js';

/** The user the token belongs to (and, renamed, the repository's owner). */
export const USER = {
  login: 'grove-tester',
  id: 1001,
  node_id: 'U_grove',
  type: 'User',
  site_admin: false,
  avatar_url: 'https://avatars.githubusercontent.com/u/1001',
  html_url: 'https://github.com/grove-tester',
};

/** The repository as GitHub shows it inside a pull request's head and base. */
export const repoJson = (state: GitHubState) => ({
  id: 4242,
  node_id: 'R_widgets',
  name: state.repo,
  full_name: `${state.owner}/${state.repo}`,
  private: true,
  owner: { ...USER, login: state.owner },
  html_url: `https://github.com/${state.owner}/${state.repo}`,
  url: `${state.url}/repos/${state.owner}/${state.repo}`,
  default_branch: 'main',
});

/** Whether the Authorization header carries the token the fake accepts. */
export function authorized(authorization: string | undefined, token: string): boolean {
  const auth = authorization ?? '';
  return auth === `token ${token}` || auth === `Bearer ${token}`;
}
