import { execFileSync } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  COMMIT_STEP,
  REVIEW_STEP,
  TITLE_STEP,
  openGitHubTui,
  type GitHubTui,
} from '../helpers/fake-github/tui.js';
import { gate, type FakeModelServer } from '../helpers/fake-model/server.js';
import { git, newSession } from '../helpers/grove-env.js';
import type { FakeGitHub } from '../helpers/fake-github/server.js';
import { reply } from '../helpers/fake-model/reply.js';

// A person runs a turn, presses `p` in the session view, accepts the branch
// name, sees the pull request in the header, and the session follows the
// pull request when it is merged on (fake) GitHub.

const TOKEN = 'grove-e2e-secret-3b9d0c7a51';

let gh: GitHubTui;
let model: FakeModelServer;
let github: FakeGitHub;
let repo: string;
let bare: string;

beforeEach(async () => {
  gh = await openGitHubTui(TOKEN, { poll: true, script: [TITLE_STEP, COMMIT_STEP, REVIEW_STEP] });
  ({ model, github, repo, bare } = gh);
});

afterEach(() => gh.close());

describe('publishing from the TUI', () => {
  it('publishes the session as a draft pull request and follows it to Merged', async () => {
    model.script('anthropic', [
      {
        when: 'Create hello.txt',
        toolCall: { kind: 'write_file', path: 'hello.txt', content: 'hello\n' },
      },
      { when: 'Create hello.txt', text: reply('I created hello.txt.') },
    ]);
    const t = await gh.start();

    await newSession(t, 'Create hello.txt with a greeting');
    await t.waitFor('I created hello.txt.', 30_000);
    await t.waitFor('[Commit] Add the greeting files', 15_000);
    await t.waitFor('Small and safe.', 30_000);
    await t.waitFor(/ Review /, 30_000);

    await t.keys('p');
    const popup = await t.waitFor('Publish: remote branch name');
    const branch = git(repo, 'for-each-ref', '--format=%(refname:short)', 'refs/heads/grove/');
    expect(popup).toContain(branch);
    await t.keys('Enter');

    await t.waitFor('PR #1 open draft https://github.com/acme/widgets/pull/1', 30_000);
    await t.waitFor('[Review Request] Created draft pull request #1', 15_000);
    expect(
      execFileSync('git', ['rev-parse', `refs/heads/${branch}`], {
        cwd: bare,
        encoding: 'utf8',
      }).trim(),
    ).toBe(git(repo, 'rev-parse', branch));
    expect(github.pull(1)).toMatchObject({
      draft: true,
      head: branch,
      base: 'main',
      title: 'Add the greeting files',
    });

    github.merge(1);
    await t.waitFor('Pull request #1 was merged on GitHub', 30_000);
    const screen = await t.waitFor(/ Merged /, 15_000);
    expect(screen).toContain('PR #1 merged');
    expect(screen).not.toContain(TOKEN);

    // The list shows the merged pull request as a badge.
    await t.keys('q');
    await t.waitFor('✓ #1');
  });

  it('queues a publish pressed while the turn runs, and opens the pull request after it', async () => {
    // The turn goes on only once the publish is queued behind it.
    const turn = gate();
    model.script('anthropic', [
      {
        when: 'Create hello.txt',
        until: turn.opened,
        then: { toolCall: { kind: 'write_file', path: 'hello.txt', content: 'hello\n' } },
      },
      { when: 'Create hello.txt', text: reply('I created hello.txt.') },
    ]);
    const t = await gh.start();
    await newSession(t, 'Create hello.txt with a greeting');
    await t.waitFor(/InProgress/, 15_000);

    await t.keys('p');
    await t.waitFor('Publish: remote branch name');
    await t.keys('Enter');
    await t.waitFor('Publish queued behind the running turn.');
    expect(github.pulls).toHaveLength(0);
    turn.open();

    await t.waitFor('I created hello.txt.', 30_000);
    await t.waitFor('PR #1 open draft https://github.com/acme/widgets/pull/1', 30_000);
    expect(github.pull(1).body).toContain('session: I created hello.txt.');
    // Let the focused review that follows the turn finish before the terminal goes.
    await t.waitFor('Small and safe.', 30_000);
  });
});
