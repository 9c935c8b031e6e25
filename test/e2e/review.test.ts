import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { agentEnv } from '../helpers/agent-env.js';
import { agentWorldEnv, git, makeRepo, newSession, startGrove } from '../helpers/grove-env.js';
import type { TmuxTerminal } from '../helpers/tmux.js';
import { setUpE2eWorld } from '../helpers/e2e-world.js';
import { replyWith } from '../helpers/fake-model/reply.js';

// Reviewing and landing a session the way a person does it: read the
// answer, open the diff, merge it, or throw it away without losing work.

const reply = replyWith({ turn: 'Wrote the notes.', session: 'Notes and a helper.' });

/** A long markdown answer: headings, lists, code, a table, a link. */
function longAnswer(): string {
  const parts = ['# Top of the answer', '', 'I wrote **notes.md** and `util.js`.', ''];
  for (let i = 1; i <= 60; i++) {
    parts.push(
      `## Section ${i}`,
      '',
      `- point ${i}.a with a [link](https://example.com/${i})`,
      `- point ${i}.b`,
      '',
    );
    if (i % 20 === 0)
      parts.push(
        '```js',
        `const answer${i} = ${i};`,
        '```',
        '',
        '| key | value |',
        '| --- | --- |',
        `| row${i} | ${i * 2} |`,
        '',
      );
  }
  parts.push('Bottom of the answer.');
  return parts.join('\n');
}

const e2e = setUpE2eWorld();
let repo: string;
let clipboardFile: string;

beforeEach(() => {
  repo = makeRepo(e2e.world);
  // A stand-in for xsel: a headless machine has no clipboard to talk to.
  clipboardFile = join(e2e.world.dir, 'clipboard.txt');
  writeFileSync(join(e2e.world.bin, 'xsel'), `#!/bin/sh\ncat > '${clipboardFile}'\n`);
  chmodSync(join(e2e.world.bin, 'xsel'), 0o755);
  e2e.server.script('anthropic', [
    { when: 'Write a title for a coding task', text: reply('Write the notes') },
    {
      when: 'Write the git commit message for the changes',
      text: reply('Add notes and a helper\n\nNotes for the team and a small helper.'),
    },
    {
      when: 'You are reviewing the work of a coding agent',
      text: reply(
        '## Review\n### Project Impact\nA **small** change to `notes.md`.\n### Suggestions\n- [Low] notes.md:1 — say **why**',
      ),
    },
  ]);
});

async function sessionInReview(
  prompt: string,
  answer: string,
): Promise<{ t: TmuxTerminal; branch: string; worktree: string }> {
  e2e.server.script('anthropic', [
    {
      when: prompt,
      toolCall: {
        kind: 'write_file',
        path: 'notes.md',
        content: '# Notes\n\nline one\nline two\n',
      },
    },
    {
      when: prompt,
      toolCall: { kind: 'write_file', path: 'util.js', content: 'export const one = 1;\n' },
    },
    { when: prompt, text: reply(answer) },
  ]);
  // DISPLAY: a desktop session, so `y` goes to the clipboard tool (the xsel stand-in) rather than OSC 52.
  const t = await startGrove(e2e.world, repo, {
    env: {
      ...agentWorldEnv(e2e.world, {
        ...agentEnv(e2e.server, e2e.world.home),
        PATH: `${e2e.world.bin}:${process.env['PATH'] ?? ''}`,
      }),
      DISPLAY: ':99',
    },
    columns: 110,
    rows: 32,
  });
  e2e.term = t;
  await t.waitFor('No sessions yet.');
  await newSession(t, prompt);
  await t.waitFor(/\[Commit\] Add notes and a helper/, 30_000);
  await t.waitFor(/ Review /, 15_000);
  const branch = git(repo, 'for-each-ref', '--format=%(refname:short)', 'refs/heads/grove/');
  const worktree =
    git(repo, 'worktree', 'list', '--porcelain')
      .split('\n')
      .filter((l) => l.startsWith('worktree '))
      .map((l) => l.slice(9))
      .find((p) => p !== repo) ?? '';
  return { t, branch, worktree };
}

describe('reviewing and landing a session', () => {
  it('scrolls a long markdown answer, shows the diff, and merges it onto main', async () => {
    const { t, branch, worktree } = await sessionInReview('Write the notes', longAnswer());

    // The view follows the bottom of the transcript: the summary is in sight.
    let screen = await t.waitFor('Bottom of the answer.');
    expect(screen).toContain('── Summary ──');
    expect(screen).not.toContain('Top of the answer');
    await t.keys('g');
    screen = await t.waitFor('Top of the answer');
    expect(screen).not.toContain('Bottom of the answer.');
    // Markdown is rendered, not shown raw.
    expect(screen).not.toContain('**notes.md**');
    expect(screen).not.toContain('## Section 1');
    expect(screen).not.toContain('[link](');
    expect(screen).toContain('point 1.a with a link');
    await t.keys('C-d');
    await t.waitForGone('Top of the answer');
    await t.keys('G');
    await t.waitFor('Bottom of the answer.');

    await t.keys('d');
    // The answer names notes.md too: wait for the diff view's file row itself.
    screen = await t.waitFor(/notes\.md\s+\+4/);
    expect(screen).toMatch(/util\.js\s+\+1/);
    expect(screen).toContain('line one');
    // Tab to the file tree, then the next file.
    await t.keys('Tab', 'j');
    await t.waitFor('export const one = 1;');
    await t.keys('q');
    await t.waitFor('Bottom of the answer.');

    await t.keys('m');
    await t.waitFor(/Merge ".*"\?/);
    await t.keys('y');
    await t.waitFor(/ Done /, 30_000);
    await t.waitFor(/Merged as [0-9a-f]{12} on main/);

    expect(git(repo, 'log', '-1', '--format=%s', 'main')).toBe('Add notes and a helper');
    expect(git(repo, 'show', 'main:notes.md')).toContain('line two');
    expect(git(repo, 'rev-list', '--count', 'main')).toBe('2');
    expect(git(repo, 'branch', '--list', branch)).toBe('');
    expect(existsSync(worktree)).toBe(false);
    expect(git(repo, 'status', '--porcelain')).toBe('');
  });

  it('shows the focused review as rendered markdown, as answers are', async () => {
    const { t } = await sessionInReview('Write the notes', 'Done.');
    const screen = await t.waitFor('Project Impact', 30_000);
    expect(screen).toContain('── Focused review ──');
    expect(screen).toContain('A small change to notes.md.');
    expect(screen).toContain('notes.md:1 — say why');
    expect(screen).not.toContain('### Project Impact');
    expect(screen).not.toContain('## Review');
    expect(screen).not.toContain('**');
  });

  it('cancels a session with uncommitted work by keeping it on its branch', async () => {
    const { t, branch, worktree } = await sessionInReview('Write the notes', 'Done.');
    // The person edits the worktree by hand after the turn.
    writeFileSync(join(worktree, 'notes.md'), '# Notes\n\nmy own edit\n');
    writeFileSync(join(worktree, 'scratch.txt'), 'unsaved idea\n');

    await t.keys('c');
    const confirm = await t.waitFor(/Cancel ".*"\?/);
    expect(confirm).toMatch(/2 uncommitted change/);
    expect(confirm).toContain('the branch is kept');
    await t.keys('y');
    await t.waitFor(/ Canceled /, 20_000);
    await t.waitFor(`Branch kept: ${branch}`);

    expect(existsSync(worktree)).toBe(false);
    expect(git(repo, 'show', `${branch}:notes.md`)).toContain('my own edit');
    expect(git(repo, 'show', `${branch}:scratch.txt`)).toBe('unsaved idea');
    expect(git(repo, 'rev-list', '--count', 'main')).toBe('1');

    await t.keys('y');
    await t.waitFor('Copied the command that restores the branch');
    expect(readFileSync(clipboardFile, 'utf8')).toBe(
      `git worktree add ../${branch.replace('/', '-')} ${branch}`,
    );
  });
});
