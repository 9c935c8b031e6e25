import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { gate } from '../helpers/fake-model/server.js';
import { git } from '../helpers/grove-env.js';
import { expectExit, reply, until } from './headless-harness.js';
import { h, setUpHeadlessRun, showJson, turnRequests } from './headless-run-world.js';
import { ListSchema, ResultSchema } from './headless-schema.js';

// `grove reply` and `grove cancel` on a session whose turn another process
// runs, and a reply to a session that is not there: the built binary, the
// real Claude Code, the fake model server, a real repository and SQLite store.

setUpHeadlessRun();

describe('two commands on one session', () => {
  it('a reply from a second process waits for the running turn, then runs its own; each prints its own answer', async () => {
    h.utilities();
    // The first turn's answer waits until the second process says it is waiting for it.
    const firstAnswer = gate();
    h.server.script('anthropic', [
      { when: 'First task', toolCall: { kind: 'write_file', path: 'one.txt', content: 'one\n' } },
      { when: 'First task', until: firstAnswer.opened, then: { text: reply('First done.') } },
      { when: 'Second task', toolCall: { kind: 'write_file', path: 'two.txt', content: 'two\n' } },
      { when: 'Second task', text: reply('Second done.') },
    ]);
    const first = h.start(['run', '--output', 'json', 'First task']);
    await until(
      'the first turn to reach the slow model step',
      () => turnRequests('First task').length >= 2,
    );
    const [listed] = ListSchema.parse(JSON.parse((await h.grove(['ls', '--json'])).stdout));
    expect(listed?.status).toBe('InProgress');

    const replying = h.start([
      'reply',
      '--progress',
      listed?.sessionId.slice(0, 8) ?? '',
      'Second task',
    ]);
    await until('the second process to wait for the first', () =>
      replying
        .stderr()
        .includes('Waiting for another Grove process that is working on this session'),
    );
    firstAnswer.open();
    const second = await replying.done;
    const firstRun = await first.done;

    expectExit(firstRun, 0);
    expect(ResultSchema.parse(JSON.parse(firstRun.stdout)).answer).toBe('First done.');
    expectExit(second, 0);
    expect(second.stdout).toBe('Second done.\n');
    expect(second.stderr).toContain(
      'Waiting for another Grove process that is working on this session',
    );
    // One driver at a time: the second prompt started after the first answer.
    const shown = await showJson(listed?.sessionId ?? '');
    const order = shown.transcript
      .filter((e) => e.kind === 'user_prompt' || e.kind === 'assistant_answer')
      .map((e) => e.content);
    expect(order).toEqual(['First task', 'First done.', 'Second task', 'Second done.']);
    expect(shown.files).toEqual([
      { path: 'one.txt', added: 1, deleted: 0 },
      { path: 'two.txt', added: 1, deleted: 0 },
    ]);
  });
});

describe('grove cancel while another process runs the turn', () => {
  it('asks that process to stop, waits for it, then cancels with the work kept on the branch', async () => {
    h.utilities();
    h.server.script('anthropic', [
      { when: 'First task', toolCall: { kind: 'write_file', path: 'one.txt', content: 'one\n' } },
      { when: 'First task', delayMs: 60_000, then: { text: reply('too late') } },
    ]);
    const first = h.start(['run', 'First task']);
    await until(
      'the first turn to reach the slow model step',
      () => turnRequests('First task').length >= 2,
    );
    const [listed] = ListSchema.parse(JSON.parse((await h.grove(['ls', '--json'])).stdout));
    const id = listed?.sessionId ?? '';

    // A running turn is work at risk: not without --yes.
    const refused = await h.grove(['cancel', id]);
    expectExit(refused, 2);
    expect((await showJson(id)).status).toBe('InProgress');

    const canceled = await h.grove(['cancel', '--yes', id]);
    const firstRun = await first.done;

    expectExit(canceled, 0);
    expect(canceled.stdout).toBe(`Canceled (work kept on branch grove/${id.slice(0, 8)})\n`);
    expectExit(firstRun, 1);
    expect(firstRun.stdout).toBe('');
    expect(firstRun.stderr).toBe(
      `grove: the turn was stopped by another Grove process; the session (${id.slice(0, 8)}) keeps its work.\n`,
    );
    const shown = await showJson(id);
    expect(shown.status).toBe('Canceled');
    // The turn stopped and committed its work before the worktree went away.
    const kinds = shown.transcript.map((e) => e.content.replace(/\s.*$/s, ''));
    expect(kinds.indexOf('[Stopped]')).toBeGreaterThan(-1);
    expect(kinds.indexOf('[Stopped]')).toBeLessThan(kinds.indexOf('[Cancel]'));
    expect(git(h.repo, 'show', `grove/${id.slice(0, 8)}:one.txt`)).toBe('one');
    expect(existsSync(shown.worktree)).toBe(false);
  });
});

describe('a queued reply that times out', () => {
  it('is withdrawn before it starts (exit 4) and the running turn goes on', async () => {
    h.utilities();
    // The first turn answers only after the queued reply has timed out.
    const firstAnswer = gate();
    h.server.script('anthropic', [
      { when: 'First task', until: firstAnswer.opened, then: { text: reply('First done.') } },
    ]);
    const first = h.start(['run', 'First task']);
    await until('the first turn to reach the model', () => turnRequests('First task').length > 0);
    const [listed] = ListSchema.parse(JSON.parse((await h.grove(['ls', '--json'])).stdout));

    const second = await h.grove([
      'reply',
      '--timeout',
      '1s',
      listed?.sessionId ?? '',
      'Never sent',
    ]);

    expectExit(second, 4);
    expect(second.stdout).toBe('');
    expect(second.stderr).toMatch(/^grove: timed out; /);
    firstAnswer.open();
    const firstRun = await first.done;
    expectExit(firstRun, 0);
    expect(firstRun.stdout).toBe('First done.\n');
    const shown = await showJson(listed?.sessionId ?? '');
    expect(shown.transcript.map((e) => e.content)).not.toContain('Never sent');
    expect(
      h.server
        .modelRequests('anthropic')
        .some((r) => JSON.stringify(r.body).includes('Never sent')),
    ).toBe(false);
  });
});

describe('reply', () => {
  it('says so when the session is not there (exit 2)', async () => {
    const run = await h.grove(['reply', 'deadbeef', 'hello']);

    expectExit(run, 2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe("grove: no session matches 'deadbeef'\n");
  });
});
