import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openGitHubTui, type GitHubTui } from '../helpers/fake-github/tui.js';
import type { FakeModelServer } from '../helpers/fake-model/server.js';
import type { FakeGitHub } from '../helpers/fake-github/server.js';
import { reply } from '../helpers/fake-model/reply.js';

// A person opens a new session's composer, types a line of their own, opens
// the issue picker (Alt+I), sees the open issues (theirs first), filters by
// label, and starts the session from the chosen issue: the agent gets their
// line first and the issue quoted after it; the header shows the issue.

const TOKEN = 'grove-e2e-secret-issue-5c1d';
const ESC = '\u001b';

let gh: GitHubTui;
let model: FakeModelServer;
let github: FakeGitHub;

beforeEach(async () => {
  gh = await openGitHubTui(TOKEN);
  ({ model, github } = gh);
});

afterEach(() => gh.close());

describe('the issue picker', () => {
  it('lists the open issues, filters them, and starts the session from the chosen one', async () => {
    github.addIssue({ title: 'Old typo in the README', labels: ['docs'] });
    github.addIssue({
      title: `Add a greeting ${ESC}[31mfile`,
      body: `We need hello.txt.${ESC}[2J`,
      labels: ['feature'],
    });
    github.addIssue({ title: 'Crash on start', assignees: ['grove-tester'], labels: ['bug'] });
    model.script('anthropic', [
      { when: 'Write a title for a coding task', text: reply('Add a greeting') },
      { when: 'Write the git commit message for the changes', text: reply('Add hello.txt') },
      {
        when: 'Keep it short',
        toolCall: { kind: 'write_file', path: 'hello.txt', content: 'hello\n' },
      },
      { when: 'Keep it short', text: reply('I created hello.txt from the issue.') },
    ]);
    const t = await gh.start();

    await t.keys('a');
    await t.waitFor('Task for the agent');
    await t.type('Keep it short');
    await t.keys('M-i');
    const listed = await t.waitFor('#3 Crash on start');
    // Yours first, then the newest; a hostile title shows its escapes as text.
    expect(listed.indexOf('#3 Crash on start')).toBeLessThan(listed.indexOf('#2 Add a greeting'));
    expect(listed.indexOf('#2 Add a greeting')).toBeLessThan(listed.indexOf('#1 Old typo'));
    expect(listed).toContain('(assigned to you)');
    expect(listed).toContain('#2 Add a greeting ␛[31mfile');

    await t.type('label:feat');
    await t.waitForGone('#3 Crash on start');
    expect(await t.waitFor('#2 Add a greeting')).not.toContain('#1 Old typo');
    await t.keys('Enter');

    await t.waitFor('I created hello.txt from the issue.', 30_000);
    const screen = await t.waitFor('Issue #2 Add a greeting ␛[31mfile');
    expect(screen).toContain('https://github.com/acme/widgets/issues/2');
    const sent = model
      .modelRequests('anthropic')
      .map((r) => JSON.stringify(r.body))
      .find((b) => b.includes('<<<ISSUE'));
    expect(sent).toBeDefined();
    expect(sent?.indexOf('Keep it short')).toBeLessThan(sent?.indexOf('<<<ISSUE') ?? 0);
    expect(sent).toContain('We need hello.txt.␛[2J');
  });

  it('says why when the issues cannot be read, and the composer keeps its text', async () => {
    github.fail({ kind: 'bad_credentials', path: /\/issues$/ });
    const t = await gh.start();
    await t.keys('a');
    await t.waitFor('Task for the agent');
    await t.type('My own words');
    await t.keys('M-i');
    await t.waitFor('GitHub rejected the token (401)');
    await t.keys('Escape');
    const screen = await t.waitForGone('GitHub rejected the token (401)');
    expect(screen).toContain('My own words');
    expect(model.modelRequests('anthropic')).toHaveLength(0);
  });
});
