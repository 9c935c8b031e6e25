import { execFileSync, spawn } from 'node:child_process';
import { beforeEach, describe, expect, it } from 'vitest';
import { agentEnv } from '../helpers/agent-env.js';
import { gate } from '../helpers/fake-model/server.js';
import { GROVE_BIN, agentWorldEnv, makeRepo, startGrove } from '../helpers/grove-env.js';
import type { TmuxTerminal } from '../helpers/tmux.js';
import { waitUntil } from '../helpers/wait.js';
import { setUpE2eWorld } from '../helpers/e2e-world.js';
import { reply } from '../helpers/fake-model/reply.js';

// Best of N as a person sees it: `grove run -n 2` fans a prompt out to two
// sessions (the real Claude Code CLI against the fake model server) and a
// judge ranks them; the TUI shows both variants with their rank, the session
// view shows the ranking with the judge's reasons, and W merges the winner
// and cancels the other.

const e2e = setUpE2eWorld();
let repo: string;
let env: Record<string, string>;

beforeEach(() => {
  repo = makeRepo(e2e.world);
  env = agentWorldEnv(e2e.world, agentEnv(e2e.server, e2e.world.home));
  e2e.server.script('anthropic', [
    { when: 'Write a title for a coding task', text: reply('Variant of the greeting') },
    { when: 'Write a title for a coding task', text: reply('Variant of the greeting') },
    { when: 'Write the git commit message for the changes', text: reply('Add the greeting') },
    { when: 'Write the git commit message for the changes', text: reply('Add the greeting') },
  ]);
});

describe('best of N', () => {
  it('shows both variants of a grove run -n 2 with their ranking, and W merges the winner and cancels the other', async () => {
    // Each variant writes a file, then answers once the judge is scripted (its variants' ids
    // are known then). A request that carries the tool's result takes an answer (those steps
    // come first), a variant's first request takes a write.
    const afterWrite = 'File created successfully';
    const judged = gate();
    e2e.server.script('anthropic', [
      { when: afterWrite, until: judged.opened, then: { text: reply('Wrote hello.txt.') } },
      { when: afterWrite, until: judged.opened, then: { text: reply('Wrote hello.txt.') } },
      {
        when: 'Greeting fan-out task',
        toolCall: { kind: 'write_file', path: 'hello.txt', content: 'hello\n' },
      },
      {
        when: 'Greeting fan-out task',
        toolCall: { kind: 'write_file', path: 'hello.txt', content: 'hello\n' },
      },
    ]);
    const child = spawn(
      process.execPath,
      [GROVE_BIN, 'run', '-n', '2', '--progress', '--output', 'json', 'Greeting fan-out task'],
      { cwd: repo, env, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    await waitUntil(
      'both variants started',
      () => (stderr.match(/Variant [0-9a-f]{8}/g) ?? []).length === 2,
      30_000,
    );
    const [first, second] = [...stderr.matchAll(/Variant ([0-9a-f]{8})/g)].map((m) => m[1] ?? '');
    e2e.server.script('anthropic', [
      {
        when: 'You are judging',
        text: reply(
          `[{"session": "${second}", "rank": 1, "reason": "clearer change"}, {"session": "${first}", "rank": 2, "reason": "same change, noisier"}]`,
        ),
      },
    ]);
    judged.open();
    expect(await exited).toBe(0);
    expect((JSON.parse(stdout) as { status: string }).status).toBe('ranked');

    e2e.term = await startGrove(e2e.world, repo, { env, columns: 130, rows: 34 });
    const list = await e2e.term.waitFor(/best of 2 #1/, 20_000);
    expect(list).toMatch(/best of 2 #2/);

    // Open the #1 row, wherever the list puts it.
    const rows = list.split('\n');
    const winnerRow = rows.findIndex((l) => l.includes('best of 2 #1'));
    const selectedRow = rows.findIndex((l) => l.includes('▶'));
    await e2e.term.keys(
      ...Array.from({ length: Math.abs(winnerRow - selectedRow) }, () =>
        winnerRow > selectedRow ? 'j' : 'k',
      ),
    );
    await e2e.term.waitFor(/▶.*best of 2 #1/);
    await e2e.term.keys('Enter');
    const view = await e2e.term.waitFor(/Best of 2: ranked/);
    expect(view).toMatch(/#1 .*clearer change/);
    expect(view).toMatch(/#2 .*same change, noisier/);

    await e2e.term.keys('W');
    const asked = await e2e.term.waitFor('Merge the winner of best of N?');
    // The popup's text, its wrapped lines joined (the variants' titles are long).
    const popupText = asked
      .split('\n')
      .map((line) => /│(.*)│/.exec(line)?.[1]?.trim() ?? '')
      .filter((line) => line !== '')
      .join(' ');
    expect(popupText).toMatch(/#1 of the ranking\) joins the merge queue/);
    expect(popupText).toMatch(/Variant of the greeting \(variant 1 of 2, [^()]+\)/);
    expect(popupText).toMatch(/Variant of the greeting \(variant 2 of 2, [^()]+\)/);
    await e2e.term.keys('y');
    await e2e.term.waitFor(/winner is in the merge queue/, 20_000);
    await waitUntil(
      'the winner merged',
      () => {
        try {
          return (
            execFileSync('git', ['show', 'HEAD:hello.txt'], {
              cwd: repo,
              encoding: 'utf8',
              stdio: ['ignore', 'pipe', 'ignore'],
            }).trim() === 'hello'
          );
        } catch {
          return false;
        }
      },
      30_000,
    );
    const statusOf = (id: string): string =>
      execFileSync(process.execPath, [GROVE_BIN, 'ls', '--all'], {
        cwd: repo,
        env,
        encoding: 'utf8',
      })
        .split('\n')
        .find((l) => l.startsWith(id)) ?? '';
    await waitUntil(
      'the other variant canceled',
      () => statusOf(first ?? '').includes('Canceled'),
      20_000,
    );
    // The merge of the winner may end after the other is canceled.
    await waitUntil('the winner merged', () => /Done|Merged/.test(statusOf(second ?? '')), 20_000);
  }, 180_000);

  it("runs a new session's first prompt as best of 2 when alt+n is pressed in the composer", async () => {
    e2e.server.script('anthropic', [
      { when: 'Composer fan-out task', text: reply('Done here.') },
      { when: 'Composer fan-out task', text: reply('Done here.') },
    ]);
    e2e.term = await startGrove(e2e.world, repo, { env, columns: 130, rows: 34 });
    await e2e.term.waitFor('No sessions');
    await newSessionWithoutSending(e2e.term);
    await e2e.term.type('Composer fan-out task');

    await e2e.term.keys('M-n');
    await e2e.term.waitFor('Task for the agent · best of 2');
    await e2e.term.keys('Enter');
    await e2e.term.keys('q');

    const list = await e2e.term.waitFor(/best of 2[\s\S]*best of 2/, 30_000);
    expect(list.match(/\[best of 2/g)).toHaveLength(2);
  }, 120_000);
});

async function newSessionWithoutSending(t: TmuxTerminal): Promise<void> {
  await t.keys('a');
  await t.waitFor('Task for the agent');
}
