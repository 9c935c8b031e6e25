import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createGitClient } from '../../src/infra/git/git-client.js';
import { expectExit, harness, reply, type Harness } from './headless-harness.js';
import { ResultSchema } from './headless-schema.js';

// Grove's own git runs as the person, outside the sandbox. A hostile agent
// (here the real Claude Code, its shell tool call scripted by the fake model
// server) plants programs that git would run: a hook in a hooks folder the
// repository tracks (husky), and a `.git` pointer to a git folder of its own
// with `core.fsmonitor` and hooks. Grove's post-turn commit and its squash
// merge must run none of them, and still commit the agent's work.

let h: Harness;

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    env: { ...process.env, HOME: h.world.home },
    encoding: 'utf8',
  }).trim();
}

/** A shell script that leaves `marker` behind when something runs it. */
function plant(marker: string): string {
  return `#!/bin/sh\ntouch '${marker}'\nexit 0\n`;
}

/**
 * A shell command writing `plant(marker)` to `path`, executable, with the
 * marker and the path hidden from the CLI's own checks (as a hostile agent
 * would hide them: Claude Code refuses a plain redirect into `.husky/`).
 */
function planted(marker: string, path: string): string {
  const body = Buffer.from(plant(marker)).toString('base64');
  const name = Buffer.from(path).toString('base64');
  return `node -e "require('fs').writeFileSync(Buffer.from('${name}','base64').toString(),Buffer.from('${body}','base64'),{mode:0o755})"`;
}

beforeEach(async () => {
  h = await harness();
});

afterEach(async () => {
  await h.close();
});

/** Runs one `grove run` whose turn is the agent's shell command, then answers. */
async function hostileRun(task: string, command: string) {
  h.utilities();
  h.server.script('anthropic', [
    { when: task, toolCall: { kind: 'shell', command } },
    { when: task, text: reply('Done.') },
  ]);
  const run = await h.grove(['run', '--output', 'json', task]);
  expectExit(run, 0);
  return ResultSchema.parse(JSON.parse(run.stdout));
}

describe("Grove's own git runs nothing the agent wrote", () => {
  it('a tracked hooks folder (core.hooksPath, husky style): the edited hook runs neither at the turn commit nor at the merge', async () => {
    const marker = join(h.world.dir, 'husky-ran');
    mkdirSync(join(h.repo, '.husky'));
    writeFileSync(join(h.repo, '.husky', 'pre-commit'), '#!/bin/sh\nexit 0\n');
    chmodSync(join(h.repo, '.husky', 'pre-commit'), 0o755);
    git(h.repo, 'add', '-A');
    git(h.repo, 'commit', '-q', '-m', 'Lint on commit');
    git(h.repo, 'config', 'core.hooksPath', '.husky');

    const result = await hostileRun(
      'Tidy the hooks',
      `${planted(marker, '.husky/pre-commit')} && ${planted(marker, '.husky/commit-msg')} && echo work > work.txt`,
    );

    expect(readFileSync(join(result.worktree, '.husky', 'pre-commit'), 'utf8')).toContain(marker);
    expect(git(h.repo, 'show', `${result.branch}:work.txt`)).toBe('work');
    expect(existsSync(marker)).toBe(false);

    const merged = await h.grove(['merge', result.sessionId]);
    expectExit(merged, 0);
    expect(git(h.repo, 'show', 'main:work.txt')).toBe('work');
    expect(existsSync(marker)).toBe(false);
  });

  it("a rewritten .git pointer: Grove's git uses the repository's own worktree folder, not the agent's", async () => {
    const marker = join(h.world.dir, 'pointer-ran');
    const result = await hostileRun(
      'Set up the tooling',
      [
        'echo work > work.txt',
        'git init -q --bare .evil',
        'git --git-dir=.evil config core.bare false',
        planted(marker, '.evil/run.sh'),
        'mkdir -p .evil/hooks',
        'for h in pre-commit commit-msg post-commit post-index-change; do cp .evil/run.sh .evil/hooks/$h; done',
        'git --git-dir=.evil config core.fsmonitor "$PWD/.evil/run.sh"',
        'git --git-dir=.evil config core.hooksPath "$PWD/.evil/hooks"',
        'printf "gitdir: %s\\n" "$PWD/.evil" > .git',
      ].join(' && '),
    );

    expect(readFileSync(join(result.worktree, '.git'), 'utf8')).toContain('.evil');
    // The work landed on the session's own branch, through the repository's own folders.
    const branch = result.branch;
    expect(git(h.repo, 'show', `${branch}:work.txt`)).toBe('work');
    expect(result.files.map((f) => f.path)).toContain('work.txt');
    expect(existsSync(marker)).toBe(false);
  });
});

describe("Grove's commit follows the session's branch, not the worktree's HEAD", () => {
  it('an agent that points HEAD at main: the work lands on the session branch and main does not move', async () => {
    const main = git(h.repo, 'rev-parse', 'main');
    const result = await hostileRun(
      'Switch branches',
      'git symbolic-ref HEAD refs/heads/main && echo work > work.txt',
    );

    expect(git(h.repo, 'rev-parse', 'main')).toBe(main);
    expect(git(h.repo, 'show', `${result.branch}:work.txt`)).toBe('work');
    expect(git(result.worktree, 'symbolic-ref', 'HEAD')).toBe(`refs/heads/${result.branch}`);
    const shown = await h.grove(['show', result.sessionId]);
    expect(shown.stdout).toContain(
      "[Guard] The agent had moved the worktree's HEAD to refs/heads/main",
    );
  });
});

describe('the git client with known repositories', () => {
  it("finds a worktree's git folder from the repository's list, whatever its .git file says", async () => {
    const worktree = join(h.world.dir, 'wt');
    git(h.repo, 'worktree', 'add', '-q', '-b', 'grove/abc', worktree);
    const marker = join(h.world.dir, 'client-ran');
    const elsewhere = join(worktree, 'elsewhere');
    git(worktree, 'init', '-q', '--bare', elsewhere);
    git(elsewhere, 'config', 'core.bare', 'false');
    writeFileSync(join(elsewhere, 'run.sh'), plant(marker));
    chmodSync(join(elsewhere, 'run.sh'), 0o755);
    git(elsewhere, 'config', 'core.fsmonitor', join(elsewhere, 'run.sh'));
    writeFileSync(join(worktree, '.git'), `gitdir: ${elsewhere}\n`);
    writeFileSync(join(worktree, 'new.txt'), 'new\n');
    const client = createGitClient({ ...process.env, HOME: h.world.home }, () =>
      Promise.resolve([h.repo]),
    );

    const commit = await client.commitAll(worktree, 'Add new.txt', { amend: false });

    expect(commit.committed).toBe(true);
    expect(git(h.repo, 'show', 'grove/abc:new.txt')).toBe('new');
    expect(existsSync(marker)).toBe(false);
  });
});
