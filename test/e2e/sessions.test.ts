import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { agentEnv } from '../helpers/agent-env.js';
import { gate } from '../helpers/fake-model/server.js';
import { agentWorldEnv, git, makeRepo, newSession, startGrove } from '../helpers/grove-env.js';
import type { TmuxTerminal } from '../helpers/tmux.js';
import { waitUntil } from '../helpers/wait.js';
import { setUpE2eWorld } from '../helpers/e2e-world.js';
import { reply } from '../helpers/fake-model/reply.js';

// A person presses `a`, types a task, and the real Claude Code (talking to
// the fake model server) works on it in its own worktree.

const e2e = setUpE2eWorld();
let repo: string;

beforeEach(() => {
  repo = makeRepo(e2e.world);
  // Utility prompts: the title, the commit message and the focused review.
  e2e.server.script('anthropic', [
    { when: 'Write a title for a coding task', text: reply('Add a greeting file') },
    {
      when: 'Write the git commit message for the changes',
      text: reply('Add the greeting files\n\nCreates hello.txt for the greeting.'),
    },
    {
      when: 'You are reviewing the work of a coding agent',
      text: reply('## Review\n### Project Impact\nSmall and safe.\n### Suggestions\nNone.'),
    },
  ]);
});

async function start(): Promise<TmuxTerminal> {
  e2e.term = await startGrove(e2e.world, repo, {
    env: agentWorldEnv(e2e.world, agentEnv(e2e.server, e2e.world.home)),
    columns: 120,
    rows: 34,
  });
  await e2e.term.waitFor('No sessions yet.');
  return e2e.term;
}

function sessionBranch(): string {
  return git(repo, 'for-each-ref', '--format=%(refname:short)', 'refs/heads/grove/');
}

describe('agent sessions in the TUI', () => {
  it('runs a task in its own worktree, commits it on the session branch, and amends on a follow-up', async () => {
    // The agent goes on once the list has shown the turn running.
    const turn = gate();
    e2e.server.script('anthropic', [
      {
        when: 'Create hello.txt',
        until: turn.opened,
        then: { toolCall: { kind: 'write_file', path: 'hello.txt', content: 'hello\n' } },
      },
      { when: 'Create hello.txt', text: reply('I created **hello.txt**.') },
    ]);
    const t = await start();

    await newSession(t, 'Create hello.txt with a greeting');
    await t.waitFor(/InProgress/);
    turn.open();
    const done = await t.waitFor('I created hello.txt.', 20_000);
    await t.waitFor(/Review|AgentReview/);
    expect(done).toContain('Create hello.txt with a greeting');
    await t.waitFor('[Commit] Add the greeting files', 15_000);
    await t.waitFor('Add a greeting file', 15_000);

    const branch = sessionBranch();
    expect(branch).toMatch(/^grove\/[0-9a-f]{8}$/);
    expect(git(repo, 'rev-list', '--count', `main..${branch}`)).toBe('1');
    expect(git(repo, 'log', '-1', '--format=%s', branch)).toBe('Add the greeting files');
    expect(git(repo, 'show', `${branch}:hello.txt`)).toBe('hello');
    expect(git(repo, 'status', '--porcelain')).toBe('');

    e2e.server.script('anthropic', [
      {
        when: 'Write the git commit message for the changes',
        text: reply('Add the greeting files\n\nCreates hello.txt and bye.txt.'),
      },
      {
        when: 'Also add bye.txt',
        toolCall: { kind: 'write_file', path: 'bye.txt', content: 'bye\n' },
      },
      { when: 'Also add bye.txt', text: reply('Added bye.txt too.') },
    ]);
    await t.waitFor(/ Review /, 15_000);
    await t.keys('Enter');
    await t.waitFor('Reply');
    await t.type('Also add bye.txt');
    await t.keys('Enter');
    await t.waitFor('Added bye.txt too.', 30_000);
    await t.waitFor(/\[Commit\] Add the greeting files \([0-9a-f]{8}, amended\)/, 15_000);

    expect(git(repo, 'rev-list', '--count', `main..${branch}`)).toBe('1');
    expect(git(repo, 'show', `${branch}:bye.txt`)).toBe('bye');
  });

  it("asks the agent's questions and sends the answers as one Clarifications reply", async () => {
    e2e.server.script('anthropic', [
      {
        when: 'Greet the user',
        text: reply('', {
          questions: [
            { text: 'Which greeting should I use?', options: ['hello', 'hi'] },
            { text: 'Which file should it go in?', options: ['greeting.txt', 'hello.txt'] },
          ],
        }),
      },
      { when: 'Clarifications:', text: reply('Used hi as you asked.') },
    ]);
    const t = await start();

    await newSession(t, 'Greet the user');
    await t.waitFor('Question', 30_000);
    await t.waitFor('Which greeting should I use?');
    // Before the panel opens, the view says that Enter answers them, and how many there are.
    await t.waitFor('? Enter answers 2 questions of the agent');
    await t.keys('Enter');
    await t.waitFor('Question 1 of 2');
    expect(await t.screen()).not.toContain('Enter answers 2 questions');
    await t.keys('j', 'Enter');
    await t.waitFor('Question 2 of 2');
    await t.keys('Enter');

    await t.waitFor('Used hi as you asked.', 30_000);
    const request = e2e.server
      .modelRequests('anthropic')
      .find((r) => JSON.stringify(r.body).includes('Clarifications:'));
    expect(JSON.stringify(request?.body)).toContain('1. Q: Which greeting should I use?');
    expect(JSON.stringify(request?.body)).toContain('A: hi');
    expect(JSON.stringify(request?.body)).toContain('2. Q: Which file should it go in?');
  });

  it('picks the permission mode in the composer with Shift+Tab, shows it in the header, and switches it later', async () => {
    e2e.server.script('anthropic', [
      { when: 'Plan the greeting', text: reply('1. Create hello.txt.') },
    ]);
    const t = await start();

    await t.keys('a');
    await t.waitFor('Auto Edit (Shift+Tab: Read Only)');
    await t.keys('BTab');
    await t.waitFor('Read Only (Shift+Tab: Plan)');
    await t.keys('BTab');
    await t.waitFor('Plan (Shift+Tab: Auto Edit)');
    await t.type('Plan the greeting');
    await t.keys('Enter');
    await t.waitFor('1. Create hello.txt.', 20_000);
    const planned = await t.waitFor(/Review/);
    // The header: agent/model [effort], then what its agent's processes use while any run and
    // the worktree's disk use once walked, then the mode.
    expect(planned).toMatch(/\] {2}(?:CPU .*? process(?:es)? {2})?(?:disk \S+ \S+ {2})?Plan {2}/);
    const turn = e2e.server
      .modelRequests('anthropic')
      .find(
        (r) =>
          JSON.stringify(r.body).includes('Plan the greeting') &&
          !JSON.stringify(r.body).includes('Write a title'),
      );
    expect(JSON.stringify(turn?.body)).toContain('This session is in Plan mode');

    await t.keys('BTab');

    const switched = await t.waitFor(
      '[Mode] Auto Edit: edits and commands, confined to the worktree.',
    );
    expect(switched).toMatch(
      /\] {2}(?:CPU .*? process(?:es)? {2})?(?:disk \S+ \S+ {2})?Auto Edit {2}/,
    );
  });

  it('stops a running turn with Ctrl+C and keeps the session in Review', async () => {
    e2e.server.script('anthropic', [
      { when: 'A very slow task', delayMs: 60_000, then: { text: reply('too late') } },
    ]);
    const t = await start();

    await newSession(t, 'A very slow task');
    await t.waitFor(/InProgress/, 15_000);
    // The agent has sent the turn to the model: Ctrl+C stops a turn that is really running.
    await waitUntil('the model has the request', () =>
      e2e.server
        .modelRequests('anthropic')
        .some((r) => JSON.stringify(r.body).includes('A very slow task')),
    );
    await t.keys('C-c');

    await t.waitFor('[Stopped] You stopped the turn.', 15_000);
    await t.waitFor(/ Review /);
    expect(sessionBranch()).toMatch(/^grove\//);
  });

  it('copies .worktreeinclude files and shows the setup command output', async () => {
    makeIgnoredEnv();
    e2e.server.script('anthropic', [{ when: 'Look around', text: reply('Looked.') }]);
    const t = await start();
    await t.keys('Tab');
    await t.waitFor('Setup command');
    // Down the Settings rows until the setup command's (new settings move it).
    for (let i = 0; i < 40 && !/▶ Setup command/.test(await t.screen()); i++) {
      const before = await t.screen();
      await t.keys('j');
      await waitUntil('the selection to move', async () => (await t.screen()) !== before, 5_000);
    }
    await t.waitFor(/▶ Setup command/);
    await t.keys('Enter');
    await t.waitFor('Enter saves');
    await t.type('echo setup ran in $GROVE_BASE_BRANCH');
    await t.keys('Enter');
    await t.waitFor('echo setup ran');
    await t.keys('Tab', 'Tab');
    await t.waitFor('No sessions yet.');

    await newSession(t, 'Look around');
    await t.waitFor('[Setup] Copied from the main checkout (.worktreeinclude): .env', 15_000);
    await t.waitFor('setup ran in main', 15_000);
    await t.waitFor('Looked.', 30_000);
    const worktree =
      git(repo, 'worktree', 'list', '--porcelain')
        .split('\n')
        .filter((l) => l.startsWith('worktree '))
        .map((l) => l.slice(9))
        .find((p) => p !== repo) ?? '';
    expect(readFileSync(join(worktree, '.env'), 'utf8')).toBe('SECRET=1\n');
  });
});

function makeIgnoredEnv(): void {
  // .env is ignored by git but listed in .worktreeinclude.
  const write = (name: string, text: string) => writeFileSync(join(repo, name), text);
  write('.gitignore', '.env\n');
  write('.worktreeinclude', '.env\n');
  write('.env', 'SECRET=1\n');
  git(repo, 'add', '.gitignore', '.worktreeinclude');
  git(repo, 'commit', '-q', '-m', 'Ignore .env');
}
