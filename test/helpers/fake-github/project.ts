import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { agentEnv } from '../agent-env.js';
import type { FakeModelServer } from '../fake-model/server.js';
import { agentWorldEnv, git, makeRepo, type GroveWorld } from '../grove-env.js';
import { startFakeGitHub } from './server.js';
import type { FakeGitHub } from './types.js';

/**
 * A project whose origin is github.com/acme/widgets (so Grove finds the
 * repository there) with pushes going to a local bare repository, and the
 * fake GitHub serving that repository.
 */
export async function startGitHubProject(
  world: GroveWorld,
  token: string,
): Promise<{ repo: string; bare: string; github: FakeGitHub }> {
  const remoteUrl = 'https://github.com/acme/widgets.git';
  const repo = makeRepo(world, 'widgets', true);
  const bare = join(world.dir, 'widgets-origin.git');
  git(repo, 'remote', 'set-url', 'origin', remoteUrl);
  git(repo, 'config', `url.${bare}.pushInsteadOf`, remoteUrl);
  const github = await startFakeGitHub({ owner: 'acme', repo: 'widgets', token, bareRepo: bare });
  return { repo, bare, github };
}

/**
 * The environment of a Grove that talks to the fake model and to the fake
 * GitHub with `token` (a `gh` config folder of its own, empty).
 */
export function gitHubAgentEnv(
  world: GroveWorld,
  model: FakeModelServer,
  github: FakeGitHub,
  token: string,
): Record<string, string> {
  mkdirSync(join(world.home, 'gh-config'), { recursive: true });
  return {
    ...agentWorldEnv(world, agentEnv(model, world.home)),
    GITHUB_TOKEN: token,
    GROVE_GITHUB_API_URL: github.url,
    GH_CONFIG_DIR: join(world.home, 'gh-config'),
  };
}
