import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { agentEnv } from '../helpers/agent-env.js';
import { agentWorldEnv, git, makeRepo, newSession, startGrove } from '../helpers/grove-env.js';
import type { TmuxTerminal } from '../helpers/tmux.js';
import { waitUntil } from '../helpers/wait.js';
import { setUpE2eWorld } from '../helpers/e2e-world.js';
import { replyWith, sameSummary } from '../helpers/fake-model/reply.js';

// Reading a diff and talking back to the agent about it: wrapping and
// horizontal scroll show every character of a long line, and a comment on a
// range of lines goes to the real Claude Code as the next turn.

const reply = replyWith(sameSummary);

const NOTES = '# Notes\n\nline one\nline two\nline three\n';
const LONG_LINE = `start ${'x'.repeat(240)} THE-END`;

const e2e = setUpE2eWorld();
let repo: string;

beforeEach(() => {
  repo = makeRepo(e2e.world);
  e2e.server.script('anthropic', [
    { when: 'Write a title for a coding task', text: reply('Write the notes') },
    { when: 'Write the git commit message for the changes', text: reply('Add notes') },
    { when: 'Write the git commit message for the changes', text: reply('Add numbered notes') },
    {
      when: 'You are reviewing the work of a coding agent',
      text: reply('## Review\n### Project Impact\nSmall.\n### Suggestions\nNone.'),
    },
  ]);
});

/** A session in Review whose agent wrote `files`, with the diff view open on it. */
async function diffOf(
  files: Record<string, string>,
): Promise<{ t: TmuxTerminal; worktree: string; branch: string }> {
  e2e.server.script('anthropic', [
    ...Object.entries(files).map(([path, content]) => ({
      when: 'Write the notes',
      toolCall: { kind: 'write_file' as const, path, content },
    })),
    { when: 'Write the notes', text: reply('Wrote the notes.') },
  ]);
  const t = await startGrove(e2e.world, repo, {
    env: agentWorldEnv(e2e.world, agentEnv(e2e.server, e2e.world.home)),
    columns: 120,
    rows: 34,
  });
  e2e.term = t;
  await t.waitFor('No sessions yet.');
  await newSession(t, 'Write the notes');
  await t.waitFor(/\[Commit\] Add notes/, 30_000);
  await t.waitFor(/ Review /, 15_000);
  const branch = git(repo, 'for-each-ref', '--format=%(refname:short)', 'refs/heads/grove/');
  const worktree =
    git(repo, 'worktree', 'list', '--porcelain')
      .split('\n')
      .filter((l) => l.startsWith('worktree '))
      .map((l) => l.slice(9))
      .find((p) => p !== repo) ?? '';
  await t.keys('d');
  await t.waitFor('wrap off');
  return { t, worktree, branch };
}

describe('the diff view', () => {
  it('shows the end of a long line by wrapping it, and by scrolling right when not wrapping', async () => {
    const { t } = await diffOf({ 'long.txt': `short\n${LONG_LINE}\n` });
    let screen = await t.waitFor('long.txt');
    expect(screen).toContain('start xxxx');
    expect(screen).not.toContain('THE-END');
    // The cut is marked, not hidden: › says the line goes on.
    expect(screen).toMatch(/x›/);

    await t.keys('w');
    screen = await t.waitFor('THE-END');
    expect(screen).toContain('wrap on');

    await t.keys('w');
    await t.waitForGone('THE-END');
    for (let i = 0; i < 10 && !(await t.screen()).includes('THE-END'); i++) {
      const before = await t.screen();
      await t.keys('l');
      await waitUntil('the patch scrolled right', async () => (await t.screen()) !== before);
    }
    screen = await t.waitFor('THE-END');
    expect(screen).toMatch(/wrap off, column \d+/);
    expect(screen).toContain('‹');
  });

  it('sends a comment on a range of lines to the agent as the next turn, and marks it once the agent changed those lines', async () => {
    const { t, worktree, branch } = await diffOf({ 'notes.md': NOTES });
    e2e.server.script('anthropic', [
      {
        when: 'A reviewer left a comment',
        toolCall: {
          kind: 'write_file',
          path: 'notes.md',
          content: '# Notes\n\n1. line one\n2. line two\nline three\n',
        },
      },
      { when: 'A reviewer left a comment', text: reply('Numbered the two lines.') },
    ]);
    await t.waitFor('line 1');

    // Lines 3 and 4 of notes.md: down twice, V, down once, c.
    await t.keys('j', 'j');
    await t.waitFor('line 3');
    await t.keys('V', 'j');
    await t.waitFor('selecting');
    await t.keys('c');
    await t.waitFor('Comment on notes.md:3-4');
    await t.type('Number these lines');
    await t.keys('Enter');
    await t.waitFor('Comment saved as a draft');
    await t.waitFor('● notes.md:3-4 Number');

    await t.keys('S');
    await t.waitFor('Sent 1 comment to the agent');
    await t.waitFor('possibly addressed', 60_000);

    const request = e2e.server
      .modelRequests('anthropic')
      .find((r) => JSON.stringify(r.body).includes('A reviewer left a comment'));
    const body = JSON.stringify(request?.body);
    expect(body).toContain('`notes.md`, lines 3-4');
    expect(body).toContain('Number these lines');
    expect(body).toContain('@@ -0,0 +1,5 @@');
    expect(body).toContain('+line one');
    expect(readFileSync(join(worktree, 'notes.md'), 'utf8')).toBe(
      '# Notes\n\n1. line one\n2. line two\nline three\n',
    );
    await t.waitFor('1. line one');
    expect(git(repo, 'show', `${branch}:notes.md`)).toContain('2. line two');

    // The transcript shows the turn in short: one line per comment.
    await t.keys('q');
    const session = await t.waitFor('Numbered the two lines.');
    expect(session).toContain('Review comments (1):');
    expect(session).toContain('▸ notes.md:3-4: Number these lines');
    expect(session).not.toContain('The hunk it refers to');
  });
});
