import type { TmuxTerminal } from '../tmux.js';
import { reply } from '../fake-model/reply.js';
import { startFakeModelServer, type FakeModelServer, type Scripted } from '../fake-model/server.js';
import { makeWorld, startGrove, type GroveWorld } from '../grove-env.js';
import { withStore } from '../seed.js';
import { gitHubAgentEnv, startGitHubProject } from './project.js';
import type { FakeGitHub } from './types.js';

// The world of an end-to-end test of the GitHub loop in the TUI: a project
// whose origin is the fake GitHub, the fake model server, and Grove in tmux.

/** The answers most of these tests script: the session's title, its commit message, the review. */
export const TITLE_STEP: Scripted = {
  when: 'Write a title for a coding task',
  text: reply('Add a greeting file'),
};
export const COMMIT_STEP: Scripted = {
  when: 'Write the git commit message for the changes',
  text: reply('Add the greeting files\n\nCreates hello.txt for the greeting.'),
};
export const REVIEW_STEP: Scripted = {
  when: 'You are reviewing the work of a coding agent',
  text: reply('## Review\n### Project Impact\nSmall and safe.\n### Suggestions\nNone.'),
};

export interface GitHubTui {
  readonly world: GroveWorld;
  /** The project (origin: github.com/acme/widgets, pushes going to `bare`). */
  readonly repo: string;
  readonly bare: string;
  readonly github: FakeGitHub;
  readonly model: FakeModelServer;
  /** The environment of a Grove talking to both fakes. */
  readonly env: Record<string, string>;
  /** Grove in tmux, once its empty session list is drawn. */
  start(size?: { columns: number; rows: number }): Promise<TmuxTerminal>;
  /** Ends Grove, both fakes, and removes the world. */
  close(): Promise<void>;
}

export async function openGitHubTui(
  token: string,
  options: {
    /** Scripted model answers (Claude Code's API). */
    readonly script?: readonly Scripted[];
    /** Pull requests polled every second (else the default). */
    readonly poll?: boolean;
  } = {},
): Promise<GitHubTui> {
  const world = makeWorld();
  const { repo, bare, github } = await startGitHubProject(world, token);
  const model = await startFakeModelServer();
  if (options.script) model.script('anthropic', options.script);
  // No background fetch (the remote URL is github.com).
  await withStore(world.groveHome, async (store) => {
    if (options.poll) await store.settings.setGlobal('github.pollInterval', '1s');
    await store.settings.setGlobal('git.statusInterval', 'off');
  });
  const env = gitHubAgentEnv(world, model, github, token);
  let term: TmuxTerminal | null = null;
  return {
    world,
    repo,
    bare,
    github,
    model,
    env,
    async start(size = { columns: 160, rows: 34 }) {
      term = await startGrove(world, repo, { env, ...size });
      await term.waitFor('No sessions yet.');
      return term;
    },
    async close() {
      await term?.kill();
      term = null;
      await github.stop();
      await model.close();
      world.cleanup();
    },
  };
}
