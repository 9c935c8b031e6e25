import { expect } from 'vitest';
import { agentEnv } from './agent-env.js';
import { startClaudeHost, type ClaudeHost } from './claude-host.js';
import type { E2eWorld } from './e2e-world.js';
import { reply } from './fake-model/reply.js';
import { gate, type FakeModelServer, type Gate } from './fake-model/server.js';
import { agentWorldEnv, makeRepo, runGrove, type GroveRun } from './grove-env.js';

// The set-up of an e2e test of a session on a host (issue 24): a project
// here, the test sshd with the real Claude Code for its second user
// (claude-host.ts), and the variables the built binary gets (the real agent
// CLIs, the fake model server, the host's ssh config).

export interface HostE2e {
  readonly host: ClaudeHost;
  readonly repo: string;
  /** Grove's variables, for `startGrove`'s `env` and `runGrove`. */
  readonly env: Record<string, string>;
  /** Runs the built binary in the project to its end. */
  readonly grove: (args: readonly string[]) => Promise<GroveRun>;
  /** The project's only session's transcript, `kind: content` a line (`grove show --json`); empty before it exists. */
  readonly transcript: () => Promise<string[]>;
}

/**
 * Runs `test` with a project and a Claude Code host, added as `build` with
 * Grove's folder `root` there unless `add` is false (the test adds it
 * itself). After it: the Grove in tmux killed, the host back up if the test
 * left it down, and the host's side removed (`ClaudeHost.close`).
 */
export async function withClaudeHost(
  e2e: E2eWorld,
  root: string,
  test: (h: HostE2e) => Promise<void>,
  options: { readonly add?: boolean } = {},
): Promise<void> {
  const host = await startClaudeHost(e2e.server.url);
  try {
    const repo = makeRepo(e2e.world);
    const env = {
      ...agentWorldEnv(e2e.world, agentEnv(e2e.server, e2e.world.home)),
      GROVE_SSH_CONFIG: host.sshd.config,
    };
    const grove = (args: readonly string[]): Promise<GroveRun> =>
      runGrove(e2e.world.env(env), repo, args);
    if (options.add ?? true) {
      const added = await grove(['host', 'add', 'build', host.sshd.alias, '--root', root]);
      expect(added.code, added.out).toBe(0);
    }
    await test({
      host,
      repo,
      env,
      grove,
      transcript: async () => {
        const listed = JSON.parse((await grove(['ls', '--json'])).stdout) as {
          sessionId: string;
        }[];
        const id = listed[0]?.sessionId;
        if (id === undefined) return [];
        const shown = JSON.parse((await grove(['show', id, '--json'])).stdout) as {
          transcript: { kind: string; content: string }[];
        };
        return shown.transcript.map((e) => `${e.kind}: ${e.content}`);
      },
    });
  } finally {
    await e2e.term?.kill();
    e2e.term = null;
    await host.sshd.up();
    await host.close(root);
  }
}

/** A turn of the agent held mid-way by the test (see `heldTurn`). */
export interface HeldTurn {
  /** Requests that carry this text take the steps. */
  readonly when: string;
  /** The agent first runs `echo STEP`. */
  readonly step: string;
  /** Then, once the gate opens, writes `text` and a newline to `file` in its worktree. */
  readonly file: string;
  readonly text: string;
  /** And answers this. */
  readonly answer: string;
}

/** Scripts `turn` on the fake model server; the returned gate lets the agent go on past its first step. */
export function heldTurn(server: FakeModelServer, turn: HeldTurn): Gate {
  const resume = gate();
  server.script('anthropic', [
    { when: turn.when, toolCall: { kind: 'shell', command: `echo ${turn.step}` } },
    {
      when: turn.when,
      until: resume.opened,
      then: { toolCall: { kind: 'shell', command: `printf '${turn.text}\\n' > ${turn.file}` } },
    },
    { when: turn.when, text: reply(turn.answer) },
  ]);
  return resume;
}

/** How many of the agent's model requests (not the title's) carried `text`. */
export function turnRequests(server: FakeModelServer, text: string): number {
  return server
    .modelRequests('anthropic')
    .map((r) => JSON.stringify(r.body))
    .filter((b) => b.includes(text) && !b.includes('Write a title for a coding task')).length;
}
