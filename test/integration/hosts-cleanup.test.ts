import { afterAll, beforeAll, describe, expect } from 'vitest';
import { git } from '../helpers/grove-env.js';
import { startClaudeHost, type ClaudeHost } from '../helpers/claude-host.js';
import { sshdIt, sshdProblem, type TestHost } from '../helpers/sshd.js';
import {
  expectExit,
  harness,
  reply,
  show,
  type Harness,
  transcriptOf,
} from './headless-harness.js';
import { GcSchema, ListSchema, ShowSchema } from './headless-schema.js';

// A session on a host that ends for good (merged, canceled, reclaimed) has
// its worktree, its branch in the host's mirror and its run folders removed
// there (issue 24), and nothing else of the host: not another session's
// worktree, not a file Grove did not make. A host that cannot be reached does
// not hold up the merge: the clean-up waits for the next contact (grove host
// check, grove gc). Commits the host has and this repository lacks are
// fetched first; uncommitted work there keeps the worktree, said in words.

const it = sshdIt();
const ROOT = `.grove-test-cleanup-${process.pid}`;
let h: Harness;
let sshd: TestHost | undefined;
let claude: ClaudeHost | undefined;
let env: Record<string, string>;

function host(): TestHost {
  if (!sshd) throw new Error('no test sshd');
  return sshd;
}

beforeAll(async () => {
  if (sshdProblem() !== null) return;
  h = await harness();
  claude = await startClaudeHost(h.server.url);
  sshd = claude.sshd;
  env = { GROVE_SSH_CONFIG: sshd.config };
  expectExit(await h.grove(['host', 'add', 'build', sshd.alias, '--root', ROOT], { env }), 0);
}, 60_000);

afterAll(async () => {
  if (!claude) return;
  await claude.close(ROOT);
  await h.close();
});

/** Runs a command on the host as its user; its output. */
function onHost(command: string): string {
  return host().ssh(`cd ${ROOT} && ${command}`);
}

/** Whether a path under Grove's root on the host exists. */
function there(path: string): boolean {
  return onHost(`test -e ${path} && echo yes || echo no`).trim() === 'yes';
}

/** A session made by `grove run --host build` whose agent writes `file`; its id, branch and place on the host. */
async function sessionOnHost(
  title: string,
  file: string,
): Promise<{ id: string; branch: string; worktree: string; key: string; runs: string[] }> {
  const prompt = `write ${file} for cleanup`;
  h.utilities(title, `Add ${file}`);
  h.server.script('anthropic', [
    { when: prompt, toolCall: { kind: 'shell', command: `printf 'x\\n' > ${file}` } },
    { when: prompt, text: reply(`Wrote ${file}.`) },
  ]);
  const run = await h.grove(['run', '--host', 'build', prompt], { env });
  expectExit(run, 0);
  const list = ListSchema.parse(JSON.parse((await h.grove(['ls', '--json'], { env })).stdout));
  const id = list.find((s) => s.title === title)?.sessionId ?? '';
  expect(id, show(run)).not.toBe('');
  const shown = ShowSchema.parse(
    JSON.parse((await h.grove(['show', id, '--json'], { env })).stdout),
  );
  const key = onHost(`ls worktrees`).trim().split('\n')[0] ?? '';
  const runs = onHost(`grep -l -F -- ${id} runs/*/prompt 2>/dev/null || true`)
    .trim()
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => l.split('/')[1] ?? '');
  return { id, branch: shown.branch, worktree: `worktrees/${key}/${id}`, key, runs };
}

function mirrorHas(key: string, branch: string): boolean {
  return (
    onHost(`git -C repos/${key}.git rev-parse -q --verify refs/heads/${branch} || true`).trim() !==
    ''
  );
}

const transcript = async (id: string): Promise<string> =>
  (await transcriptOf(h, id, env)).join('\n');

describe('a session on a host that ends for good', () => {
  it('merged: its worktree, branch and run folders there go, and nothing Grove did not make', async () => {
    const other = await sessionOnHost('Stays on the host', 'stays.txt');
    const s = await sessionOnHost('Merged and cleaned', 'merged.txt');
    expect(there(s.worktree)).toBe(true);
    expect(mirrorHas(s.key, s.branch)).toBe(true);
    expect(s.runs.length).toBeGreaterThan(0);
    // Things Grove did not make, beside what it did.
    onHost(
      `echo mine > worktrees/${s.key}/notes.txt && mkdir -p runs/mine && echo keep > runs/mine/file`,
    );

    const merge = await h.grove(['merge', s.id], { env });
    expectExit(merge, 0);

    expect(git(h.repo, 'show', 'HEAD:merged.txt')).toBe('x');
    expect(there(s.worktree)).toBe(false);
    expect(mirrorHas(s.key, s.branch)).toBe(false);
    for (const run of s.runs) expect(there(`runs/${run}`)).toBe(false);
    expect(await transcript(s.id)).toMatch(
      /\[Host\] Removed on build: its worktree, its branch in the mirror, \d+ run folders?\./,
    );
    // Another session's worktree and branch, and what Grove did not make, are still there.
    expect(there(other.worktree)).toBe(true);
    expect(mirrorHas(other.key, other.branch)).toBe(true);
    for (const run of other.runs) expect(there(`runs/${run}`)).toBe(true);
    expect(onHost(`cat worktrees/${s.key}/notes.txt runs/mine/file`)).toBe('mine\nkeep\n');
  }, 400_000);

  it('merged while the host is away: the merge is done, and the clean-up waits for grove host check', async () => {
    const s = await sessionOnHost('Merged while away', 'away.txt');
    await host().down();
    let merge;
    try {
      merge = await h.grove(['merge', s.id], { env });
    } finally {
      await host().up();
    }
    expectExit(merge, 0);
    expect(git(h.repo, 'show', 'HEAD:away.txt')).toBe('x');
    const shown = ShowSchema.parse(
      JSON.parse((await h.grove(['show', s.id, '--json'], { env })).stdout),
    );
    expect(shown.status).toBe('Done');
    expect(await transcript(s.id)).toContain('[Host] Could not reach build to remove this session');
    expect(there(s.worktree)).toBe(true);

    const check = await h.grove(['host', 'check', 'build'], { env });
    expect(check.stdout, show(check)).toMatch(
      /ok\s+cleanup\s+session \w+ ended: Removed on build: its worktree/,
    );
    expect(there(s.worktree)).toBe(false);
    expect(mirrorHas(s.key, s.branch)).toBe(false);
  }, 400_000);

  it('canceled with commits on the host that never came back: fetched first, then removed', async () => {
    const s = await sessionOnHost('Commits left on the host', 'first.txt');
    onHost(
      `cd ${s.worktree} && echo late > late.txt && git add late.txt && git -c user.name=h -c user.email=h@h commit -qm late`,
    );
    const tip = onHost(`git -C ${s.worktree} rev-parse HEAD`).trim();

    expectExit(await h.grove(['cancel', s.id, '--yes'], { env }), 0);

    const kept = `refs/grove/hosts/build/kept/${s.id}`;
    expect(git(h.repo, 'rev-parse', kept)).toBe(tip);
    expect(git(h.repo, 'show', `${kept}:late.txt`)).toBe('late');
    expect(await transcript(s.id)).toContain(`are kept at ${kept}`);
    expect(there(s.worktree)).toBe(false);
  }, 400_000);

  it("reads the host's worktree with its git folders from Grove's records: a .git file the agent rewrote runs nothing", async () => {
    const s = await sessionOnHost('Rewritten git file', 'third.txt');
    // The agent points the worktree at a repository of its own whose config runs a program on `git status`.
    onHost(
      [
        `rm -rf evil && git clone -q repos/${s.key}.git evil && git -C evil checkout -q ${s.branch}`,
        `git -C evil config filter.evil.clean 'touch "$HOME/pwned-by-filter"; cat'`,
        `echo '* filter=evil' > evil/.git/info/attributes`,
        `echo "gitdir: $PWD/evil/.git" > ${s.worktree}/.git`,
        `touch ${s.worktree}/third.txt`,
      ].join(' && '),
    );
    const status = onHost(`cd ${s.worktree} && git status --porcelain; ls ~`);
    expect(status, 'the planted filter works for a git that trusts .git').toContain(
      'pwned-by-filter',
    );
    onHost('rm -f ~/pwned-by-filter');

    expectExit(await h.grove(['cancel', s.id, '--yes'], { env }), 0);

    expect(onHost('ls ~')).not.toContain('pwned-by-filter');
    expect(await transcript(s.id)).toContain('[Host]');
    onHost('rm -rf evil');
  }, 400_000);

  it('canceled with uncommitted work in the host worktree: kept there and said so, then grove gc removes it once it is gone', async () => {
    const s = await sessionOnHost('Uncommitted on the host', 'second.txt');
    onHost(`echo wip > ${s.worktree}/wip.txt`);

    expectExit(await h.grove(['cancel', s.id, '--yes'], { env }), 0);

    expect(there(`${s.worktree}/wip.txt`)).toBe(true);
    expect(mirrorHas(s.key, s.branch)).toBe(true);
    expect(await transcript(s.id)).toMatch(
      /\[Host\] Kept on build: the worktree \S+ has 1 uncommitted change that never came back here/,
    );

    onHost(`rm ${s.worktree}/wip.txt`);
    const dry = GcSchema.parse(
      JSON.parse((await h.grove(['gc', '--dry-run', '--json'], { env })).stdout),
    );
    expect(dry.hosts).toContainEqual(
      expect.objectContaining({ sessionId: s.id, host: 'build', action: 'pending' }),
    );
    expect(there(s.worktree)).toBe(true);
    const gc = await h.grove(['gc'], { env });
    expect(gc.stdout, show(gc)).toMatch(
      /host build {2}\w+ {2}cleaned: Removed on build: its worktree/,
    );
    expect(there(s.worktree)).toBe(false);
    expect(mirrorHas(s.key, s.branch)).toBe(false);
  }, 400_000);
});
