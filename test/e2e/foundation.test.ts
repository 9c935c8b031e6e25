import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  GROVE_BIN,
  makeRepo,
  makeWorld,
  startGrove,
  type GroveWorld,
} from '../helpers/grove-env.js';
import type { TmuxTerminal } from '../helpers/tmux.js';
import { seedSessions } from '../helpers/seed.js';

let world: GroveWorld;
let term: TmuxTerminal | null = null;

beforeEach(() => {
  world = makeWorld();
});

afterEach(async () => {
  await term?.kill();
  term = null;
  world.cleanup();
});

describe('starting Grove in a repository', () => {
  it('opens full screen on the Sessions tab with the empty state', async () => {
    const repo = makeRepo(world);
    term = await startGrove(world, repo);
    const screen = await term.waitFor('No sessions yet.');
    expect(screen).toMatch(/Grove \d+\.\d+\.\d+/);
    expect(screen).toContain('Sessions');
    expect(screen).toContain('Press a to start an agent session');
    expect(await term.format('alternate_on')).toBe('1');
  });

  it('shows the directory and branch in the footer', async () => {
    const repo = makeRepo(world);
    term = await startGrove(world, repo);
    await term.waitFor(/project\s+main/);
  });

  it('never draws more lines than the terminal has', async () => {
    const repo = makeRepo(world);
    term = await startGrove(world, repo, { columns: 80, rows: 12 });
    const screen = await term.waitFor('No sessions yet.');
    expect(screen.trimEnd().split('\n').length).toBeLessThanOrEqual(12);
    expect(screen.split('\n')[0]).toContain('Grove');
  });
});

describe('tabs and help', () => {
  it('goes round the tabs with Tab, leaves them alone on Shift+Tab, and remembers the last one', async () => {
    const repo = makeRepo(world);
    term = await startGrove(world, repo);
    await term.waitFor('No sessions yet.');
    await term.keys('Tab');
    await term.waitFor('Main model: agent');
    await term.keys('Tab');
    await term.waitFor('Agent CLIs');
    // Shift+Tab is the permission-mode key of a session: on the tabs it does nothing.
    await term.keys('BTab', 'Tab');
    await term.waitFor('No sessions yet.');
    await term.keys('Tab');
    await term.waitFor('Main model: agent');
    await term.keys('q');
    await term.waitFor('Quit Grove?');
    await term.keys('y');
    expect(await term.waitForExit()).toBe(0);
    await term.kill();
    term = await startGrove(world, repo);
    await term.waitFor('Main model: agent');
  });

  it('shows the keys of the current mode with ? and closes with Esc', async () => {
    const repo = makeRepo(world);
    term = await startGrove(world, repo);
    await term.waitFor('No sessions yet.');
    await term.keys('?');
    const help = await term.waitFor('Start a new agent session');
    expect(help).toContain('Keys');
    // The list's keys fill more than a page of the overlay: the last ones a page down.
    await term.keys('C-d');
    await term.waitFor('Quit Grove');
    await term.keys('Escape');
    await term.waitForGone('Start a new agent session');
  });
});

describe('quitting', () => {
  it('asks first, defaults to No, and restores the terminal on Yes', async () => {
    const repo = makeRepo(world);
    term = await startGrove(world, repo);
    await term.waitFor('No sessions yet.');
    await term.keys('q');
    await term.waitFor('Quit Grove?');
    await term.keys('Enter');
    await term.waitForGone('Quit Grove?');
    await term.keys('q');
    await term.waitFor('Quit Grove?');
    await term.keys('y');
    expect(await term.waitForExit()).toBe(0);
    expect(await term.format('alternate_on')).toBe('0');
    expect(await term.format('cursor_flag')).toBe('1');
  });

  it('restores the terminal and logs the error when it crashes', async () => {
    const repo = makeRepo(world);
    term = await startGrove(world, repo, { env: { GROVE_CRASH_TEST: '1' } });
    expect(await term.waitForExit()).toBe(1);
    expect(await term.format('alternate_on')).toBe('0');
    const screen = await term.screen();
    expect(screen).toContain('grove crashed: crash requested by GROVE_CRASH_TEST');
    const log = readFileSync(join(world.groveHome, 'logs', 'grove.log'), 'utf8');
    expect(log).toContain('uncaught error');
  });

  it('restores the terminal when killed with SIGTERM', async () => {
    const repo = makeRepo(world);
    term = await startGrove(world, repo);
    await term.waitFor('No sessions yet.');
    process.kill(await term.pid(), 'SIGTERM');
    expect(await term.waitForExit()).toBe(143);
    expect(await term.format('alternate_on')).toBe('0');
  });

  it('follows a resize without drawing past the new size', async () => {
    const repo = makeRepo(world);
    term = await startGrove(world, repo, { columns: 100, rows: 30 });
    await term.waitFor('No sessions yet.');
    await term.resize(60, 15);
    // Laid out again for 15 rows: the footer moves to the new last line, and
    // the empty-state text wraps within 60 columns.
    let screen = '';
    for (let i = 0; i < 100; i++) {
      screen = await term.screen();
      if (/project\s+main/.test(screen.split('\n')[14] ?? '')) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const lines = screen.split('\n');
    expect(lines[14]).toMatch(/project\s+main/);
    expect(lines[13]).toContain('q quit');
    expect(lines.every((line) => line.length <= 60)).toBe(true);
  });
});

function run(args: string[], cwd: string, env: Record<string, string>) {
  return spawnSync(process.execPath, [GROVE_BIN, ...args], {
    cwd,
    env,
    encoding: 'utf8',
    timeout: 10_000,
  });
}

describe('command-line errors', () => {
  it('prints help and exits 0 without creating any data', () => {
    const result = run(['--help'], world.dir, world.env());
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('Usage: grove');
    expect(existsSync(world.groveHome)).toBe(false);
  });

  it('prints the version and exits 0', () => {
    const result = run(['--version'], world.dir, world.env());
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^grove \d+\.\d+\.\d+/);
  });

  it.each([
    [['--frobnicate'], /Unknown option '--frobnicate'/],
    [['-C'], /-C/],
    [
      ['frob'],
      /unknown command 'frob' \(commands: run, reply, ls, inbox, watch, mcp, answer, approve, deny, show, link, ci-fixer, diff, merge, rebase, cancel, publish, threads, gc, doctor, host\)/,
    ],
    [['-C', '.', 'extra'], /unexpected argument 'extra'/],
  ])('rejects %j with a usage error and exit code 2', (args, message) => {
    const result = run(args, world.dir, world.env());
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).toContain('Usage: grove');
  });

  it('rejects a -C directory that does not exist with exit code 2', () => {
    const result = run(['-C', join(world.dir, 'nope')], world.dir, world.env());
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('no such directory');
  });

  it('refuses to run without a terminal', () => {
    const repo = makeRepo(world);
    const result = run([], repo, world.env());
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('needs an interactive terminal');
  });

  it('says so when started outside a git repository and nothing is registered', async () => {
    term = await startGrove(world, world.home);
    expect(await term.waitForExit()).toBe(1);
    expect(await term.screen()).toContain('is not inside a git repository');
  });

  it('opens the Projects tab outside a repository once projects are registered', async () => {
    const repo = makeRepo(world);
    term = await startGrove(world, repo);
    await term.waitFor('No sessions yet.');
    await term.keys('q', 'y');
    await term.waitForExit();
    await term.kill();
    term = await startGrove(world, world.home);
    const screen = await term.waitFor('Agent CLIs');
    expect(screen).toContain(repo);
  });
});

describe('the session list', () => {
  it('groups seeded sessions and moves the selection with j and k', async () => {
    const repo = makeRepo(world);
    await seedSessions(world.groveHome, repo, [
      { title: 'Old finished work', status: 'Done' },
      { title: 'Being merged', status: 'Merging' },
      { title: 'Waiting to merge', status: 'Queued' },
      { title: 'Needs review', status: 'Review', addedLines: 40, deletedLines: 5 },
      { title: 'Asked a question', status: 'Question' },
    ]);
    term = await startGrove(world, repo);
    const screen = await term.waitFor('MERGE QUEUE (2)');
    expect(screen).toContain('ACTIVE (2)');
    expect(screen).toContain('ARCHIVE (1)');
    expect(screen.indexOf('MERGE QUEUE')).toBeLessThan(screen.indexOf('ACTIVE'));
    expect(screen.indexOf('ACTIVE')).toBeLessThan(screen.indexOf('ARCHIVE'));
    expect(screen).toMatch(/▶ \[XS\]\s+Being merged/);
    expect(screen).toMatch(/Waiting to merge .*Queued/);
    await term.keys('j');
    await term.waitFor(/▶ \[XS\]\s+Waiting to merge/);
    await term.keys('j');
    await term.waitFor(/▶ \[XS\]\s+Asked a question/);
    await term.keys('j');
    await term.waitFor(/▶ \[M\]\s+Needs review/);
    await term.keys('k');
    await term.waitFor(/▶ \[XS\]\s+Asked a question/);
    await term.keys('G');
    await term.waitFor(/▶ \[XS\]\s+Old finished work/);
  });

  it('opens a session with Enter and goes back with q', async () => {
    const repo = makeRepo(world);
    await seedSessions(world.groveHome, repo, [
      {
        title: 'Needs review',
        status: 'Review',
        transcript: [
          ['user_prompt', 'Please fix the bug'],
          ['assistant_answer', 'I fixed the **bug** in `main.ts`.'],
        ],
      },
    ]);
    term = await startGrove(world, repo);
    await term.waitFor('Needs review');
    await term.keys('Enter');
    const view = await term.waitFor('Please fix the bug');
    expect(view).toContain('I fixed the');
    expect(view).toContain('Review');
    await term.keys('q');
    await term.waitFor('ACTIVE (1)');
  });
});
