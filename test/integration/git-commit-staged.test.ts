// The commit of what a turn staged (infra/git/commit-staged.ts): made with
// git's plumbing so the commit does not stat every file again, it must be the
// commit `git commit` makes, and leave to `git commit` what it does not
// reproduce. Real git in temp repositories, each compared with the commit
// `git commit` makes of the same work in a twin repository.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createGitClient } from '../../src/infra/git/git-client.js';

let dir: string;
let env: Record<string, string>;

beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'grove-commit-staged-')));
  const home = join(dir, 'home');
  mkdirSync(home);
  writeFileSync(
    join(home, '.gitconfig'),
    '[user]\n\tname = Grove Test\n\temail = test@grove.invalid\n[init]\n\tdefaultBranch = main\n',
  );
  env = {
    PATH: process.env['PATH'] ?? '/usr/bin:/bin',
    HOME: home,
    GIT_CONFIG_NOSYSTEM: '1',
    LANG: 'C.UTF-8',
    // Both commits of a comparison get the same dates (an amend keeps its first author's).
    GIT_AUTHOR_DATE: '1700000000 +0000',
    GIT_COMMITTER_DATE: '1700000000 +0000',
  };
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function run(repo: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd: repo, env, encoding: 'utf8' }).trim();
}

/** A repository with a base commit and the session's first commit by another author. */
function makeRepo(name: string): string {
  const repo = join(dir, name);
  mkdirSync(repo);
  run(repo, 'init', '-q', '-b', 'main');
  writeFileSync(join(repo, 'README.md'), '# base\n');
  run(repo, 'add', '-A');
  run(repo, 'commit', '-q', '-m', 'Initial commit');
  writeFileSync(join(repo, 'note.txt'), 'hello\n');
  run(repo, 'add', '-A');
  execFileSync('git', ['commit', '-q', '-m', 'Add a note'], {
    cwd: repo,
    env: {
      ...env,
      GIT_AUTHOR_NAME: 'First Author',
      GIT_AUTHOR_EMAIL: 'first@grove.invalid',
      GIT_AUTHOR_DATE: '1600000000 +0200',
    },
  });
  return repo;
}

const MESSAGE = '\n\nAdd a longer note   \n\n\n\nIt says more.\t\n\n';

describe('a staged commit', () => {
  it('is the commit git commit --amend makes: tree, parent, the first author and date kept, the message cleaned up, the reflog', async () => {
    const ours = makeRepo('ours');
    const theirs = makeRepo('theirs');
    for (const repo of [ours, theirs]) writeFileSync(join(repo, 'note.txt'), 'hello again\n');
    run(theirs, 'add', '-A');
    execFileSync('git', ['commit', '-q', '--amend', '-F', '-'], {
      cwd: theirs,
      env,
      input: MESSAGE,
    });
    const client = createGitClient(env);

    const staged = await client.stageAllAndDiff(ours, 'main');
    const result = await client.commitAll(ours, MESSAGE, {
      amend: true,
      staged: { changed: staged.changed, tree: staged.tree },
    });

    expect(result.committed).toBe(true);
    expect(result.commit).toBe(run(ours, 'rev-parse', 'HEAD'));
    // Same tree, parent, author, committer and message: the same commit id.
    expect(run(ours, 'cat-file', 'commit', 'HEAD')).toBe(run(theirs, 'cat-file', 'commit', 'HEAD'));
    expect(run(ours, 'rev-parse', 'HEAD')).toBe(run(theirs, 'rev-parse', 'HEAD'));
    expect(run(ours, 'log', '-g', '-1', '--format=%gs', 'main')).toBe(
      'commit (amend): Add a longer note',
    );
    expect(run(ours, 'status', '--porcelain')).toBe('');
  });

  it('is a new commit on HEAD when nothing is amended', async () => {
    const ours = makeRepo('ours');
    const theirs = makeRepo('theirs');
    for (const repo of [ours, theirs]) writeFileSync(join(repo, 'more.txt'), 'more\n');
    run(theirs, 'add', '-A');
    execFileSync('git', ['commit', '-q', '-F', '-'], { cwd: theirs, env, input: MESSAGE });
    const client = createGitClient(env);

    const staged = await client.stageAllAndDiff(ours, 'main');
    await client.commitAll(ours, MESSAGE, {
      amend: false,
      staged: { changed: staged.changed, tree: staged.tree },
    });

    expect(run(ours, 'cat-file', 'commit', 'HEAD')).toBe(run(theirs, 'cat-file', 'commit', 'HEAD'));
    expect(run(ours, 'log', '-g', '-1', '--format=%gs', 'main')).toBe('commit: Add a longer note');
  });

  it('drops the session commit when the amend leaves nothing against its parent', async () => {
    const repo = makeRepo('undone');
    const base = run(repo, 'rev-parse', 'HEAD^');
    rmSync(join(repo, 'note.txt'));
    const client = createGitClient(env);

    const staged = await client.stageAllAndDiff(repo, 'main');
    const result = await client.commitAll(repo, 'Add a note', {
      amend: true,
      staged: { changed: staged.changed, tree: staged.tree },
    });

    expect(result).toEqual({ committed: false, commit: null });
    expect(run(repo, 'rev-parse', 'HEAD')).toBe(base);
  });

  it('is left to git commit when the commit is signed, or a merge is in progress', async () => {
    const signed = makeRepo('signed');
    run(signed, 'config', 'commit.gpgSign', 'true');
    run(signed, 'config', 'gpg.program', 'false');
    writeFileSync(join(signed, 'note.txt'), 'signed\n');
    const client = createGitClient(env);
    const staged = await client.stageAllAndDiff(signed, 'main');
    // git commit asks gpg (here a program that fails): the plumbing would have signed nothing.
    await expect(
      client.commitAll(signed, 'Sign it', {
        amend: true,
        staged: { changed: true, tree: staged.tree },
      }),
    ).rejects.toThrow(/gpg|sign/i);

    const merging = makeRepo('merging');
    run(merging, 'branch', 'other', 'HEAD^');
    run(merging, 'checkout', '-q', 'other');
    writeFileSync(join(merging, 'other.txt'), 'other\n');
    run(merging, 'add', '-A');
    run(merging, 'commit', '-q', '-m', 'Other work');
    run(merging, 'checkout', '-q', 'main');
    run(merging, 'merge', '--no-commit', '--no-ff', '-q', 'other');
    const mergeStaged = await client.stageAllAndDiff(merging, 'main');
    const merged = await client.commitAll(merging, 'Merge other', {
      amend: false,
      staged: { changed: mergeStaged.changed, tree: mergeStaged.tree },
    });
    expect(merged.committed).toBe(true);
    // git commit made the merge commit MERGE_HEAD asked for: two parents.
    expect(run(merging, 'rev-list', '--parents', '-1', 'HEAD').split(' ')).toHaveLength(3);
  });
});
