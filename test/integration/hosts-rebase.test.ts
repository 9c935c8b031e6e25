import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { startClaudeHost, type ClaudeHost } from '../helpers/claude-host.js';
import { git } from '../helpers/grove-env.js';
import { sshdIt, sshdProblem } from '../helpers/sshd.js';
import {
  expectExit,
  harness,
  reply,
  show,
  type Harness,
  transcriptOf,
} from './headless-harness.js';
import { ResultSchema } from './headless-schema.js';

// A rebase of a session on a host (issue 24, item 3), as a person runs it:
// `grove run --host`, a new commit on the base branch, `grove rebase`, then
// `grove reply`, with the built binary, the real Claude Code run on the test
// host by its second unix user, and the fake model server. The rebase moves
// the local branch only; the next turn's placement brings the host's mirror
// branch and worktree to it, so the agent there sees the new base and its
// work comes back on top of it. The agent on the host is hostile: the
// mirror's branch and the worktree's HEAD it moved are not believed, and work
// the host has that this machine lacks is never forced over.

const it = sshdIt();
const ROOT = `.grove-test-rebase-${process.pid}`;
let h: Harness;
let claudeHost: ClaudeHost | undefined;
let env: Record<string, string>;

function ssh(command: string): string {
  if (!claudeHost) throw new Error('no test host');
  return claudeHost.sshd.ssh(command);
}

beforeAll(async () => {
  if (sshdProblem() !== null) return;
  h = await harness();
  claudeHost = await startClaudeHost(h.server.url);
  env = { GROVE_SSH_CONFIG: claudeHost.sshd.config };
  expectExit(
    await h.grove(['host', 'add', 'build', claudeHost.sshd.alias, '--root', ROOT], { env }),
    0,
  );
}, 60_000);

afterAll(async () => {
  await claudeHost?.close(ROOT);
  await h?.close();
});

/** Shell lines on the host that set $m (the project's mirror) and $wt (the session's worktree). */
function hostPaths(sessionId: string): string {
  return `m=$(echo ${ROOT}/repos/*.git); wt=$(echo ${ROOT}/worktrees/*/${sessionId}); `;
}

/** The host's copy of the branch in the mirror. */
function mirrorHead(sessionId: string, branch: string): string {
  return ssh(`${hostPaths(sessionId)}git --git-dir="$m" rev-parse refs/heads/${branch}`).trim();
}

/**
 * After a turn: the tree of the mirror's branch, what the host worktree's
 * HEAD names, and its changes (the host's commit keeps the files Grove's own
 * commit here then takes; the next turn starts from that commit).
 */
function hostSide(sessionId: string, branch: string): string[] {
  return ssh(
    `${hostPaths(sessionId)}git --git-dir="$m" rev-parse refs/heads/${branch}^{tree}; ` +
      `git -C "$wt" symbolic-ref -q HEAD || echo detached; git -C "$wt" status --porcelain`,
  )
    .trim()
    .split('\n');
}

/** What the session's branch here should look like from the host after a turn. */
function inStepHere(branch: string): string[] {
  return [git(h.repo, 'rev-parse', `${branch}^{tree}`), `refs/heads/${branch}`];
}

/** The agent's command that records the commit and branch its turn started on, in head.txt. */
const RECORD_HEAD = 'git rev-parse HEAD > head.txt; git symbolic-ref HEAD >> head.txt';

/** A new commit on the base branch here (the main checkout), with `file`. */
function commitOnMain(file: string, text: string): string {
  writeFileSync(join(h.repo, file), text);
  git(h.repo, 'add', file);
  git(h.repo, 'commit', '-q', '-m', `Add ${file}`);
  return git(h.repo, 'rev-parse', 'HEAD');
}

/** A turn whose agent runs `command` on the host and answers `answer`. */
function agentRuns(mark: string, command: string, answer: string): void {
  h.utilities();
  h.server.script('anthropic', [
    { when: mark, toolCall: { kind: 'shell', command } },
    { when: mark, text: reply(answer) },
  ]);
}

const transcript = (sessionId: string): Promise<string[]> => transcriptOf(h, sessionId, env);

async function startOnHost(
  mark: string,
): Promise<{ sessionId: string; branch: string; worktree: string }> {
  agentRuns(mark, "printf 'first\\n' > first.txt", 'Wrote first.txt.');
  const run = await h.grove(['run', '--host', 'build', '--output', 'json', mark], { env });
  expectExit(run, 0);
  return ResultSchema.parse(JSON.parse(run.stdout));
}

describe('a rebase of a session on a host', () => {
  it('moves the host’s branch and worktree before the next turn, which sees the new base there and comes back on top of it', async () => {
    const { sessionId, branch } = await startOnHost('start before the base moves');
    const base = commitOnMain('base.txt', 'new base\n');
    const rebase = await h.grove(['rebase', sessionId], { env });
    expectExit(rebase, 0);
    const rebased = git(h.repo, 'rev-parse', branch);
    expect(git(h.repo, 'merge-base', base, rebased)).toBe(base);
    const onHost = mirrorHead(sessionId, branch);
    expect(onHost).not.toBe(rebased);

    agentRuns('read the new base', `cat base.txt > seen.txt; ${RECORD_HEAD}`, 'Read the base.');
    const second = await h.grove(['reply', sessionId, 'read the new base'], { env });
    expectExit(second, 0);
    // The turn on the host started on exactly the rebased branch and saw the new base's file.
    expect(git(h.repo, 'show', `${branch}:head.txt`)).toBe(`${rebased}\nrefs/heads/${branch}`);
    expect(git(h.repo, 'show', `${branch}:seen.txt`)).toBe('new base');
    expect(git(h.repo, 'show', `${branch}:first.txt`)).toBe('first');
    // Its work came back on top of the new base, as the session's one commit.
    expect(git(h.repo, 'merge-base', base, branch)).toBe(base);
    expect(git(h.repo, 'rev-list', '--count', `${base}..${branch}`)).toBe('1');
    expect(hostSide(sessionId, branch)).toEqual(inStepHere(branch));
    const lines = await transcript(sessionId);
    expect(lines).toContain(
      `notice: [Host] build's copy of ${branch} moved from ${onHost.slice(0, 12)} to ${rebased.slice(0, 12)}, the branch as it is here.`,
    );
    expect(lines.filter((l) => l.startsWith('assistant_answer'))).toEqual([
      'assistant_answer: Wrote first.txt.',
      'assistant_answer: Read the base.',
    ]);
  }, 240_000);

  it('does not believe the mirror’s branch or the worktree’s HEAD the agent moved on the host: both are put back from the local branch', async () => {
    const { sessionId, branch } = await startOnHost('start before the agent moves refs');
    agentRuns('second file', "printf 'second\\n' > second.txt", 'Wrote second.txt.');
    expectExit(await h.grove(['reply', sessionId, 'second file'], { env }), 0);
    const local = git(h.repo, 'rev-parse', branch);
    // What an agent on the host can do: rewind the branch in the mirror, detach the worktree's HEAD.
    ssh(
      `${hostPaths(sessionId)}back=$(git --git-dir="$m" rev-parse refs/heads/${branch}~1) && ` +
        `git --git-dir="$m" update-ref refs/heads/${branch} "$back" && ` +
        `git -C "$wt" checkout -q --detach "$back"`,
    );
    expect(hostSide(sessionId, branch)[1]).toBe('detached');
    agentRuns('third file', `ls > listing.txt; ${RECORD_HEAD}`, 'Listed the files.');
    const third = await h.grove(['reply', sessionId, 'third file'], { env });
    expectExit(third, 0);
    // The turn ran on the local branch's commit: both files were there, and nothing here was lost.
    expect(git(h.repo, 'show', `${branch}:head.txt`)).toBe(`${local}\nrefs/heads/${branch}`);
    const listing = git(h.repo, 'show', `${branch}:listing.txt`).split('\n');
    expect(listing).toEqual(expect.arrayContaining(['first.txt', 'second.txt']));
    expect(git(h.repo, 'show', `${branch}:second.txt`)).toBe('second');
    expect(hostSide(sessionId, branch)).toEqual(inStepHere(branch));
  }, 240_000);

  it('refuses in words when the host has commits never brought back and the branch was rebased here, overwrites neither side, and goes on once they are merged here', async () => {
    const { sessionId, branch, worktree } = await startOnHost('start before the host keeps work');
    // A commit on the host that never came back (a turn whose fetch failed, or the agent's own).
    ssh(
      `${hostPaths(sessionId)}cd "$wt" && printf 'host only\\n' > host-only.txt && git add host-only.txt && ` +
        `git -c user.name=Agent -c user.email=agent@host commit -q -m 'Host only'`,
    );
    const onHost = mirrorHead(sessionId, branch);
    const base = commitOnMain('base2.txt', 'second base\n');
    expectExit(await h.grove(['rebase', sessionId], { env }), 0);
    const rebased = git(h.repo, 'rev-parse', branch);

    const asked = h.server.modelRequests('anthropic').length;
    const refused = await h.grove(['reply', sessionId, 'after the refusal'], { env });
    expect(refused.code, show(refused)).not.toBe(0);
    expect(refused.stderr + refused.stdout).toContain(
      `has commits that were never brought back here (up to ${onHost.slice(0, 12)})`,
    );
    // No agent ran; neither side moved; the host's commit is kept here under a side ref.
    expect(h.server.modelRequests('anthropic').length).toBe(asked);
    expect(git(h.repo, 'rev-parse', branch)).toBe(rebased);
    expect(mirrorHead(sessionId, branch)).toBe(onHost);
    const side = `refs/grove/hosts/build/${branch}`;
    expect(git(h.repo, 'show', `${side}:host-only.txt`)).toBe('host only');
    const lines = await transcript(sessionId);
    expect(lines.join('\n')).toContain(`git merge ${side}`);

    // The fix the message gives: merge the host's commits here, then reply again.
    git(worktree, 'merge', '-q', '--no-edit', side);
    const merged = git(h.repo, 'rev-parse', branch);
    agentRuns(
      'after the merge',
      `cat base2.txt host-only.txt > both.txt; ${RECORD_HEAD}`,
      'Read both.',
    );
    const again = await h.grove(['reply', sessionId, 'after the merge'], { env });
    expectExit(again, 0);
    expect(git(h.repo, 'show', `${branch}:head.txt`)).toBe(`${merged}\nrefs/heads/${branch}`);
    expect(git(h.repo, 'show', `${branch}:both.txt`)).toBe('second base\nhost only');
    expect(git(h.repo, 'merge-base', base, branch)).toBe(base);
    expect(hostSide(sessionId, branch)).toEqual(inStepHere(branch));
  }, 300_000);
});
