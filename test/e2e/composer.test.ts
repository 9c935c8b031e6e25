import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { agentEnv } from '../helpers/agent-env.js';
import { agentWorldEnv, git, makeRepo, startGrove } from '../helpers/grove-env.js';
import type { TmuxTerminal } from '../helpers/tmux.js';
import { setUpE2eWorld } from '../helpers/e2e-world.js';
import { reply } from '../helpers/fake-model/reply.js';

/** The session header's mode after agent/model [effort], the agent's resource figures while its processes run, and the disk use once walked. */
const HEADER_PLAN =
  /claude\/\S+ \[\w+\] {2}(?:CPU .*? process(?:es)? {2})?(?:disk \S+ \S+ {2})?Plan/;

// The prompt composer in a real terminal: `@` file completion, a slash
// command, the prompt history (kept across restarts) and `y` over OSC 52.

const e2e = setUpE2eWorld();
let repo: string;

beforeEach(() => {
  repo = makeRepo(e2e.world);
  mkdirSync(join(repo, 'src', 'app'), { recursive: true });
  writeFileSync(join(repo, 'src', 'app', 'controller.ts'), 'export const controller = 1;\n');
  writeFileSync(join(repo, 'src', 'app', 'reducer.ts'), 'export const reducer = 2;\n');
  git(repo, 'add', '-A');
  git(
    repo,
    '-c',
    'user.name=T',
    '-c',
    'user.email=t@t.invalid',
    'commit',
    '-q',
    '-m',
    'Add the app',
  );
  e2e.server.script('anthropic', [
    { when: 'Write a title for a coding task', text: reply('Explain the controller') },
    { when: 'Write the git commit message for the changes', text: reply('No changes') },
    {
      when: 'You are reviewing the work of a coding agent',
      text: reply('## Review\nNothing to review.'),
    },
  ]);
});

async function start(): Promise<TmuxTerminal> {
  e2e.term = await startGrove(e2e.world, repo, {
    env: agentWorldEnv(e2e.world, agentEnv(e2e.server, e2e.world.home)),
    columns: 120,
    rows: 34,
  });
  return e2e.term;
}

/** Sends a first prompt picked with `@` completion and waits for the answer. */
async function explainController(t: TmuxTerminal): Promise<void> {
  e2e.server.script('anthropic', [
    { when: 'controller.ts', text: reply('It holds the controller.') },
  ]);
  await t.waitFor('No sessions yet.');
  await t.keys('a');
  await t.waitFor('Task for the agent');
  await t.type('Explain @contr');
  await t.waitFor('▶ @src/app/controller.ts');
  await t.keys('Tab');
  await t.waitFor('Explain @src/app/controller.ts');
  await t.type('briefly');
  await t.keys('Enter');
  await t.waitFor('It holds the controller.', 20_000);
  await t.waitFor(/ Review /, 15_000);
}

describe('the prompt composer', () => {
  it('completes an @ file mention from the worktree and passes the path to the agent', async () => {
    const t = await start();

    await explainController(t);

    const bodies = e2e.server.modelRequests('anthropic').map((r) => JSON.stringify(r.body));
    expect(bodies.some((body) => body.includes('Explain @src/app/controller.ts briefly'))).toBe(
      true,
    );
  });

  it('lists the slash commands, runs /mode plan, and says so for an unknown command', async () => {
    const t = await start();
    await explainController(t);

    await t.keys('Enter');
    await t.waitFor('Reply');
    await t.type('/');
    await t.waitFor("/model      Change this session's model");
    await t.type('frob');
    await t.keys('Enter');
    await t.waitFor('Unknown command /frob');
    await t.keys('C-u');
    await t.type('/mode pl');
    await t.waitFor('▶ plan');
    await t.keys('Enter');

    await t.waitFor('[Mode] Plan');
    expect(await t.screen()).toMatch(HEADER_PLAN);
  });

  it("keeps a new session's composer open after /mode, so the task typed next is text, not keys", async () => {
    const t = await start();
    await t.waitFor('No sessions yet.');
    await t.keys('a');
    await t.waitFor('Task for the agent');
    await t.type('/mode pl');
    await t.waitFor('▶ plan');
    await t.keys('Enter');
    await t.waitFor(HEADER_PLAN);

    // d would open the diff view and o a shell, were the composer closed.
    await t.type('do the task');

    const screen = await t.waitFor(/│ do the task/);
    expect(screen).toContain('Task for the agent');
  });

  it('brings back the last prompt with Up, also after a restart, and finds it with Ctrl+R', async () => {
    const first = await start();
    await explainController(first);
    // The title is written beside the turn and may land after it: wait for it before quitting.
    await first.waitFor('Explain the controller', 30_000);
    await first.keys('q');
    await first.waitFor('a new');
    await first.keys('q');
    await first.waitFor('Quit Grove?');
    await first.keys('y');
    await first.waitForExit();

    const t = await start();
    await t.waitFor('Explain the controller');
    await t.keys('Enter');
    await t.waitFor('Explain @src/app/controller.ts briefly');
    await t.keys('Enter');
    await t.waitFor('Reply');
    await t.keys('Up');
    await t.waitFor(/│ Explain @src\/app\/controller\.ts briefly/);
    await t.keys('C-u', 'C-r');
    await t.type('contr');

    await t.waitFor("(reverse-i-search) 'contr': Explain @src/app/controller.ts briefly");
  });

  it('copies the worktree path over OSC 52 when no clipboard tool is reachable', async () => {
    const t = await start();
    await t.tmux(['set-option', '-s', 'set-clipboard', 'on']);
    await explainController(t);

    await t.keys('y');

    await t.waitFor('Copied the worktree path via OSC 52');
    const buffers = await t.tmux(['list-buffers', '-F', '#{buffer_sample}']);
    expect(buffers).toContain(e2e.world.groveHome);
  });
});

describe('small things', () => {
  it('keeps unsent text as the draft after asking, and brings it back', async () => {
    const t = await start();
    await explainController(t);

    await t.keys('Enter');
    await t.waitFor('Reply');
    await t.type('half a thought');
    await t.keys('Escape');
    const asked = (await t.waitFor('Close the composer?')).split('\n');
    // The question sits at the bottom, above the composer being typed in, and the footer has its keys.
    const question = asked.findIndex((line) => line.includes('Close the composer?'));
    const typed = asked.findIndex((line) => line.includes('│ half a thought'));
    expect(question).toBeGreaterThan(asked.length / 2);
    expect(typed).toBeGreaterThan(question);
    expect(asked.some((line) => line.includes('y yes · n no'))).toBe(true);
    await t.keys('y');
    await t.waitForGone('Reply');
    await t.keys('Enter');

    await t.waitFor(/│ half a thought/);
  });

  it('explains that an empty repository needs a first commit when a is pressed', async () => {
    const empty = join(e2e.world.dir, 'empty');
    mkdirSync(empty);
    git(empty, 'init', '-q', '-b', 'main');
    e2e.term = await startGrove(e2e.world, empty, { columns: 120, rows: 30 });
    await e2e.term.waitFor('No sessions yet.');

    await e2e.term.keys('a');

    await e2e.term.waitFor('has no commits yet, and a session starts from one');
    expect(await e2e.term.screen()).not.toContain('Task for the agent');
  });

  it('explains why there is no project outside a git repository', async () => {
    const plain = join(e2e.world.dir, 'plain');
    mkdirSync(plain);
    // A project used before, so Grove starts instead of refusing.
    const first = await startGrove(e2e.world, repo, { columns: 120, rows: 30 });
    await first.waitFor('No sessions yet.');
    await first.kill();
    e2e.term = await startGrove(e2e.world, plain, { columns: 120, rows: 30 });

    await e2e.term.waitFor('is not inside a git repository, so no project is active');
    await e2e.term.keys('Tab');
    await e2e.term.waitFor('Grove was not started inside a git repository');
  });
});
