import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { shutdownContexts } from '../../src/cli/headless.js';
import { startClaudeHost, type ClaudeHost } from '../helpers/claude-host.js';
import { startFakeModelServer, type FakeModelServer } from '../helpers/fake-model/server.js';
import { makeReviewWorld, reply, waitFor, type ReviewWorld } from '../helpers/review-world.js';
import { sshdIt, sshdProblem } from '../helpers/sshd.js';

// The TUI's best of N (alt+n in a new session's composer) from a session on a
// host (issue 24), through the controller's sendBestOf as the composer calls
// it, on real git and SQLite, the test sshd of test/helpers/sshd.ts and the
// real Claude Code there: every variant runs on that host, and the group is
// checked and judged here on the branches brought back.

const it = sshdIt();
const ROOT = `.grove-test-best-of-tui-${process.pid}`;
const PROMPT = 'Fan out from the composer';
let w: ReviewWorld;
let host: ClaudeHost | undefined;
let hostModel: FakeModelServer | undefined;

beforeAll(async () => {
  if (sshdProblem() !== null) return;
  // The host's Claude Code has a model server of its own (the test sshd must exist before the
  // world, whose Grove reaches it through its ssh config); the judge and titles ask this world's.
  hostModel = await startFakeModelServer();
  host = await startClaudeHost(hostModel.url);
  w = await makeReviewWorld({ env: { GROVE_SSH_CONFIG: host.sshd.config } });
  await w.infra.store.hosts.add({
    name: 'build',
    destination: host.sshd.alias,
    root: ROOT,
    createdAt: w.infra.clock.now(),
  });
  await w.infra.store.settings.setProject(w.projectId, 'check.command', 'test -s where.txt');
}, 60_000);

afterAll(async () => {
  if (!host) return;
  await shutdownContexts();
  await w.close();
  await host.close(ROOT);
  await hostModel?.close();
});

describe("the composer's best of N on a host", () => {
  it('runs every variant on the host of the session it was asked in', async () => {
    // Whichever variant asks first: a request that holds the command's result gets the answer.
    const turn = [
      { when: 'pwd > where.txt', text: reply('Wrote where.txt.') },
      { when: PROMPT, toolCall: { kind: 'shell' as const, command: 'pwd > where.txt' } },
    ];
    hostModel?.script('anthropic', [...turn, ...turn]);
    const draft = await w.controller.sessions.create(
      w.projectId,
      { agent: 'claude', model: 'sonnet', reasoning: 'high' },
      w.app.state.settings,
      'auto_edit',
      'build',
    );
    await w.controller.sessions.whenReady(draft.id);

    w.controller.sendBestOf(draft.id, PROMPT, 2);

    const group = await waitFor(
      'the group',
      async () => (await w.infra.store.groups.ofSession(draft.id)) ?? null,
      60_000,
    );
    const ids = group.members.map((m) => m.sessionId);
    expect(ids).toHaveLength(2);
    const ranking = ids.map((id, i) => ({ session: id, rank: i + 1, reason: `variant ${i}` }));
    w.server.script('anthropic', [
      { when: 'You are judging', text: reply(`\`\`\`json\n${JSON.stringify(ranking)}\n\`\`\``) },
    ]);
    const final = await waitFor(
      'the group ranked',
      async () => {
        const g = await w.infra.store.groups.get(group.id);
        return g && (g.status === 'ranked' || g.status === 'failed') ? g : null;
      },
      240_000,
    );
    expect(final.status).toBe('ranked');
    expect(final.members.map((m) => m.check?.exitCode)).toEqual([0, 0]);
    for (const id of ids) {
      const session = await w.get(id);
      expect(session.host).toBe('build');
      // Another variant's work coming back here (its side ref) is Grove's, not this agent's doing.
      expect(session.guardFlag ?? null).toBeNull();
      expect((await w.notices(id)).filter((n) => n.startsWith('[Guard]'))).toEqual([]);
      // Written by the agent in the variant's worktree on the host, and brought back here.
      expect(readFileSync(join(session.worktreePath, 'where.txt'), 'utf8').trim()).toMatch(
        new RegExp(`/${ROOT}/worktrees/[^/]+/${id}$`),
      );
    }
  }, 300_000);
});
