import { spawn } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { agentEnv } from '../helpers/agent-env.js';
import { startFakeModelServer, type FakeModelServer } from '../helpers/fake-model/server.js';
import { GROVE_BIN, agentWorldEnv, git, makeRepo, makeWorld, startGrove, type GroveWorld } from '../helpers/grove-env.js';
import type { TmuxTerminal } from '../helpers/tmux.js';
import { waitUntil } from '../helpers/wait.js';

// Best of N as a person sees it: `grove run -n 2` fans a prompt out to two
// sessions (the real Claude Code CLI against the fake model server) and a
// judge ranks them; the TUI shows both variants with their rank, the session
// view shows the ranking with the judge's reasons, and W merges the winner
// and cancels the other.

const reply = (answer: string) => JSON.stringify({ answer, questions: [], summary: { turn: `turn: ${answer}`, session: `session: ${answer}` } });

let world: GroveWorld;
let server: FakeModelServer;
let term: TmuxTerminal | null = null;
let repo: string;
let env: Record<string, string>;

beforeEach(async () => {
  world = makeWorld();
  server = await startFakeModelServer();
  repo = makeRepo(world);
  env = agentWorldEnv(world, agentEnv(server, world.home));
  server.script('anthropic', [
    { when: 'Write a title for a coding task', text: reply('Variant of the greeting') },
    { when: 'Write a title for a coding task', text: reply('Variant of the greeting') },
    { when: 'Write the git commit message for the changes', text: reply('Add the greeting') },
    { when: 'Write the git commit message for the changes', text: reply('Add the greeting') },
  ]);
});

afterEach(async () => {
  await term?.kill();
  term = null;
  await server.close();
  world.cleanup();
});

describe('best of N', () => {
  it('shows both variants of a grove run -n 2 with their ranking, and W merges the winner and cancels the other', async () => {
    // Each variant writes a file, then answers after a while: time to script the judge once the variants' ids are known.
    server.script('anthropic', [
      { when: 'Greeting fan-out task', toolCall: { kind: 'write_file', path: 'hello.txt', content: 'hello\n' } },
      { when: 'Greeting fan-out task', toolCall: { kind: 'write_file', path: 'hello.txt', content: 'hello\n' } },
      { when: 'Greeting fan-out task', delayMs: 4000, then: { text: reply('Wrote hello.txt.') } },
      { when: 'Greeting fan-out task', delayMs: 4000, then: { text: reply('Wrote hello.txt.') } },
    ]);
    const child = spawn(process.execPath, [GROVE_BIN, 'run', '-n', '2', '--progress', '--output', 'json', 'Greeting fan-out task'], { cwd: repo, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    await waitUntil(() => (stderr.match(/Variant [0-9a-f]{8}/g) ?? []).length === 2, 30_000);
    const [first, second] = [...stderr.matchAll(/Variant ([0-9a-f]{8})/g)].map((m) => m[1] ?? '');
    server.script('anthropic', [{ when: 'You are judging', text: reply(`[{"session": "${second}", "rank": 1, "reason": "clearer change"}, {"session": "${first}", "rank": 2, "reason": "same change, noisier"}]`) }]);
    expect(await exited).toBe(0);
    expect((JSON.parse(stdout) as { status: string }).status).toBe('ranked');

    term = await startGrove(world, repo, { env, columns: 130, rows: 34 });
    const list = await term.waitFor(/best of 2 #1/, 20_000);
    expect(list).toMatch(/best of 2 #2/);

    // The list shows the winner first within its group of statuses? Open the #1 row wherever it is.
    const rows = list.split('\n');
    const winnerRow = rows.findIndex((l) => l.includes('best of 2 #1'));
    const selectedRow = rows.findIndex((l) => l.includes('▶'));
    await term.keys(...Array.from({ length: Math.abs(winnerRow - selectedRow) }, () => (winnerRow > selectedRow ? 'j' : 'k')));
    await term.waitFor(/▶.*best of 2 #1/);
    await term.keys('Enter');
    const view = await term.waitFor(/Best of 2: ranked/);
    expect(view).toMatch(/#1 .*clearer change/);
    expect(view).toMatch(/#2 .*same change, noisier/);

    await term.keys('W');
    await term.waitFor(/winner is in the merge queue/, 20_000);
    await waitUntil(() => git(repo, 'log', '--oneline', '-1').includes('Add the greeting'), 30_000);
    expect(git(repo, 'show', 'HEAD:hello.txt')).toBe('hello');
    await term.keys('q');
    await term.waitFor(/best of 2 #2/);
    await waitUntil(async () => /Canceled|archive/i.test(await term!.screen()) || !(await term!.screen()).includes('best of 2 #2'), 20_000);
  }, 180_000);
});
