import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  COMMIT_STEP,
  REVIEW_STEP,
  TITLE_STEP,
  openGitHubTui,
  type GitHubTui,
} from '../helpers/fake-github/tui.js';
import type { FakeModelServer } from '../helpers/fake-model/server.js';
import { newSession } from '../helpers/grove-env.js';
import type { FakeGitHub } from '../helpers/fake-github/server.js';
import { reply } from '../helpers/fake-model/reply.js';

// A person publishes a session from the TUI (`p`), CI fails on (fake)
// GitHub with a log full of terminal escapes: the session view lists the
// failing check with the tail of its job log, drawn without the escapes, the
// list shows [checks failing], and once the run passes, [checks passed].

const TOKEN = 'grove-e2e-secret-c4e81f0a27';

let gh: GitHubTui;
let model: FakeModelServer;
let github: FakeGitHub;

beforeEach(async () => {
  gh = await openGitHubTui(TOKEN, { poll: true, script: [TITLE_STEP, COMMIT_STEP, REVIEW_STEP] });
  ({ model, github } = gh);
});

afterEach(() => gh.close());

describe('pull request checks in the TUI', () => {
  it('shows a failing check with its job log tail, and the badge on the list', async () => {
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
    await t.waitFor('Small and safe.', 30_000);
    await t.waitFor(/ Review /, 30_000);
    await t.keys('p');
    await t.waitFor('Publish: remote branch name');
    await t.keys('Enter');
    await t.waitFor('PR #1 open draft https://github.com/acme/widgets/pull/1', 30_000);

    const log = [
      '2026-12-01T10:00:00.0000000Z \u001b]0;pwned title\u0007\u001b[2J\u001b[Hrunning tests',
      '2026-12-01T10:00:01.0000000Z \u001b[1;31mFAIL\u001b[0m test/math.test.ts > adds',
      '2026-12-01T10:00:02.0000000Z ##[error]Error: expected 2 to be 3',
    ].join('\r\n');
    github.setCheckRuns(github.pull(1).headSha, [
      { name: 'unit tests', status: 'completed', conclusion: 'failure', log },
      { name: 'lint', status: 'completed', conclusion: 'success' },
    ]);

    const view = await t.waitFor('##[error]Error: expected 2 to be 3', 30_000);
    expect(view).toContain('── Checks on PR #1');
    expect(view).toContain('1 passed, 1 failed');
    expect(view).toContain('✗ unit tests (failure)');
    expect(view).toContain('│ running tests');
    expect(view).toContain('│ FAIL test/math.test.ts > adds');
    expect(view).not.toContain('2026-12-01T10:00');
    // The title and clear-screen escapes were taken out, not drawn or obeyed.
    expect(view).not.toContain('pwned');
    expect(view).toContain('PR #1 open draft');
    expect(view).not.toContain(TOKEN);

    await t.keys('q');
    await t.waitFor('[checks failing]', 15_000);

    github.setCheckRuns(github.pull(1).headSha, [
      { name: 'unit tests', status: 'completed', conclusion: 'success' },
      { name: 'lint', status: 'completed', conclusion: 'success' },
    ]);
    const list = await t.waitFor('[checks passed]', 30_000);
    expect(list).not.toContain('[checks failing]');
  });
});
