import { beforeEach, describe, expect, it } from 'vitest';
import { agentEnv } from '../helpers/agent-env.js';
import { gate } from '../helpers/fake-model/server.js';
import {
  GROVE_BIN,
  agentWorldEnv,
  git,
  makeRepo,
  runGrove,
  type GroveRun,
  startGrove,
} from '../helpers/grove-env.js';
import { TmuxTerminal } from '../helpers/tmux.js';
import { waitUntil } from '../helpers/wait.js';
import { setUpE2eWorld } from '../helpers/e2e-world.js';
import { reply } from '../helpers/fake-model/reply.js';

// One store, two clients: a TUI in tmux and `grove run` on the same
// GROVE_HOME at once. The TUI shows the session the command made, and its
// progress, without a key press.

const e2e = setUpE2eWorld();
let repo: string;
let env: Record<string, string>;

beforeEach(() => {
  repo = makeRepo(e2e.world);
  env = agentWorldEnv(e2e.world, agentEnv(e2e.server, e2e.world.home));
  e2e.server.script('anthropic', [
    { when: 'Write a title for a coding task', text: reply('Greeting from a script') },
    {
      when: 'Write the git commit message for the changes',
      text: reply('Add the scripted greeting\n\nCreates hello.txt.'),
    },
    {
      when: 'You are reviewing the work of a coding agent',
      text: reply('## Review\n### Project Impact\nSmall.\n### Suggestions\nNone.'),
    },
  ]);
});

/** A TUI, and a `grove run` whose agent has written hello.txt and now waits on a slow model. */
/** Model requests of the session's turn so far (not the title's). */
function sessionModelRequests(): number {
  return e2e.server.modelRequests('anthropic').filter((r) => {
    const body = JSON.stringify(r.body);
    return body.includes('Scripted greeting task') && !body.includes('Write a title');
  }).length;
}

async function slowTurnFromCommand(): Promise<{ t: TmuxTerminal; run: Promise<GroveRun> }> {
  e2e.server.script('anthropic', [
    {
      when: 'Scripted greeting task',
      toolCall: { kind: 'write_file', path: 'hello.txt', content: 'hello\n' },
    },
    { when: 'Scripted greeting task', delayMs: 60_000, then: { text: reply('too late') } },
  ]);
  const t = await startGrove(e2e.world, repo, { env, columns: 120, rows: 34 });
  e2e.term = t;
  await t.waitFor('No sessions yet.');
  const run = runGrove(env, repo, ['run', 'Scripted greeting task']);
  await t.waitFor(/InProgress/, 15_000);
  return { t, run };
}

describe('a headless command and the TUI on one store', () => {
  it('the TUI shows the session `grove run` creates, its progress and its result', async () => {
    // The agent writes its file once the session is open, and answers once its progress shows.
    const write = gate();
    const answer = gate();
    e2e.server.script('anthropic', [
      {
        when: 'Scripted greeting task',
        until: write.opened,
        then: {
          toolCall: { kind: 'write_file', path: 'hello.txt', content: 'hello from a script\n' },
        },
      },
      {
        when: 'Scripted greeting task',
        until: answer.opened,
        then: { text: reply('Wrote **hello.txt** from a script.') },
      },
    ]);
    const t = await startGrove(e2e.world, repo, { env, columns: 120, rows: 34 });
    e2e.term = t;
    await t.waitFor('No sessions yet.');

    const run = runGrove(env, repo, ['run', 'Scripted greeting task']);

    // The list picks it up while the command's turn is running.
    const listed = await t.waitFor(/Scripted greeting task|Greeting from a script/, 10_000);
    expect(listed).not.toContain('No sessions yet.');
    await t.waitFor(/InProgress/, 10_000);
    // Into the session: the prompt, and the answer once the command's turn ends.
    await t.keys('Enter');
    const open = await t.waitFor(/InProgress[\s\S]*› Scripted greeting task/, 10_000);
    expect(open).not.toContain('Wrote hello.txt from a script.');
    write.open();
    // The progress line of the command's turn (its agent is writing the file).
    await t.waitFor(/Editing \S*hello\.txt/, 10_000);
    answer.open();
    await t.waitFor('Wrote hello.txt from a script.', 30_000);
    await t.keys('Escape');
    await t.waitFor(/ Review /, 15_000);
    await t.waitFor('Greeting from a script', 15_000);

    const result = await run;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('Wrote **hello.txt** from a script.\n');
    const branch = git(repo, 'for-each-ref', '--format=%(refname:short)', 'refs/heads/grove/');
    expect(git(repo, 'show', `${branch}:hello.txt`)).toBe('hello from a script');
  });

  it('canceling in the TUI stops the turn a command is running, and its work stays on the branch', async () => {
    const { t, run } = await slowTurnFromCommand();
    // The agent has written its file and waits on the (slow) model.
    for (
      let i = 0;
      i < 300 &&
      e2e.server
        .modelRequests('anthropic')
        .filter(
          (r) =>
            JSON.stringify(r.body).includes('Scripted greeting task') &&
            !JSON.stringify(r.body).includes('Write a title'),
        ).length < 2;
      i++
    ) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }

    await t.keys('c');
    await t.waitFor(/Cancel ".*"\?/);
    await t.keys('y');
    await t.waitFor(/ Canceled /, 30_000);

    const result = await run;
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toMatch(/^grove: the turn was stopped by another Grove process/);
    const branch = git(repo, 'for-each-ref', '--format=%(refname:short)', 'refs/heads/grove/');
    expect(git(repo, 'show', `${branch}:hello.txt`)).toBe('hello');
    // The command's turn stopped (and saved its work) before the TUI removed the worktree.
    const shown = await runGrove(env, repo, ['show', branch.slice('grove/'.length), '--json']);
    const notes = (
      JSON.parse(shown.stdout) as { transcript: { content: string }[] }
    ).transcript.map((e) => e.content.split(' ')[0]);
    expect(notes).toContain('[Stopped]');
    expect(notes.indexOf('[Stopped]')).toBeLessThan(notes.indexOf('[Cancel]'));
  });

  it('Ctrl+C in the TUI stops the turn a command is running; the session goes to Review', async () => {
    const { t, run } = await slowTurnFromCommand();
    await t.keys('Enter');
    await t.waitFor(/InProgress[\s\S]*› Scripted greeting task/, 10_000);
    // The agent has written hello.txt once it asks its model for the next step.
    await waitUntil(
      'the agent to have written hello.txt',
      () => sessionModelRequests() >= 2,
      20_000,
    );

    await t.keys('C-c');

    const result = await run;
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toMatch(/^grove: the turn was stopped by another Grove process/);
    await t.waitFor('[Stopped] You stopped the turn.', 15_000);
    await t.waitFor(/ Review /, 15_000);
    const branch = git(repo, 'for-each-ref', '--format=%(refname:short)', 'refs/heads/grove/');
    expect(git(repo, 'show', `${branch}:hello.txt`)).toBe('hello');
  });

  it('the TUI shows a session canceled by `grove cancel`', async () => {
    e2e.server.script('anthropic', [
      {
        when: 'Scripted greeting task',
        toolCall: { kind: 'write_file', path: 'hello.txt', content: 'hello\n' },
      },
      { when: 'Scripted greeting task', text: reply('Done it.') },
    ]);
    const first = await runGrove(env, repo, ['run', '--output', 'json', 'Scripted greeting task']);
    expect(first.code, first.stderr).toBe(0);
    const { sessionId } = JSON.parse(first.stdout) as { sessionId: string };
    const t = await startGrove(e2e.world, repo, { env, columns: 120, rows: 34 });
    e2e.term = t;
    await t.waitFor(/Review .*Greeting from a script|Greeting from a script.*Review/, 10_000);

    const canceled = await runGrove(env, repo, ['cancel', sessionId.slice(0, 8), '--yes']);
    expect(canceled.code, canceled.stderr).toBe(0);

    await t.waitFor('Canceled', 10_000);
  });
});

describe('grove run in a terminal', () => {
  const inTerminal = (args: readonly string[]): Promise<TmuxTerminal> =>
    TmuxTerminal.start({
      command: [process.execPath, GROVE_BIN, ...args],
      cwd: repo,
      env,
      columns: 140,
      rows: 30,
    });

  it('shows progress on standard error when it is a terminal', async () => {
    e2e.server.script('anthropic', [
      {
        when: 'Scripted greeting task',
        toolCall: { kind: 'write_file', path: 'hello.txt', content: 'hello\n' },
      },
      { when: 'Scripted greeting task', text: reply('All written.') },
    ]);
    const t = await inTerminal(['run', 'Scripted greeting task']);
    e2e.term = t;

    expect(await t.waitForExit(60_000)).toBe(0);
    const screen = await t.screen();
    expect(screen).toMatch(/^Session [0-9a-f]{8} on grove\/[0-9a-f]{8} /m);
    expect(screen).toContain('[Commit] Add the scripted greeting');
    expect(screen).toContain('All written.');
  });

  it('will not read the prompt from a terminal: usage error, exit 2', async () => {
    const t = await inTerminal(['run']);
    e2e.term = t;

    expect(await t.waitForExit(20_000)).toBe(2);
    expect(await t.screen()).toContain(
      'grove: give the prompt as an argument, or pipe it on standard input',
    );
    const dash = await inTerminal(['run', '-']);
    await t.kill();
    e2e.term = dash;
    expect(await dash.waitForExit(20_000)).toBe(2);
    expect(await dash.screen()).toContain(
      "grove: '-' reads the prompt from standard input, but it is a terminal",
    );
  });
});
