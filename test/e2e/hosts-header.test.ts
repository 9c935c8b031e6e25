import { describe, expect } from 'vitest';
import { agentEnv } from '../helpers/agent-env.js';
import { agentWorldEnv, makeRepo, runGrove, startGrove } from '../helpers/grove-env.js';
import { setUpE2eWorld } from '../helpers/e2e-world.js';
import { sshdIt, startSshd } from '../helpers/sshd.js';

// The hosts' figures in the TUI's header (issue 24, item 6): the built binary
// in tmux with two hosts, the test sshd of test/helpers/sshd.ts (read over
// its shared connection: load, free memory, turns running/most) and one that
// cannot be reached (said as away); hidden on a narrow screen.

const it = sshdIt();
const e2e = setUpE2eWorld();

describe("the header's hosts", () => {
  it("shows each host's load, free memory and turns, a host that cannot be reached as away, and nothing when narrow", async () => {
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
    } finally {
      await sshd.stop();
    }
  }, 90_000);
});
