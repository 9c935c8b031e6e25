import { describe, expect } from 'vitest';
import { agentEnv } from '../helpers/agent-env.js';
import { agentWorldEnv, makeRepo, runGrove, startGrove } from '../helpers/grove-env.js';
import { setUpE2eWorld } from '../helpers/e2e-world.js';
import { sshdIt, startSshd } from '../helpers/sshd.js';

// The hosts' figures in the TUI's header (issue 24, item 6): the built binary
// in tmux with two hosts, the test sshd of test/helpers/sshd.ts (read over
// its shared connection: load, free memory, turns running/most) and one that
// cannot be reached (said as away); hidden on a narrow screen. Then the
// project's Default host `auto`: a new session's composer says it will be
// placed, and `/host local` / `/host auto` move it.

const it = sshdIt();
/** The Default host row of the Settings tab: after the three roles' agent, model and reasoning and the worktree folder. */
const DEFAULT_HOST_ROW = 10;
const e2e = setUpE2eWorld();

describe("the header's hosts", () => {
  it("shows each host's load, free memory and turns, a host that cannot be reached as away, and nothing when narrow; a new session on Default host auto says so in its composer", async () => {
    const sshd = await startSshd();
    try {
      const repo = makeRepo(e2e.world);
      const env = {
        ...agentWorldEnv(e2e.world, agentEnv(e2e.server, e2e.world.home)),
        GROVE_SSH_CONFIG: sshd.config,
      };
      for (const args of [
        ['host', 'add', 'build', sshd.alias, '--max', '2'],
        // Port 1 on this machine: nothing listens, ssh is refused at once.
        ['host', 'add', 'gone', 'ssh://nobody@127.0.0.1:1'],
      ]) {
        const added = await runGrove(e2e.world.env(env), repo, args);
        expect(added.code, added.out).toBe(0);
      }
      const t = e2e.track(await startGrove(e2e.world, repo, { env, columns: 140, rows: 30 }));
      const screen = await t.waitFor(
        /build \d+\.\d\d [\d.]+[BKMGT] 0\/2 {2}gone away 0\/\?/,
        30_000,
      );
      // On the header's line, beside the project.
      expect(screen.split('\n')[0]).toMatch(
        /Grove .* build \d+\.\d\d [\d.]+[BKMGT] 0\/2 {2}gone away/,
      );
      const listed = await runGrove(e2e.world.env(env), repo, ['host', 'ls', '--json']);
      const [build, gone] = JSON.parse(listed.out) as { load: { availableBytes: number } | null }[];
      expect(build?.load?.availableBytes).toBeGreaterThan(0);
      expect(gone?.load).toBeNull();
      await t.resize(90, 30);
      await t.waitForGone(/build \d/);

      // Default host auto: a new session says it will be placed, and /host moves it.
      await t.resize(140, 30);
      await t.waitFor('No sessions yet.');
      await t.keys('Tab');
      await t.waitFor('Worktree folder');
      for (let i = 0; i < DEFAULT_HOST_ROW; i++) await t.keys('j');
      await t.waitFor(/▶ Default host/);
      await t.keys('Enter');
      await t.waitFor(/Default host[\s\S]*local/);
      await t.keys('C-u');
      await t.type('auto');
      await t.keys('Enter');
      await t.waitFor(/Default host\s+auto/);
      await t.keys('Tab', 'Tab');
      await t.waitFor('No sessions yet.');
      await t.keys('a');
      await t.waitFor('Task for the agent · on auto: this machine or a host with room (/host)');
      await t.type('/host local');
      await t.keys('Enter');
      await t.waitFor('Task for the agent · on this machine (/host)');
      await t.type('/host auto');
      await t.keys('Enter');
      await t.waitFor('[Host] auto: this machine, or a host with room');
      await t.waitFor('Task for the agent · on auto: this machine or a host with room (/host)');
    } finally {
      await sshd.stop();
    }
  }, 90_000);
});
