import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import type { Host } from '../../src/domain/host.js';
import { shellCommand } from '../../src/infra/hosts/quote.js';
import {
  addWorktree,
  ensureMirror,
  fetchBranch,
  placeSession,
  pushBase,
  type RemoteGit,
} from '../../src/infra/hosts/remote-git.js';
import { controlDir, createSsh } from '../../src/infra/hosts/ssh.js';
import { sshdIt, sshdProblem, startSshd, type TestHost } from '../helpers/sshd.js';

// Code moves to a host and back with git (issue 24), against the private
// sshd that logs in as a second unix user (test/helpers/sshd.ts): a local
// path in a remote command would fail there. Only the session's branch comes
// back, whatever the host's side of the mirror does to its other refs.

const it = sshdIt();
const ROOT = `.grove-test-git-${process.pid}`;
/** Files a hook would write on the host if one ran. */
const HOOK_MARK = `/tmp/grove-hook-ran-${process.pid}`;
let sshd: TestHost | undefined;
let groveHome: string;
let repo: string;
let remote: RemoteGit;

const AUTHOR = {
  GIT_AUTHOR_NAME: 'Local',
  GIT_AUTHOR_EMAIL: 'local@example.com',
  GIT_COMMITTER_NAME: 'Local',
  GIT_COMMITTER_EMAIL: 'local@example.com',
};

function local(...args: string[]): string {
  return execFileSync('git', args, {
    cwd: repo,
    encoding: 'utf8',
    env: { ...process.env, ...AUTHOR },
  }).trim();
}

function h(): TestHost {
  if (!sshd) throw new Error('no test sshd');
  return sshd;
}

function hostUid(): number {
  return Number(h().ssh('id -u').trim());
}

/** Runs words on the host as the host user (its own ssh, not Grove's). */
function onHost(...words: string[]): string {
  return h().ssh(shellCommand(words));
}

beforeAll(async () => {
  groveHome = mkdtempSync(join(tmpdir(), 'grove-remote-git-home-'));
  repo = mkdtempSync(join(tmpdir(), 'grove remote git repo '));
  execFileSync('git', ['init', '--quiet', '--initial-branch=main', repo]);
  writeFileSync(join(repo, 'README.md'), 'hello from the local machine\n');
  writeFileSync(join(repo, "it's a file.txt"), 'quotes and spaces\n');
  local('add', '-A');
  local('commit', '--quiet', '-m', 'first');
  if (sshdProblem() !== null) return;
  sshd = await startSshd();
  const host: Host = { name: 'test', destination: sshd.alias, root: ROOT, createdAt: 0 };
  remote = {
    host,
    ssh: createSsh({
      env: process.env,
      controlDir: controlDir(groveHome),
      configFile: sshd.config,
    }),
  };
}, 30_000);

afterAll(async () => {
  if (sshd) {
    onHost('rm', '-rf', '--', `${h().home}/${ROOT}`);
    await remote.ssh.close(h().alias);
    await sshd.stop();
  }
  rmSync(HOOK_MARK, { force: true });
  rmSync(groveHome, { recursive: true, force: true });
  rmSync(repo, { recursive: true, force: true });
});

describe('a session placed on a host', () => {
  it('has a bare mirror under the root folder and a worktree on its branch with the base commit', async () => {
    const base = local('rev-parse', 'HEAD');
    const placed = await placeSession(remote, repo, {
      id: 's1',
      branch: 'grove/s1',
      baseCommit: base,
    });

    expect(placed.project.mirror).toMatch(
      new RegExp(`^${h().home}/${ROOT}/repos/grove-remote-git-repo-[a-z0-9]+-[0-9a-f]{12}\\.git$`),
    );
    expect(
      onHost('git', '--git-dir', placed.project.mirror, 'rev-parse', 'refs/heads/grove/s1'),
    ).toBe(`${base}\n`);
    expect(placed.worktree.startsWith(`${h().home}/${ROOT}/worktrees/`)).toBe(true);
    expect(onHost('git', '-C', placed.worktree, 'symbolic-ref', 'HEAD')).toBe(
      'refs/heads/grove/s1\n',
    );
    expect(onHost('cat', '--', `${placed.worktree}/README.md`)).toBe(
      'hello from the local machine\n',
    );
    expect(onHost('cat', '--', `${placed.worktree}/it's a file.txt`)).toBe('quotes and spaces\n');
    // Made by the host user (git on the host), not copied by this one.
    expect(statSync(join(placed.worktree, 'README.md')).uid).toBe(hostUid());
  });

  it('brings a commit made on the host back into the session branch, byte for byte', async () => {
    const base = local('rev-parse', 'HEAD');
    const { project, worktree } = await placeSession(remote, repo, {
      id: 's2',
      branch: 'grove/s2',
      baseCommit: base,
    });
    const content = 'made on the host\n$HOME `id` "quoted"\n\ttab ✓\n';
    h().ssh(
      `cd ${shellCommand([worktree])} && printf %s ${shellCommand([content])} > host.txt && git add host.txt && ` +
        'git -c user.name=Host -c user.email=host@example.com commit --quiet -m "from the host"',
    );
    const hostCommit = onHost('git', '-C', worktree, 'rev-parse', 'HEAD').trim();

    const fetched = await fetchBranch(remote, project, repo, 'grove/s2');

    expect(fetched).toBe(hostCommit);
    expect(local('rev-parse', 'refs/heads/grove/s2')).toBe(hostCommit);
    expect(local('show', 'grove/s2:host.txt') + '\n').toBe(content);
    expect(local('log', '-1', '--format=%s', 'grove/s2')).toBe('from the host');
    expect(local('rev-parse', 'main')).toBe(base);
  });

  it('moves no other local ref when the host moves refs of its own on the mirror', async () => {
    const base = local('rev-parse', 'HEAD');
    const { project, worktree } = await placeSession(remote, repo, {
      id: 's3',
      branch: 'grove/s3',
      baseCommit: base,
    });
    // The host's side commits, then points the mirror's main and a new tag and branch at it.
    h().ssh(
      `cd ${shellCommand([worktree])} && echo hostile > evil.txt && git add evil.txt && ` +
        'git -c user.name=Host -c user.email=host@example.com commit --quiet -m evil && ' +
        'git update-ref refs/heads/main HEAD && git tag v-evil HEAD && git branch grove/other HEAD && ' +
        'git update-ref refs/remotes/origin/main HEAD',
    );
    const evil = onHost('git', '-C', worktree, 'rev-parse', 'HEAD').trim();
    const before = local('for-each-ref', '--format=%(refname) %(objectname)');

    await fetchBranch(remote, project, repo, 'grove/s3');

    expect(local('rev-parse', 'main')).toBe(base);
    expect(local('rev-parse', 'grove/s3')).toBe(evil);
    const after = local('for-each-ref', '--format=%(refname) %(objectname)');
    const changed = after.split('\n').filter((line) => !before.split('\n').includes(line));
    expect(changed).toEqual([`refs/heads/grove/s3 ${evil}`]);
    expect(local('tag', '--list')).toBe('');
    expect(existsSync(join(repo, '.git', 'FETCH_HEAD'))).toBe(false);
  });

  it('runs no hook of the mirror on the host when pushing or adding a worktree', async () => {
    const project = await ensureMirror(remote, repo);
    const hook = `#!/bin/sh\necho "$0" >> ${HOOK_MARK}\n`;
    for (const name of [
      'pre-receive',
      'update',
      'post-receive',
      'post-update',
      'reference-transaction',
      'post-checkout',
    ])
      h().ssh(
        `mkdir -p ${shellCommand([`${project.mirror}/hooks`])} && printf %s ${shellCommand([hook])} > ${shellCommand([`${project.mirror}/hooks/${name}`])} && chmod +x ${shellCommand([`${project.mirror}/hooks/${name}`])}`,
      );
    // A hooks path the host's side set in the mirror's shared config is ignored too.
    onHost(
      'git',
      '--git-dir',
      project.mirror,
      'config',
      'core.hooksPath',
      `${project.mirror}/hooks`,
    );
    // Proof the planted hooks would run for a git that honours them.
    onHost(
      'git',
      '--git-dir',
      project.mirror,
      'update-ref',
      'refs/heads/probe',
      local('rev-parse', 'HEAD'),
    );
    expect(onHost('cat', HOOK_MARK)).toContain('reference-transaction');
    onHost('rm', '-f', HOOK_MARK);

    await pushBase(remote, project, repo, local('rev-parse', 'HEAD'), 'grove/s4');
    await addWorktree(remote, project, 's4', 'grove/s4');

    expect(onHost('sh', '-c', `test -e ${HOOK_MARK} && echo ran || echo none`)).toBe('none\n');
  });

  it('refuses to push over a branch the host moved (its work is not thrown away)', async () => {
    const base = local('rev-parse', 'HEAD');
    const { project, worktree } = await placeSession(remote, repo, {
      id: 's5',
      branch: 'grove/s5',
      baseCommit: base,
    });
    h().ssh(
      `cd ${shellCommand([worktree])} && git -c user.name=Host -c user.email=host@example.com commit --quiet --allow-empty -m work`,
    );
    writeFileSync(join(repo, 'other.txt'), 'other\n');
    local('add', 'other.txt');
    local('commit', '--quiet', '-m', 'second');

    await expect(
      pushBase(remote, project, repo, local('rev-parse', 'HEAD'), 'grove/s5'),
    ).rejects.toThrow(/git push failed/);
    expect(onHost('git', '-C', worktree, 'log', '-1', '--format=%s')).toBe('work\n');
  });

  it('makes one mirror when two placements make it at the same moment (best of N on a new host)', async () => {
    // git init of one folder twice at once fails on its config.lock about one time in five.
    const repos = Array.from({ length: 30 }, () => {
      const dir = mkdtempSync(join(tmpdir(), 'grove-mirror-race-'));
      execFileSync('git', ['init', '--quiet', dir]);
      return dir;
    });
    try {
      // The shared connection first (sshd refuses many new logins at once), then three
      // placements of each repository at once, nine sessions on it at most (sshd's MaxSessions 10).
      await ensureMirror(remote, repo);
      const made: string[][] = [];
      for (let i = 0; i < repos.length; i += 3)
        made.push(
          ...(await Promise.all(
            repos.slice(i, i + 3).map(async (dir) => {
              const all = await Promise.all([1, 2, 3].map(() => ensureMirror(remote, dir)));
              return all.map((p) => p.mirror);
            }),
          )),
        );
      for (const [a = '', ...others] of made) {
        expect(others).toEqual([a, a]);
        expect(onHost('git', '--git-dir', a, 'rev-parse', '--is-bare-repository')).toBe('true\n');
        // Neither the loser's own folder nor one put inside the mirror is left.
        expect(onHost('sh', '-c', 'ls -a -- "$1"', 'grove', a)).not.toContain('.new.');
      }
      expect(onHost('sh', '-c', 'ls -- "$1"', 'grove', `${h().home}/${ROOT}/repos`)).not.toMatch(
        /\.new\./,
      );
    } finally {
      for (const dir of repos) rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
