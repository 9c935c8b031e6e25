import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { startClaudeHost } from '../helpers/claude-host.js';
import { setUpE2eWorld } from '../helpers/e2e-world.js';
import { gitHubAgentEnv, startGitHubProject } from '../helpers/fake-github/project.js';
import type { FakeGitHub } from '../helpers/fake-github/types.js';
import { reply } from '../helpers/fake-model/reply.js';
import { git, runGrove, startGrove } from '../helpers/grove-env.js';
import { withStore } from '../helpers/seed.js';
import { sshdIt, type TestHost } from '../helpers/sshd.js';
import type { TmuxTerminal } from '../helpers/tmux.js';
import { waitUntil } from '../helpers/wait.js';

// Landing a session that ran on a host (issue 24: "review and merge a remote
// session locally, publish it"), in the built binary in tmux: the session is
// made by `grove run --host` on the test sshd's second user with the real
// Claude Code there; the TUI shows its diff, merges it (squash) into main
// here after main moved, and publishes another one as a pull request to the
// fake GitHub, whose branch then follows a reply that runs on the host.

const it = sshdIt();
const e2e = setUpE2eWorld();
const ROOT = `.grove-test-land-${process.pid}`;
// Not shaped like a GitHub token, so only Grove's own handling keeps it out of the host.
const TOKEN = 'grove-e2e-land-5c1d9a0e77';

interface Landing {
  readonly t: TmuxTerminal;
  readonly sshd: TestHost;
  readonly repo: string;
  readonly bare: string;
  readonly github: FakeGitHub;
  /** `grove run --host build` of `prompt`, to the end; the session's branch and worktree. */
  readonly runOnHost: (
    prompt: string,
  ) => Promise<{ sessionId: string; branch: string; worktree: string }>;
}

/** A project on the fake GitHub, a host with the real Claude Code, and Grove in tmux once `start` is called. */
async function withLanding(
  test: (
    world: Omit<Landing, 't'> & { readonly start: () => Promise<TmuxTerminal> },
  ) => Promise<void>,
): Promise<void> {
  const { repo, bare, github } = await startGitHubProject(e2e.world, TOKEN);
  const host = await startClaudeHost(e2e.server.url);
  try {
    const env = {
      ...gitHubAgentEnv(e2e.world, e2e.server, github, TOKEN),
      GROVE_SSH_CONFIG: host.sshd.config,
    };
    await withStore(e2e.world.groveHome, async (store) => {
      await store.settings.setGlobal('github.pollInterval', '1s');
      await store.settings.setGlobal('git.statusInterval', 'off');
    });
    const grove = (args: readonly string[]) => runGrove(e2e.world.env(env), repo, args);
    const added = await grove(['host', 'add', 'build', host.sshd.alias, '--root', ROOT]);
    expect(added.code, added.out).toBe(0);
    await test({
      sshd: host.sshd,
      repo,
      bare,
      github,
      async runOnHost(prompt) {
        const run = await grove(['run', '--host', 'build', '--output', 'json', prompt]);
        expect(run.code, run.out).toBe(0);
        return JSON.parse(run.stdout) as { sessionId: string; branch: string; worktree: string };
      },
      start: async () =>
        e2e.track(await startGrove(e2e.world, repo, { env, columns: 140, rows: 36 })),
    });
  } finally {
    await e2e.term?.kill();
    e2e.term = null;
    await github.stop();
    await host.close(ROOT);
  }
}

/** The title, commit message and focused review of one more turn. */
function utilities(title: string, commit: string): void {
  e2e.server.script('anthropic', [
    { when: 'Write a title for a coding task', text: reply(title) },
    { when: 'Write the git commit message for the changes', text: reply(commit) },
    { when: 'You are reviewing the work of a coding agent', text: reply('## Review\nFine.') },
  ]);
}

/** A turn whose agent runs `command` on the host, then answers `answer`. */
function agentRuns(mark: string, command: string, answer: string): void {
  e2e.server.script('anthropic', [
    { when: mark, toolCall: { kind: 'shell', command } },
    { when: mark, text: reply(answer) },
  ]);
}

/** The files (tree) of the host's copy of `branch` in the project's mirror (empty when it has none). */
function mirrorBranch(sshd: TestHost, branch: string): string {
  return sshd
    .ssh(
      `git --git-dir="$(echo ${ROOT}/repos/*.git)" rev-parse -q --verify refs/heads/${branch}^{tree} || true`,
    )
    .trim();
}

describe('landing a session that ran on a host, in the TUI', () => {
  it('shows its diff and merges it (squash) into main here, after main moved', async () => {
    await withLanding(async ({ repo, sshd, runOnHost, start }) => {
      utilities('Greeting from the host', 'Add the greeting\n\nWritten on the host.');
      agentRuns(
        'greet from the host',
        "printf 'hello from the host\\n' > greeting.txt",
        'Wrote greeting.txt.',
      );
      const { branch, worktree } = await runOnHost('greet from the host');
      expect(mirrorBranch(sshd, branch)).toBe(git(repo, 'rev-parse', `${branch}^{tree}`));
      // main moves here: the merge rebases the session onto it first.
      writeFileSync(join(repo, 'other.txt'), 'other\n');
      git(repo, 'add', 'other.txt');
      git(repo, 'commit', '-q', '-m', 'Add other.txt');

      const t = await start();
      await t.waitFor(/Greeting from the host.*\[@build\]/);
      await t.keys('Enter');
      await t.waitFor('Wrote greeting.txt.');
      await t.waitFor(/claude\/\S+ \[\w+\] on build/);
      await t.keys('d');
      const diff = await t.waitFor(/greeting\.txt\s+\+1/);
      expect(diff).toContain('hello from the host');
      expect(diff).not.toContain('other.txt');
      await t.keys('q');
      await t.waitFor('Wrote greeting.txt.');

      await t.keys('m');
      await t.waitFor(/Merge ".*"\?/);
      await t.keys('y');
      await t.waitFor(/ Done /, 60_000);
      await t.waitFor(/Merged as [0-9a-f]{12} on main/);
      expect(git(repo, 'log', '-1', '--format=%s', 'main')).toBe('Add the greeting');
      expect(git(repo, 'show', 'main:greeting.txt')).toBe('hello from the host');
      expect(git(repo, 'show', 'main:other.txt')).toBe('other');
      expect(git(repo, 'rev-list', '--count', 'main')).toBe('3');
      expect(git(repo, 'branch', '--list', branch)).toBe('');
      expect(git(repo, 'worktree', 'list')).not.toContain(worktree);
      expect(git(repo, 'status', '--porcelain')).toBe('');
    });
  }, 300_000);

  it('publishes another as a pull request, whose branch then follows a reply that runs on the host', async () => {
    await withLanding(async ({ repo, bare, github, sshd, runOnHost, start }) => {
      utilities('Notes from the host', 'Add the notes\n\nWritten on the host.');
      agentRuns('notes on the host', "printf 'notes\\n' > notes.txt", 'Wrote notes.txt.');
      const { branch } = await runOnHost('notes on the host');

      const t = await start();
      await t.waitFor(/Notes from the host.*\[@build\]/);
      await t.keys('Enter');
      await t.waitFor('Wrote notes.txt.');
      await t.keys('p');
      const popup = await t.waitFor('Publish: remote branch name');
      expect(popup).toContain(branch);
      await t.keys('Enter');
      await t.waitFor('PR #1 open draft https://github.com/acme/widgets/pull/1', 60_000);
      const onGitHub = (): string =>
        execFileSync('git', ['rev-parse', `refs/heads/${branch}`], {
          cwd: bare,
          encoding: 'utf8',
        }).trim();
      expect(onGitHub()).toBe(git(repo, 'rev-parse', branch));
      expect(github.pull(1)).toMatchObject({
        draft: true,
        head: branch,
        base: 'main',
        title: 'Add the notes',
      });

      // A reply runs on the host; its work comes back here and is pushed to the pull request.
      utilities('Notes from the host', 'Add the notes\n\nTwo lines now.');
      agentRuns('one more line', "printf 'more\\n' >> notes.txt", 'Added a line.');
      await t.keys('Enter');
      await t.waitFor('Reply');
      await t.type('one more line');
      await t.keys('Enter');
      await t.waitFor('Added a line.', 120_000);
      // One read of the branch: between the host's commit brought back and Grove's own commit of
      // it, the branch is for a moment the host's commit, then the one before with the work staged.
      let head = '';
      await waitUntil(
        'the pull request has the reply’s work',
        () => {
          head = git(repo, 'rev-parse', branch);
          return git(repo, 'show', `${head}:notes.txt`) === 'notes\nmore' && onGitHub() === head;
        },
        60_000,
      );
      expect(mirrorBranch(sshd, branch)).toBe(git(repo, 'rev-parse', `${head}^{tree}`));
      expect(await t.screen()).not.toContain(TOKEN);
    });
  }, 300_000);
});
