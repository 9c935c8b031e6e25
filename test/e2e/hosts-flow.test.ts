import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { setUpE2eWorld } from '../helpers/e2e-world.js';
import { reply } from '../helpers/fake-model/reply.js';
import { gate } from '../helpers/fake-model/server.js';
import { git, startGrove } from '../helpers/grove-env.js';
import { heldTurn, turnRequests, withClaudeHost, type HostE2e } from '../helpers/host-e2e.js';
import { killIfAlive, liveProcesses } from '../helpers/processes.js';
import { sshdIt } from '../helpers/sshd.js';
import type { TmuxTerminal } from '../helpers/tmux.js';
import { waitUntil } from '../helpers/wait.js';

// A person's way through a session on a host in the TUI (issue 24: "add a
// host, check it, start a session there, answer a question, drop the link
// mid-turn, kill Grove mid-turn and restart it, cancel a remote turn"): the
// built binary in tmux, the test sshd's second user running the real Claude
// Code, the fake model server holding a turn mid-way where the test acts.

const it = sshdIt();
const e2e = setUpE2eWorld();
const ROOT = `.grove-test-flow-${process.pid}`;
const TITLE = 'Write a title for a coding task';

/** The title, commit message and focused review of the session's turns. */
function utilities(): void {
  e2e.server.script('anthropic', [
    { when: TITLE, text: reply('Note on the host') },
    { when: 'Write the git commit message for the changes', text: reply('Add the note') },
    { when: 'You are reviewing the work of a coding agent', text: reply('## Review\nFine.') },
  ]);
}

/** The Grove TUI in tmux, on the project. */
async function tui(h: HostE2e): Promise<TmuxTerminal> {
  return e2e.track(await startGrove(e2e.world, h.repo, { env: h.env, columns: 120, rows: 34 }));
}

/** A new session on the host `build`, made in the composer (`a`, `/host build`, the task). */
async function startOnHost(t: TmuxTerminal, task: string): Promise<void> {
  await t.waitFor('No sessions yet.');
  await t.keys('a');
  await t.waitFor('Task for the agent · on this machine (/host)');
  await t.type('/host build');
  await t.keys('Enter');
  await t.waitFor('Task for the agent · on build (/host)');
  await t.type(task);
  await t.keys('Enter');
}

/** How many times `text` is on `screen`. */
const times = (screen: string, text: string): number => screen.split(text).length - 1;

/** The lines of `lines` that contain `text`. */
const having = (lines: readonly string[], text: string): string[] =>
  lines.filter((l) => l.includes(text));

/**
 * What the host user runs for this file (the test host is this machine: read without ssh, also
 * while it is down): the lines that name Grove's folder there or `mark`, since another run of the
 * tests may use the same host user.
 */
function onHost(user: string, mark: string): string[] {
  return execFileSync('ps', ['-u', user, '-o', 'args='], { encoding: 'utf8' })
    .split('\n')
    .filter((l) => l.includes(ROOT) || l.includes(mark));
}

describe('a session on a host, the whole way in the TUI', () => {
  it('adds and checks the host in the terminal, starts a session there, answers its question, and rides out the link dropping mid-turn', async () => {
    await withClaudeHost(
      e2e,
      ROOT,
      async (h) => {
        const { sshd } = h.host;
        // `grove host add` and `grove host check`, each run in a terminal (tmux) as a person runs it.
        const add = await startGrove(e2e.world, h.repo, {
          env: h.env,
          args: ['host', 'add', 'build', sshd.alias, '--root', ROOT],
        });
        expect(await add.waitForExit(30_000)).toBe(0);
        expect(await add.screen()).toContain(`Added host build: ssh ${sshd.alias}, root ${ROOT}.`);
        await add.kill();
        const check = await startGrove(e2e.world, h.repo, {
          env: h.env,
          args: ['host', 'check', 'build'],
          columns: 200,
          rows: 30,
        });
        const checked = await check.waitForExit(60_000);
        const report = await check.screen();
        expect(checked, report).toBe(0);
        await check.kill();
        expect(report).toMatch(
          new RegExp(
            `^ok {4}login +ssh ${sshd.alias} logs in as ${sshd.user} without a prompt`,
            'm',
          ),
        );
        expect(report).toMatch(/^ok {4}claude +Claude Code \S+ at \S+, signed in/m);
        expect(report).toMatch(/^ok {4}sandbox +bubblewrap/m);
        expect(report).toMatch(
          new RegExp(`^ok {4}root +Grove's folder is ${sshd.home}/${ROOT}`, 'm'),
        );

        // The agent asks first; the answer goes to the host as the next turn, which the test holds mid-way.
        utilities();
        e2e.server.script('anthropic', [
          {
            when: 'leave a note on the host',
            text: reply('', {
              questions: [
                { text: 'Which file should the note go in?', options: ['note.txt', 'host.txt'] },
              ],
            }),
          },
        ]);
        const resume = heldTurn(e2e.server, {
          when: 'Clarifications:',
          step: 'drop-step-one',
          file: 'host.txt',
          text: 'drop',
          answer: 'Wrote host.txt after the drop.',
        });
        const t = await tui(h);
        await startOnHost(t, 'leave a note on the host');
        await t.waitFor('Which file should the note go in?', 120_000);
        await t.waitFor('? Enter answers the question of the agent');
        await t.keys('Enter');
        await t.waitFor('Question 1 of 1');
        await t.keys('j', 'Enter');

        // The link drops while the agent waits for its next step on the host.
        await waitUntil(
          'the agent asks for its second step',
          () => turnRequests(e2e.server, 'Clarifications:') >= 2,
          120_000,
        );
        await t.waitFor('drop-step-one', 30_000);
        await sshd.down();
        await t.waitFor(/Reconnecting to build \(try \d+, next in \d+s\)/, 60_000);
        await t.keys('Escape');
        await t.waitFor(/\[@build reconnecting\]/, 30_000);
        // The agent goes on there while the host cannot be reached.
        resume.open();
        await waitUntil(
          'the agent asks for its last step',
          () => turnRequests(e2e.server, 'Clarifications:') >= 3,
          60_000,
        );
        await sshd.up();
        await t.waitForGone('reconnecting', 60_000);
        await t.keys('Enter');
        await t.waitFor('Wrote host.txt after the drop.', 60_000);
        const done = await t.waitFor(/ Review /, 60_000);
        // The person sees each of the turn's lines once.
        expect(times(done, 'Ran: echo drop-step-one'), done).toBe(1);
        expect(times(done, "Ran: printf 'drop\\n' > host.txt"), done).toBe(1);

        const answer = e2e.server
          .modelRequests('anthropic')
          .map((r) => JSON.stringify(r.body))
          .find((b) => b.includes('Clarifications:'));
        expect(answer).toContain('Q: Which file should the note go in?');
        expect(answer).toContain('A: host.txt');
        const lines = await h.transcript();
        expect(having(lines, 'echo drop-step-one'), lines.join('\n')).toHaveLength(1);
        expect(
          having(lines, '> host.txt').filter((l) => !l.includes('[Commit]')),
          lines.join('\n'),
        ).toHaveLength(1);
        // The question turn's answer, then the answered turn's, once.
        expect(lines.filter((l) => l.startsWith('assistant_answer'))).toEqual([
          'assistant_answer: 1. Which file should the note go in?',
          'assistant_answer: Wrote host.txt after the drop.',
        ]);
        const branch = git(h.repo, 'branch', '--list', 'grove/*').replace(/^[*+ ]+/, '');
        await waitUntil(
          'the branch came back with the file',
          () => git(h.repo, 'ls-tree', '--name-only', branch).includes('host.txt'),
          60_000,
        );
        expect(git(h.repo, 'show', `${branch}:host.txt`)).toBe('drop');
      },
      { add: false },
    );
  }, 420_000);

  it('re-attaches after the TUI is killed (kill -9) mid-turn and started again, and Ctrl+C stops a turn there with its whole process group', async () => {
    await withClaudeHost(e2e, ROOT, async (h) => {
      const { sshd } = h.host;
      // The killed Grove's title request gets no answer: the next one writes the title.
      const untitled = gate();
      e2e.server.script('anthropic', [
        { when: TITLE, until: untitled.opened, then: { text: reply('Never shown') } },
      ]);
      utilities();
      const resume = heldTurn(e2e.server, {
        when: 'kill the tui mid-turn',
        step: 'kill-step-one',
        file: 'kill.txt',
        text: 'kill',
        answer: 'Finished after the restart.',
      });
      const first = await tui(h);
      await startOnHost(first, 'kill the tui mid-turn');
      await waitUntil(
        'the agent asks for its second step',
        () => turnRequests(e2e.server, 'kill the tui mid-turn') >= 2,
        120_000,
      );
      await first.waitFor('kill-step-one', 30_000);
      await waitUntil('the title is asked for', () =>
        e2e.server.modelRequests('anthropic').some((r) => JSON.stringify(r.body).includes(TITLE)),
      );
      process.kill(await first.pid(), 'SIGKILL');
      expect(await first.waitForExit()).toBe(137);
      await first.kill();
      untitled.open();

      const t = await tui(h);
      // The title the killed Grove never got is written by this one.
      await t.waitFor(/Note on the host.*\[@build\].*InProgress/, 60_000);
      await t.keys('Enter');
      await t.waitFor('[Re-attached]', 120_000);
      resume.open();
      await t.waitFor('Finished after the restart.', 120_000);
      const done = await t.waitFor(/ Review /, 60_000);
      expect(times(done, 'Ran: echo kill-step-one'), done).toBe(1);
      expect(times(done, '[Re-attached]'), done).toBe(1);
      expect(times(done, "Ran: printf 'kill\\n' > kill.txt"), done).toBe(1);
      let lines = await h.transcript();
      expect(having(lines, 'echo kill-step-one'), lines.join('\n')).toHaveLength(1);
      expect(having(lines, '> kill.txt'), lines.join('\n')).toHaveLength(1);
      expect(lines.filter((l) => l.startsWith('assistant_answer'))).toEqual([
        'assistant_answer: Finished after the restart.',
      ]);
      const branch = git(h.repo, 'branch', '--list', 'grove/*').replace(/^[*+ ]+/, '');
      await waitUntil(
        'the branch came back with the file',
        () => git(h.repo, 'ls-tree', '--name-only', branch).includes('kill.txt'),
        60_000,
      );

      // A reply whose agent works on; Ctrl+C in the session view stops it there.
      e2e.server.script('anthropic', [
        {
          when: 'stop me on the host',
          toolCall: { kind: 'shell', command: 'touch partial.txt; sleep 302' },
        },
      ]);
      await t.keys('Enter');
      await t.waitFor('Reply');
      await t.type('stop me on the host');
      await t.keys('Enter');
      await waitUntil(
        'the agent works on the host',
        () => onHost(sshd.user, 'sleep 302').some((l) => l.includes('sleep 302')),
        120_000,
      );
      await t.waitFor(/InProgress/);
      // The link drops (Grove's ssh processes killed) and comes back first: the stop works after a reconnect too.
      const sockets = join(e2e.world.groveHome, 'ssh');
      const ssh = liveProcesses().filter(
        (p) => p.cmdline.startsWith('ssh') && p.cmdline.includes(sockets),
      );
      expect(ssh.length).toBeGreaterThan(0);
      for (const p of ssh) killIfAlive(p.pid);
      await t.waitFor('Working (reconnected to build)', 60_000);
      await t.keys('C-c');
      await t.waitFor('[Stopped] You stopped the turn.', 60_000);
      await t.waitFor(/ Review /, 60_000);
      // Nothing of the run is left there: its wrapper, bubblewrap, Claude Code, the command.
      await waitUntil(
        'the host has nothing of the run left',
        () => onHost(sshd.user, 'sleep 302').length === 0,
        30_000,
      ).catch((error: unknown) => {
        throw new Error(`${String(error)}:\n${onHost(sshd.user, 'sleep 302').join('\n')}`);
      });
      // No process is left in any run's process group.
      expect(
        sshd.ssh(`for f in ${ROOT}/runs/*/pid; do pgrep -a -g "$(cat "$f")"; done; true`),
      ).toBe('');
      lines = await h.transcript();
      expect(having(lines, '[Stopped]'), lines.join('\n')).toHaveLength(1);
      await waitUntil(
        'the stopped turn’s work came back',
        () => git(h.repo, 'ls-tree', '--name-only', branch).includes('partial.txt'),
        60_000,
      );
    });
  }, 420_000);
});
