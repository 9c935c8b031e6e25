import { execFileSync } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FakeGitHub } from '../helpers/fake-github/server.js';
import { reply } from '../helpers/fake-model/reply.js';
import {
  REVIEW_STEP,
  TITLE_STEP,
  openGitHubTui,
  type GitHubTui,
} from '../helpers/fake-github/tui.js';
import type { FakeModelServer } from '../helpers/fake-model/server.js';
import { GROVE_BIN, type GroveWorld } from '../helpers/grove-env.js';
import { withStore } from '../helpers/seed.js';
import { waitUntil } from '../helpers/wait.js';

// The whole GitHub loop in the TUI, with the real Claude Code CLI through the
// fake model and the fake GitHub: an issue becomes a session (Alt+I), the
// session is published with `Closes #1` (its pull request is #2), CI fails with a job log, the CI
// fixer (the project's setting on, one attempt per failure streak) runs a
// turn that is sent the log's tail, pushes, the next run passes and the
// list's badge says so; a failure after that, fixed and failing again, is past
// the cap: the fixer stops and the inbox says why.

const TOKEN = 'grove-e2e-secret-loop-7d2e';
const FIX = "Grove's CI fixer asks you";

let gh: GitHubTui;
let world: GroveWorld;
let model: FakeModelServer;
let github: FakeGitHub;
let repo: string;
let env: Record<string, string>;

beforeEach(async () => {
  gh = await openGitHubTui(TOKEN, { poll: true, script: [TITLE_STEP, REVIEW_STEP] });
  ({ world, model, github, repo, env } = gh);
});

afterEach(() => gh.close());

/** The fixer's turn: it writes hello.txt (`content`) and says so; its commit message. */
function scriptFix(content: string): void {
  model.script('anthropic', [
    { when: 'Write the git commit message for the changes', text: reply('Fix the greeting') },
    { when: FIX, toolCall: { kind: 'write_file', path: 'hello.txt', content } },
    { when: FIX, text: reply('Fixed the greeting.') },
  ]);
}

function fail(sha: string, detail: string): void {
  const log = [
    '2026-12-01T10:00:00.0000000Z Run npm test',
    `2026-12-01T10:00:01.0000000Z \u001b[31mFAIL\u001b[0m test/hello.test.ts ${detail}`,
    '2026-12-01T10:00:02.0000000Z ##[error]Process completed with exit code 1.',
  ].join('\n');
  github.setCheckRuns(sha, [
    { name: 'test', status: 'completed', conclusion: 'failure', log },
    { name: 'lint', status: 'completed', conclusion: 'success', log: 'ok\n' },
  ]);
}

const fixerRequests = (): string[] =>
  model
    .modelRequests('anthropic')
    .map((r) => JSON.stringify(r.body))
    .filter((body) => body.includes(FIX));

/** The pull request's head once it is no longer `sha` (the fixer pushed). */
const pushedOver = (sha: string) =>
  waitUntil(
    'the fixer to push',
    () => github.pull(2).headSha !== sha && github.pull(2).headSha,
    90_000,
  );

describe('from an issue to a green pull request', () => {
  it('starts from the issue, publishes with Closes #1, fixes a failing run, and stops past the cap', async () => {
    github.addIssue({ title: 'Add a greeting file', body: 'We need hello.txt.', labels: [] });
    model.script('anthropic', [
      { when: 'Write the git commit message for the changes', text: reply('Add hello.txt') },
      {
        when: 'We need hello.txt',
        toolCall: { kind: 'write_file', path: 'hello.txt', content: 'Hello\n' },
      },
      { when: 'We need hello.txt', text: reply('I created hello.txt from the issue.') },
    ]);
    const t = await gh.start();
    await withStore(world.groveHome, async (store) => {
      const [project] = await store.projects.list();
      if (!project) throw new Error('no project');
      await store.settings.setProject(project.id, 'github.ciFixer', 'on');
      await store.settings.setProject(project.id, 'github.ciFixerAttempts', '1');
    });

    // The issue becomes the session.
    await t.keys('a');
    await t.waitFor('Task for the agent');
    await t.keys('M-i');
    await t.waitFor('#1 Add a greeting file');
    await t.keys('Enter');
    await t.waitFor('I created hello.txt from the issue.', 60_000);
    await t.waitFor('Small and safe.', 60_000);
    await t.waitFor(/ Review /, 30_000);

    // Published with Closes #1.
    await t.keys('p');
    await t.waitFor('Publish: remote branch name');
    await t.keys('Enter');
    // Issues and pull requests share GitHub's numbers: the issue is #1, the pull request #2.
    await t.waitFor('PR #2 open draft', 30_000);
    expect(github.pull(2).body ?? '').toContain('Closes #1');

    // CI fails; the fixer's turn is sent the log's tail, and pushes.
    scriptFix('hello\n');
    const first = github.pull(2).headSha;
    fail(first, 'expected "Hello" to be "hello"');
    const second = await pushedOver(first);
    const sent = fixerRequests();
    expect(sent.some((body) => body.includes('expected \\"Hello\\" to be \\"hello\\"'))).toBe(true);
    // The escapes of the log are not passed on.
    expect(sent.some((body) => body.includes('\\u001b[31m'))).toBe(false);
    await t.waitFor('Fixed the greeting.', 30_000);

    // The next run passes: the badge says so.
    github.setCheckRuns(second, [
      { name: 'test', status: 'completed', conclusion: 'success' },
      { name: 'lint', status: 'completed', conclusion: 'success' },
    ]);
    await t.keys('q');
    await t.waitFor('[checks passed]', 30_000);

    // A new failure: one attempt (the cap), then the same failing again stops the fixer.
    scriptFix('hello!\n');
    fail(second, 'expected "hello!" to be "hello"');
    const third = await pushedOver(second);
    fail(third, 'expected "hello!" to be "hello"');
    await t.waitFor('[checks failing]', 30_000);
    const inbox = await waitUntil(
      'the inbox to say the fixer stopped',
      () => {
        const items = JSON.parse(
          execFileSync(process.execPath, [GROVE_BIN, 'inbox', '--json'], {
            cwd: repo,
            env,
            encoding: 'utf8',
          }),
        ) as { kind: string; text: string }[];
        return items.find((item) => item.kind === 'ciFixer');
      },
      60_000,
    );
    expect(inbox.text).toMatch(/stopped/i);
    await t.waitFor('1 in the inbox', 30_000);
    // It stopped: no third turn.
    expect(github.pull(2).headSha).toBe(third);
    expect(github.pull(2).state).toBe('open');
    expect(github.pull(2).mergedAt).toBeNull();
  });
});
