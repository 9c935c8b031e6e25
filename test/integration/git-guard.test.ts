import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createGitClient } from '../../src/infra/git/git-client.js';

// The git side of the agent guard (src/infra/git/guard.ts) on real
// repositories: what an agent could change in the shared git folder is
// recorded, found changed, and put back, and what is no change (a refresh of
// the index's file stats, the agent's own branch) is left alone.

const client = createGitClient();
let dir: string;
let repo: string;

function git(cwd: string, args: string[], env: Record<string, string> = {}): string {
  return execFileSync('git', args, {
    cwd,
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', HOME: dir, ...env },
    encoding: 'utf8',
  }).trim();
}

/** A commit on top of main adding `evil.txt` (written to the object store only). */
function hostileCommit(): string {
  const index = join(dir, 'hostile-index');
  const env = { GIT_INDEX_FILE: index };
  git(repo, ['read-tree', 'main'], env);
  const blob = execFileSync('git', ['hash-object', '-w', '--stdin'], {
    cwd: repo,
    input: 'evil\n',
    encoding: 'utf8',
  }).trim();
  git(repo, ['update-index', '--add', '--cacheinfo', `100644,${blob},evil.txt`], env);
  const tree = git(repo, ['write-tree'], env);
  return git(repo, ['commit-tree', tree, '-p', 'main', '-m', 'Looks harmless']);
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'grove-guard-'));
  repo = join(dir, 'repo');
  git(dir, ['init', '-q', '-b', 'main', repo]);
  git(repo, ['config', 'user.name', 'Test']);
  git(repo, ['config', 'user.email', 'test@example.com']);
  writeFileSync(join(repo, 'README.md'), 'hello\n');
  git(repo, ['add', '-A']);
  git(repo, ['commit', '-q', '-m', 'Initial']);
  git(repo, ['branch', 'grove/other']);
  git(repo, ['tag', 'v1']);
  git(repo, ['worktree', 'add', '-q', '-b', 'grove/own', join(dir, 'wt')]);
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('the git guard', () => {
  it('finds nothing when nothing changed, and leaves a stat refresh of the main index and its own branch alone', async () => {
    const snapshot = await client.guardSnapshot(repo, 'grove/own');
    // The agent's own branch may move; a `git status` rewriting the index's stats is no change.
    writeFileSync(join(dir, 'wt', 'work.txt'), 'work\n');
    git(join(dir, 'wt'), ['add', '-A']);
    git(join(dir, 'wt'), ['commit', '-q', '-m', 'Work']);
    execFileSync('touch', [join(repo, 'README.md')]);
    git(repo, ['status', '--porcelain']);
    expect(await client.guardCheck(snapshot)).toEqual([]);
  });

  it("leaves the person's own git work in the main checkout alone (add, rm, commit, checkout, stash, reset), but not a blob neither the disk nor the commit holds", async () => {
    writeFileSync(join(repo, 'gone.txt'), 'gone\n');
    git(repo, ['add', 'gone.txt']);
    git(repo, ['commit', '-q', '-m', 'Add gone']);
    git(repo, ['branch', 'feature']);
    const snapshot = await client.guardSnapshot(repo, 'grove/own');
    writeFileSync(join(repo, 'mine.txt'), 'my staged work\n');
    git(repo, ['add', 'mine.txt']);
    git(repo, ['rm', '-q', 'gone.txt']);
    expect(await client.guardCheck(snapshot)).toEqual([]);
    // A commit, a stash, a reset back, a checkout of another branch and a commit there.
    git(repo, ['commit', '-q', '-m', 'Mine']);
    expect(await client.guardCheck(snapshot)).toEqual([]);
    writeFileSync(join(repo, 'README.md'), 'stashed\n');
    git(repo, ['stash', '-q']);
    git(repo, ['reset', '-q', '--hard', 'HEAD~1']);
    expect(await client.guardCheck(snapshot)).toEqual([]);
    git(repo, ['checkout', '-q', 'feature']);
    writeFileSync(join(repo, 'feature.txt'), 'feature\n');
    git(repo, ['add', 'feature.txt']);
    git(repo, ['commit', '-q', '-m', 'Feature work']);
    expect(await client.guardCheck(snapshot)).toEqual([]);

    const blob = execFileSync('git', ['hash-object', '-w', '--stdin'], {
      cwd: repo,
      input: 'not on disk\n',
      encoding: 'utf8',
    }).trim();
    git(repo, ['update-index', '--cacheinfo', `100644,${blob},README.md`]);
    expect(await client.guardCheck(snapshot)).toEqual([{ kind: 'index' }]);
  });

  it('puts back main moved with a clean status, a deleted tag, a new branch, the main index and info/ files', async () => {
    const main = git(repo, ['rev-parse', 'main']);
    const entries = git(repo, ['ls-files', '--stage', '-v']);
    writeFileSync(join(repo, '.git', 'info', 'exclude'), '# kept\n');
    const snapshot = await client.guardSnapshot(repo, 'grove/own');

    const hostile = hostileCommit();
    git(repo, ['update-ref', 'refs/heads/main', hostile]);
    git(repo, ['read-tree', hostile]);
    git(repo, ['update-index', '--skip-worktree', 'evil.txt']);
    expect(git(repo, ['status', '--porcelain'])).toBe('');
    git(repo, ['tag', '-d', 'v1']);
    git(repo, ['branch', 'sneaky', hostile]);
    writeFileSync(join(repo, '.git', 'info', 'attributes'), '* -diff\n');
    writeFileSync(join(repo, '.git', 'info', 'exclude'), 'evil.txt\n');

    const changes = await client.guardCheck(snapshot);
    expect(changes).toEqual(
      expect.arrayContaining([
        { kind: 'ref', ref: 'refs/heads/main', before: main, after: hostile },
        { kind: 'ref', ref: 'refs/tags/v1', before: main, after: null },
        { kind: 'ref', ref: 'refs/heads/sneaky', before: null, after: hostile },
        { kind: 'index' },
        { kind: 'info', file: 'attributes', what: 'added' },
        { kind: 'info', file: 'exclude', what: 'changed' },
      ]),
    );
    expect(changes).toHaveLength(6);

    const results = await client.guardRestore(snapshot, changes);
    expect(results.filter((r) => r.error !== null)).toEqual([]);
    expect(git(repo, ['rev-parse', 'main'])).toBe(main);
    expect(git(repo, ['rev-parse', 'v1'])).toBe(main);
    expect(git(repo, ['for-each-ref', 'refs/heads/sneaky'])).toBe('');
    expect(git(repo, ['ls-files', '--stage', '-v'])).toBe(entries);
    expect(existsSync(join(repo, '.git', 'info', 'attributes'))).toBe(false);
    expect(readFileSync(join(repo, '.git', 'info', 'exclude'), 'utf8')).toBe('# kept\n');
    // The agent's commit stays findable in main's reflog: nothing is lost.
    expect(git(repo, ['reflog', 'main', '--format=%H'])).toContain(hostile);
    expect(await client.guardCheck(snapshot)).toEqual([]);
  });

  it('puts back a packed-refs entry hidden behind a loose ref, and a ref turned into a link', async () => {
    git(repo, ['pack-refs', '--all']);
    const main = git(repo, ['rev-parse', 'main']);
    // A loose main in front of its packed entry, as after any commit on main.
    writeFileSync(join(repo, '.git', 'refs', 'heads', 'main'), `${main}\n`);
    const snapshot = await client.guardSnapshot(repo, 'grove/own');
    const hostile = hostileCommit();
    const packed = join(repo, '.git', 'packed-refs');
    writeFileSync(
      packed,
      readFileSync(packed, 'utf8').replace(`${main} refs/heads/main`, `${hostile} refs/heads/main`),
    );
    git(repo, ['update-ref', 'refs/heads/sneaky-target', hostile]);
    git(repo, ['symbolic-ref', 'refs/heads/grove/other', 'refs/heads/sneaky-target']);

    const changes = await client.guardCheck(snapshot);
    expect(changes).toEqual(
      expect.arrayContaining([
        { kind: 'packed', ref: 'refs/heads/main' },
        {
          kind: 'ref',
          ref: 'refs/heads/grove/other',
          before: main,
          after: `${hostile} -> refs/heads/sneaky-target`,
        },
      ]),
    );
    const results = await client.guardRestore(snapshot, changes);
    expect(results.filter((r) => r.error !== null)).toEqual([]);
    expect(await client.guardCheck(snapshot)).toEqual([]);
    // The hidden entry (it shows once the loose ref goes) is main's own again.
    expect(readFileSync(packed, 'utf8')).toContain(`${main} refs/heads/main\n`);
    expect(readFileSync(packed, 'utf8')).not.toContain(hostile);
    expect(git(repo, ['rev-parse', 'refs/heads/grove/other'])).toBe(main);
    expect(git(repo, ['for-each-ref', '--format=%(symref)', 'refs/heads/grove/other'])).toBe('');
  });

  it('does not overwrite a ref that moved again after the check', async () => {
    const snapshot = await client.guardSnapshot(repo, 'grove/own');
    const hostile = hostileCommit();
    git(repo, ['update-ref', 'refs/heads/grove/other', hostile]);
    const changes = await client.guardCheck(snapshot);
    git(repo, ['update-ref', 'refs/heads/grove/other', git(repo, ['rev-parse', 'main'])]);
    git(repo, ['commit', '-q', '--allow-empty', '-m', 'Later']);
    git(repo, ['update-ref', 'refs/heads/grove/other', 'main']);
    const [result] = await client.guardRestore(snapshot, changes);
    expect(result?.error).toMatch(/update-ref/);
    expect(git(repo, ['rev-parse', 'grove/other'])).toBe(git(repo, ['rev-parse', 'main']));
  });
});
