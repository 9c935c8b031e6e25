// The git layer's engine (simple-git behind src/infra/git/run.ts): the
// Grove-wide limit on git processes, stopping a git, the client's environment,
// and the words of its errors. Real git in temp repositories; where a test
// needs git to be slow or to count its processes, a `git` wrapper goes first
// on the PATH of the environment given to the client.
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { gitCommonDirOf, gitDirOf } from '../../src/infra/git/git-dir.js';
import { createGitClient, GitError } from '../../src/infra/git/git-client.js';
import { git } from '../../src/infra/git/run.js';
import { settleCheckout } from '../../src/infra/git/settle.js';
import { GIT_PROCESS_LIMITS } from '../../src/infra/git/simple.js';

const REAL_GIT = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();

let dir: string;
let home: string;

beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'grove-git-engine-')));
  home = join(dir, 'home');
  mkdirSync(home);
  writeFileSync(
    join(home, '.gitconfig'),
    '[user]\n\tname = Grove Test\n\temail = test@grove.invalid\n[init]\n\tdefaultBranch = main\n',
  );
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** The environment a client is given: a private HOME, and `bin` (if any) first on PATH. */
function clientEnv(bin?: string, extra: Record<string, string> = {}): Record<string, string> {
  const path = process.env['PATH'] ?? '/usr/bin:/bin';
  return {
    PATH: bin ? `${bin}:${path}` : path,
    HOME: home,
    GIT_CONFIG_NOSYSTEM: '1',
    LANG: 'C.UTF-8',
    ...extra,
  };
}

function makeRepo(name: string): string {
  const repo = join(dir, name);
  mkdirSync(repo);
  const run = (...args: string[]): string =>
    execFileSync(REAL_GIT, args, { cwd: repo, env: clientEnv(), encoding: 'utf8' });
  run('init', '-q', '-b', 'main');
  writeFileSync(join(repo, 'README.md'), `# ${name}\n`);
  run('add', '-A');
  run('commit', '-q', '-m', 'Initial commit');
  return repo;
}

/** A folder holding an executable `git` script with `body` (after the shebang). */
function wrapper(name: string, body: string): string {
  const bin = join(dir, name);
  mkdirSync(bin);
  writeFileSync(join(bin, 'git'), `#!/bin/sh\n${body}\n`);
  chmodSync(join(bin, 'git'), 0o755);
  return bin;
}

async function poll<T>(probe: () => T | undefined, what: string): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('the limit on git processes', () => {
  it('never lets fifty concurrent status calls from two clients run more gits at once than the quick lane allows', async () => {
    const log = join(dir, 'processes.log');
    // Each git records its start and end under a lock, and lingers a little so the calls overlap.
    const bin = wrapper(
      'counting-bin',
      [
        `log='${log}'`,
        `( flock 9; echo start >> "$log" ) 9>"$log.lock"`,
        'sleep 0.05',
        `'${REAL_GIT}' "$@"`,
        'code=$?',
        `( flock 9; echo end >> "$log" ) 9>"$log.lock"`,
        'exit $code',
      ].join('\n'),
    );
    const repos = [makeRepo('one'), makeRepo('two')];
    const clients = [createGitClient(clientEnv(bin)), createGitClient(clientEnv(bin))];

    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => clients[i % 2]!.statusPorcelain(repos[i % 2]!)),
    );

    expect(results.every((entries) => entries.length === 0)).toBe(true);
    const events = readFileSync(log, 'utf8').trim().split('\n');
    expect(events.filter((e) => e === 'start')).toHaveLength(50);
    let live = 0;
    let peak = 0;
    for (const event of events) {
      live += event === 'start' ? 1 : -1;
      peak = Math.max(peak, live);
    }
    expect(peak).toBeLessThanOrEqual(GIT_PROCESS_LIMITS.quick);
    expect(peak).toBeGreaterThan(1); // the calls did overlap: the bound above was tested
  });
});

describe('stopping git', () => {
  it('stops a long git when the signal fires, and the error says it was stopped', async () => {
    const started = join(dir, 'started');
    // A git that hangs: it writes its pid (the sleep's, after exec) and sleeps.
    const bin = wrapper('slow-bin', `echo $$ > '${started}'\nexec sleep 30`);
    const repo = makeRepo('repo');
    const controller = new AbortController();

    const running = git(['status'], {
      cwd: repo,
      env: { PATH: clientEnv(bin)['PATH']! },
      signal: controller.signal,
    });
    const pid = await poll(
      () => (existsSync(started) ? Number(readFileSync(started, 'utf8')) || undefined : undefined),
      'the slow git to start',
    );
    controller.abort();

    const error = await running.then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(GitError);
    expect((error as GitError).message).toBe('git status was stopped.');
    expect(() => process.kill(pid, 0)).toThrow(); // the process is gone
  });

  it('stops a git that prints nothing for longer than its timeout', async () => {
    const bin = wrapper('silent-bin', 'exec sleep 30');
    const repo = makeRepo('repo');

    const error = await git(['fetch'], {
      cwd: repo,
      env: { PATH: clientEnv(bin)['PATH']! },
      timeoutMs: 1000,
    }).then(
      () => null,
      (e: unknown) => e,
    );

    expect((error as GitError).message).toBe('git fetch was stopped after 1 s without output.');
  });
});

describe("the client's environment", () => {
  it('is the environment git runs in: the author set there signs the commit', async () => {
    const repo = makeRepo('repo');
    const client = createGitClient(
      clientEnv(undefined, {
        GIT_AUTHOR_NAME: 'Env Author',
        GIT_AUTHOR_EMAIL: 'env@grove.invalid',
      }),
    );
    writeFileSync(join(repo, 'note.txt'), 'hello\n');

    const result = await client.commitAll(repo, 'Add a note', { amend: false });

    expect(result.committed).toBe(true);
    expect(
      execFileSync(REAL_GIT, ['log', '-1', '--format=%an <%ae>'], {
        cwd: repo,
        encoding: 'utf8',
      }).trim(),
    ).toBe('Env Author <env@grove.invalid>');
  });
});

describe("the session's single commit", () => {
  it('is dropped when an amend undoes everything it held, leaving the branch at its base', async () => {
    const repo = makeRepo('amend');
    const client = createGitClient(clientEnv());
    const head = (): string =>
      execFileSync(REAL_GIT, ['rev-parse', 'HEAD'], { cwd: repo, encoding: 'utf8' }).trim();
    const base = head();
    writeFileSync(join(repo, 'note.txt'), 'hello\n');
    const first = await client.commitAll(repo, 'Add a note', { amend: false });
    expect(first.committed).toBe(true);
    expect(first.commit).toBe(head());
    rmSync(join(repo, 'note.txt'));

    const undone = await client.commitAll(repo, 'Add a note', { amend: true });

    expect(undone).toEqual({ committed: false, commit: null });
    expect(head()).toBe(base);
  });

  it('keeps an amend that still changes something, as one commit on the base', async () => {
    const repo = makeRepo('amend-kept');
    const client = createGitClient(clientEnv());
    const git = (...args: string[]): string =>
      execFileSync(REAL_GIT, args, { cwd: repo, encoding: 'utf8' }).trim();
    const base = git('rev-parse', 'HEAD');
    writeFileSync(join(repo, 'note.txt'), 'hello\n');
    await client.commitAll(repo, 'Add a note', { amend: false });
    writeFileSync(join(repo, 'note.txt'), 'hello again\n');

    const amended = await client.commitAll(repo, 'Add a longer note', { amend: true });

    expect(amended.committed).toBe(true);
    expect(amended.commit).toBe(git('rev-parse', 'HEAD'));
    expect(git('rev-parse', 'HEAD^')).toBe(base);
    expect(git('show', 'HEAD:note.txt')).toBe('hello again');
  });
});

describe('the diff a commit message is written from', () => {
  it('is the same diff the session view reads, taken from the real index once everything is staged', async () => {
    const repo = makeRepo('staged-diff');
    const run = (...args: string[]): string =>
      execFileSync(REAL_GIT, args, { cwd: repo, env: clientEnv(), encoding: 'utf8' });
    writeFileSync(join(repo, 'keep.txt'), 'one\ntwo\n');
    writeFileSync(join(repo, 'gone.txt'), 'bye\n');
    run('add', '-A');
    run('commit', '-q', '-m', 'base files');
    run('checkout', '-q', '-b', 'work');
    writeFileSync(join(repo, 'keep.txt'), 'one\n2\nthree\n');
    rmSync(join(repo, 'gone.txt'));
    writeFileSync(join(repo, 'new file.txt'), 'fresh\n');
    const client = createGitClient(clientEnv());
    const expected = await client.diffAgainstBase(repo, 'main');

    const staged = await client.stageAllAndDiff(repo, 'main');

    expect(staged).toEqual({ ...expected, tree: expect.any(String) as string, changed: true });
    expect(staged.files.map((f) => `${f.status} ${f.path}`)).toEqual([
      'deleted gone.txt',
      'modified keep.txt',
      'added new file.txt',
    ]);
    // Everything is staged: nothing differs between the worktree and the index.
    expect(
      run('status', '--porcelain', '--untracked-files=all').split('\n').filter(Boolean).sort(),
    ).toEqual(['A  "new file.txt"', 'D  gone.txt', 'M  keep.txt']);
  });
});

describe('worktrees made together', () => {
  it('are all made when eight sessions of one repository start at once', async () => {
    const repo = makeRepo('many');
    const client = createGitClient(clientEnv());
    const paths = Array.from({ length: 8 }, (_, i) => join(dir, 'wt', `many-${i}`));

    const results = await Promise.allSettled(
      paths.map((path, i) => client.addWorktree(repo, path, `grove/many-${i}`, 'main')),
    );

    expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
    for (const path of paths) expect(existsSync(join(path, 'README.md'))).toBe(true);
  });
});

describe('a new worktree', () => {
  const run = (cwd: string, ...args: string[]): string =>
    execFileSync(REAL_GIT, args, { cwd, env: clientEnv(), encoding: 'utf8' });

  /** A repository of 200 files and a tracked link to a file outside, whose time must not change. */
  function racyRepo(name: string): { repo: string; outside: string; outsideTime: number } {
    const repo = makeRepo(name);
    for (let i = 0; i < 200; i++) writeFileSync(join(repo, `f${i}.txt`), `file ${i}\n`);
    const outside = join(dir, `${name}-outside.txt`);
    writeFileSync(outside, 'outside\n');
    symlinkSync(outside, join(repo, 'link'));
    run(repo, 'add', '-A');
    run(repo, 'commit', '-q', '-m', 'Files');
    return { repo, outside, outsideTime: statSync(outside).mtimeMs };
  }

  /** git trusts an entry only if its time (in whole seconds) is older than the index's; and a same-size edit made at once is still a change. */
  function expectSettled(worktree: string, outside: string, outsideTime: number): void {
    const index = run(
      worktree,
      'rev-parse',
      '--path-format=absolute',
      '--git-path',
      'index',
    ).trim();
    const indexSecond = Math.floor(statSync(index).mtimeMs / 1000);
    const entrySeconds = [...run(worktree, 'ls-files', '--debug').matchAll(/mtime: (\d+):/g)].map(
      (m) => Number(m[1]),
    );
    expect(entrySeconds.length).toBe(202);
    expect(entrySeconds.filter((second) => second >= indexSecond)).toEqual([]);
    expect(statSync(outside).mtimeMs).toBe(outsideTime);
    writeFileSync(join(worktree, 'f7.txt'), 'FILE 7\n');
    expect(run(worktree, 'status', '--porcelain')).toBe(' M f7.txt\n');
  }

  it('has an index git trusts at once, and still sees a same-size edit made right after', async () => {
    const { repo, outside, outsideTime } = racyRepo('racy');
    const worktree = join(dir, 'wt', 'racy');
    await createGitClient(clientEnv()).addWorktree(repo, worktree, 'grove/racy', 'main');
    expectSettled(worktree, outside, outsideTime);
  });

  it.each(['back', 'forward'] as const)(
    'settles a checkout %s: git trusts it, and an edit made the moment it is settled is seen',
    async (way) => {
      const { repo, outside, outsideTime } = racyRepo(`racy-${way}`);
      const worktree = join(dir, 'wt', `racy-${way}`);
      run(repo, 'worktree', 'add', '-q', '-b', `grove/racy-${way}`, worktree, 'main');
      const before = new Map(
        readdirSync(worktree)
          .filter((f) => f.endsWith('.txt'))
          .map((f) => [f, lstatSync(join(worktree, f)).mtimeMs]),
      );
      expect(await settleCheckout(worktree, way)).toBe(way);
      // Forward touches no file of the checkout.
      if (way === 'forward')
        for (const [file, time] of before)
          expect(lstatSync(join(worktree, file)).mtimeMs).toBe(time);
      expectSettled(worktree, outside, outsideTime);
    },
  );
});

describe('answers and errors', () => {
  it('returns an exit code listed as an answer instead of throwing', async () => {
    const repo = makeRepo('repo');
    execFileSync(REAL_GIT, ['commit', '-q', '--allow-empty', '-m', 'Second'], {
      cwd: repo,
      env: clientEnv(),
    });

    // HEAD is not an ancestor of its parent: exit 1, an answer.
    const result = await git(['merge-base', '--is-ancestor', 'HEAD', 'HEAD~1'], {
      cwd: repo,
      okCodes: [1],
    });

    expect(result.exitCode).toBe(1);
  });

  it("says why a command failed in git's own words", async () => {
    const repo = makeRepo('repo');

    const error = await git(['rev-parse', '--verify', 'no-such-branch'], { cwd: repo }).then(
      () => null,
      (e: unknown) => e,
    );

    expect(error).toBeInstanceOf(GitError);
    expect((error as GitError).message).toBe('git rev-parse failed: Needed a single revision');
    expect((error as GitError).exitCode).toBe(128);
  });

  it('says so when the folder is gone', async () => {
    const gone = join(dir, 'gone');

    const error = await git(['status'], { cwd: gone }).then(
      () => null,
      (e: unknown) => e,
    );

    expect((error as GitError).message).toBe(`The folder ${gone} no longer exists.`);
  });

  it('says so when git is not installed', async () => {
    const repo = makeRepo('repo');
    const client = createGitClient({ PATH: join(dir, 'empty-bin'), HOME: home });

    const error = await client.headCommit(repo).then(
      () => null,
      (e: unknown) => e,
    );

    expect((error as GitError).message).toBe('git is not installed (not found on PATH).');
  });

  it('reads a status entry whose path starts with a space as changed in the worktree', async () => {
    const repo = makeRepo('repo');
    writeFileSync(join(repo, ' lead.txt'), 'one\n');
    execFileSync(REAL_GIT, ['add', '-A'], { cwd: repo });
    execFileSync(REAL_GIT, ['commit', '-q', '-m', 'Add a file'], { cwd: repo, env: clientEnv() });
    writeFileSync(join(repo, ' lead.txt'), 'two\n');

    const entries = await createGitClient(clientEnv()).statusPorcelain(repo);

    expect(entries).toEqual([{ code: ' M', path: ' lead.txt' }]);
  });
});

describe('finding the git folders without asking git', () => {
  it('reads the same folders git names, for a main checkout, a linked worktree and a folder inside one', async () => {
    const repo = makeRepo('gitdir');
    const worktree = join(dir, 'gitdir-wt');
    execFileSync(REAL_GIT, ['worktree', 'add', '-q', '-b', 'side', worktree], {
      cwd: repo,
      env: clientEnv(),
    });
    const inside = join(worktree, 'sub');
    mkdirSync(inside);
    for (const checkout of [repo, worktree, inside]) {
      const fromGit = execFileSync(REAL_GIT, ['rev-parse', '--absolute-git-dir'], {
        cwd: checkout,
        env: clientEnv(),
        encoding: 'utf8',
      }).trim();
      expect(realpathSync(await gitDirOf(checkout))).toBe(realpathSync(fromGit));
      const commonFromGit = execFileSync(
        REAL_GIT,
        ['rev-parse', '--path-format=absolute', '--git-common-dir'],
        { cwd: checkout, env: clientEnv(), encoding: 'utf8' },
      ).trim();
      expect(realpathSync(await gitCommonDirOf(checkout))).toBe(realpathSync(commonFromGit));
    }
  });
});
