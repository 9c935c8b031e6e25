import { execFileSync } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FakeGitHub } from '../helpers/fake-github/server.js';
import { openGitHubTui, type GitHubTui } from '../helpers/fake-github/tui.js';
import type { FakeModelServer, Scripted } from '../helpers/fake-model/server.js';
import { newSession } from '../helpers/grove-env.js';

// A published session gets a review thread on (fake) GitHub. The person sees
// it in the session view, opens the thread panel with `t`, sends it to the
// agent with Enter; the agent's change lands and is pushed, Grove replies on
// the thread with the commit, asks, and on `y` resolves the thread.

const TOKEN = 'grove-e2e-threads-6a2f1d';

const reply = (answer: string, turn = `turn: ${answer}`) =>
  JSON.stringify({ answer, questions: [], summary: { turn, session: `session: ${answer}` } });

let gh: GitHubTui;
let model: FakeModelServer;
let github: FakeGitHub;
let bare: string;

beforeEach(async () => {
  const review = {
    when: 'You are reviewing the work of a coding agent',
    text: reply('## Review\n### Project Impact\nSmall and safe.\n### Suggestions\nNone.'),
  };
  const script: Scripted[] = [
    { when: 'Write a title for a coding task', text: reply('Add a greeting file') },
    { when: 'Write the git commit message for the changes', text: reply('Add the greeting file') },
    review,
    {
      when: 'Create hello.txt',
      toolCall: { kind: 'write_file', path: 'hello.txt', content: 'hello\n' },
    },
    { when: 'Create hello.txt', text: reply('I created hello.txt.') },
  ];
  gh = await openGitHubTui(TOKEN, { poll: true, script });
  ({ model, github, bare } = gh);
});

afterEach(() => gh.close());

function remoteFile(branch: string, path: string): string {
  return execFileSync('git', ['show', `${branch}:${path}`], { cwd: bare, encoding: 'utf8' });
}

describe('pull-request review threads in the TUI', () => {
  it('sends a thread to the agent, pushes its change, answers the thread and resolves it after the yes', async () => {
    const t = await gh.start({ columns: 160, rows: 40 });
    await newSession(t, 'Create hello.txt with a greeting');
    await t.waitFor('Small and safe.', 60_000);
    await t.keys('p');
    await t.waitFor('Publish: remote branch name');
    await t.keys('Enter');
    await t.waitFor('PR #1 open draft', 30_000);
    const branch = github.pull(1).head;

    const thread = github.addReviewThread(1, {
      path: 'hello.txt',
      line: 1,
      author: 'alice',
      body: 'Capitalise the greeting.\nAnd greet the world.',
    });
    await t.waitFor('Review threads on PR #1: 1 unresolved', 30_000);
    await t.waitFor('hello.txt:1  alice: Capitalise the greeting.');

    model.script('anthropic', [
      {
        when: 'Write the git commit message for the changes',
        text: reply('Add a friendlier greeting file'),
      },
      {
        when: 'You are reviewing the work of a coding agent',
        text: reply('## Review\n### Project Impact\nStill small.\n### Suggestions\nNone.'),
      },
      {
        when: 'Reviewers left',
        toolCall: { kind: 'write_file', path: 'hello.txt', content: 'Hello, world!\n' },
      },
      {
        when: 'Reviewers left',
        text: reply(
          'Capitalised the greeting and greeted the world.',
          'Made hello.txt say Hello, world!',
        ),
      },
    ]);
    await t.keys('t');
    await t.waitFor('Review threads (1 unresolved)');
    await t.keys('Enter');
    await t.waitFor('Capitalised the greeting and greeted the world.', 60_000);

    const popup = await t.waitFor('Resolve 1 review thread on GitHub?', 30_000);
    expect(popup).toContain('hello.txt:1  alice: Capitalise the greeting. [answered]');
    expect(remoteFile(branch, 'hello.txt')).toBe('Hello, world!\n');
    const answer = github.thread(thread.id).comments.at(-1)?.body ?? '';
    expect(answer).toMatch(/^Addressed in [0-9a-f]{12} \(pushed to `grove\/[0-9a-f]+`\)\./);
    expect(answer).toContain('Made hello.txt say Hello, world!');
    expect(github.thread(thread.id).isResolved).toBe(false);

    await t.keys('y');
    await t.waitFor('[Review Threads] Resolved 1 review thread on GitHub.', 30_000);
    expect(github.thread(thread.id).isResolved).toBe(true);
    const screen = await t.waitFor('Still small.', 30_000);
    expect(screen).not.toContain('Review threads on PR #1');
    expect(screen).not.toContain(TOKEN);
  });
});
