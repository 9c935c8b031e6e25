import { basename } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openInfra, type Infra } from '../../src/compose.js';
import type { SessionGroup } from '../../src/domain/best-of.js';
import { startGroveApp, type GroveApp } from '../helpers/grove-app.js';
import { installGitPause, killAtPause, pauseAt, startGrove, until } from '../helpers/faults.js';
import { withStore } from '../helpers/seed.js';
import { expectExit, harness, reply, show, type Harness } from './headless-harness.js';

// A best-of-N group whose Grove process was killed before the group was
// checked and judged, or while the judge ran, is evaluated by the next Grove:
// at start-up, and by `grove run -n`. Real processes: the built binary with
// the real Claude Code against the fake model server, a git wrapper that
// stops at one command so the process can be killed there, kill -9.

let h: Harness;
let restarted: { infra: Infra; grove: GroveApp } | null = null;

beforeEach(async () => {
  h = await harness();
  installGitPause(h.world);
  await withStore(h.world.groveHome, async (store) => {
    const project = await store.projects.upsert(h.repo, basename(h.repo), Date.now());
    await store.settings.setProject(project.id, 'check.command', 'test -f hello.txt');
  });
});

afterEach(async () => {
  if (restarted) {
    await restarted.grove.controller.shutdown();
    await restarted.infra.db.close();
  }
  restarted = null;
  await h.close();
});

/** Each variant's turn writes hello.txt and answers. */
function scriptVariants(prompt: string): void {
  h.utilities('Variant one');
  h.utilities('Variant two');
  h.server.script('anthropic', [
    { when: prompt, toolCall: { kind: 'write_file', path: 'hello.txt', content: 'hello\n' } },
    { when: prompt, toolCall: { kind: 'write_file', path: 'hello.txt', content: 'hello\n' } },
    { when: prompt, text: reply('Variant done.') },
    { when: prompt, text: reply('Variant done.') },
  ]);
}

/** The judge's answer for the group's two variants: the second first. */
function scriptJudge(group: SessionGroup): [string, string] {
  const [a = '', b = ''] = group.members.map((m) => m.sessionId);
  h.server.script('anthropic', [
    {
      // The judge's prompt names the variants: this answer is for this group only.
      when: a,
      groveOwn: true,
      text: reply(
        `\`\`\`json\n[{"session": "${b}", "rank": 1, "reason": "tidier"}, {"session": "${a}", "rank": 2, "reason": "longer"}]\n\`\`\``,
      ),
    },
  ]);
  return [a, b];
}

async function groups(): Promise<SessionGroup[]> {
  return withStore(h.world.groveHome, async (store) => {
    const project = await store.projects.upsert(h.repo, basename(h.repo), Date.now());
    return store.groups.listByProject(project.id);
  });
}

async function groupOf(prompt: string): Promise<SessionGroup | undefined> {
  return (await groups()).find((g) => g.prompt === prompt);
}

describe('a best-of-N group whose Grove was killed before it was checked', () => {
  it('is checked and judged when Grove starts again', async () => {
    scriptVariants('Fan-out task');
    // The first variant to commit its turn stops there; the Grove process is killed.
    const pause = pauseAt(h.world, `${h.world.groveHome}/wt/*|commit-tree *`);
    await killAtPause(
      startGrove(['run', '-n', '2', '--agents', 'claude', 'Fan-out task'], h.repo, {
        ...h.env,
        ...pause.env,
      }),
      pause.marker,
    );
    const stranded = await groupOf('Fan-out task');
    expect(stranded?.status).toBe('running');
    const [a, b] = scriptJudge(stranded as SessionGroup);

    const infra = openInfra(h.env);
    const grove = await startGroveApp(infra, h.repo);
    restarted = { infra, grove };
    grove.controller.start();

    const final = await until(
      'the group to be judged',
      async () => {
        const g = await infra.store.groups.get(stranded?.id ?? '');
        return g && g.status !== 'running' && g.status !== 'checking' && g.status !== 'judging'
          ? g
          : null;
      },
      120_000,
    );
    expect(final.status).toBe('ranked');
    expect(final.ranking.map((r) => r.sessionId)).toEqual([b, a]);
    // The check ran in both worktrees (the first variant had written hello.txt before the kill).
    expect(final.members.every((m) => m.check !== null)).toBe(true);
    expect(final.members.some((m) => m.check?.exitCode === 0)).toBe(true);
    expect(final.note).toContain('Checked and judged by a later Grove');
    for (const id of [a, b]) {
      const notices = (await infra.store.transcript.list(id))
        .filter((e) => e.kind === 'notice')
        .map((e) => e.content);
      expect(notices).toContain(
        '[Best of N] Grove stopped after the variants of this group finished, before it was checked and judged: checking and judging it now.',
      );
      expect((await infra.store.sessions.get(id))?.status).toBe('Review');
    }
  }, 180_000);
});

describe('a best-of-N group whose Grove was killed while the judge ran', () => {
  it('is judged again by the next grove run -n, which then ranks its own group', async () => {
    scriptVariants('First fan-out');
    h.server.script('anthropic', [
      { when: 'You are judging', delayMs: 300_000, then: { text: reply('Too late.') } },
    ]);
    const victim = startGrove(['run', '-n', '2', '--agents', 'claude', 'First fan-out'], h.repo, {
      ...h.env,
    });
    await until(
      'the judge to be waiting for the model',
      () => h.server.requests.some((r) => JSON.stringify(r.body).includes('You are judging')),
      120_000,
    );
    victim.child.kill('SIGKILL');
    await victim.exited;
    const stranded = await groupOf('First fan-out');
    expect(stranded?.status).toBe('judging');
    const [a, b] = scriptJudge(stranded as SessionGroup);
    scriptVariants('Second fan-out');
    const second = h.start([
      'run',
      '-n',
      '2',
      '--agents',
      'claude',
      '--progress',
      'Second fan-out',
    ]);
    const own = await until('the second group', () => groupOf('Second fan-out'));
    const [c, d] = scriptJudge(own);

    const run = await second.done;

    expectExit(run, 0);
    expect(run.stdout, show(run)).toContain(`1. ${d.slice(0, 8)}`);
    expect(run.stderr).toContain(`(${stranded?.id.slice(0, 8) ?? ''}) that a stopped Grove left`);
    const first = await groupOf('First fan-out');
    expect(first?.status).toBe('ranked');
    expect(first?.ranking.map((r) => r.sessionId)).toEqual([b, a]);
    expect(first?.note).toContain('Checked and judged again');
    expect((await groupOf('Second fan-out'))?.ranking.map((r) => r.sessionId)).toEqual([d, c]);
  }, 240_000);
});
