import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { agentEnv } from '../helpers/agent-env.js';
import { startFakeModelServer, type FakeModelServer } from '../helpers/fake-model/server.js';
import {
  agentWorldEnv,
  git,
  makeRepo,
  makeWorld,
  newSession,
  startGrove,
  type GroveWorld,
} from '../helpers/grove-env.js';
import { onlyCliPath } from '../helpers/real-clis.js';
import type { TmuxTerminal } from '../helpers/tmux.js';

// A person starts a Codex session in the TUI; Codex, confined by Grove,
// runs a shell command in its worktree through its own sandbox (which needs
// the private, writable /tmp Grove gives it).

const reply = (answer: string) =>
  JSON.stringify({ answer, questions: [], summary: { turn: answer, session: answer } });

let world: GroveWorld;
let server: FakeModelServer;
let term: TmuxTerminal | null = null;
let repo: string;

beforeEach(async () => {
  world = makeWorld();
  server = await startFakeModelServer();
  repo = makeRepo(world);
});

afterEach(async () => {
  await term?.kill();
  term = null;
  await server.close();
  world.cleanup();
});

describe('a Codex session in the TUI', () => {
  it('runs a shell command in its worktree under confinement and commits the result', async () => {
    // Codex is the only agent CLI on PATH, so it is the main agent.
    server.script('openai', [
      { when: 'Write a title for a coding task', text: reply('Make a file with a command') },
      { when: 'Write the git commit message', text: reply('Add made.txt') },
      {
        when: 'Make made.txt with printf',
        toolCall: { kind: 'shell', command: "printf 'made by codex\\n' > made.txt" },
      },
      { when: 'Make made.txt with printf', text: reply('Made made.txt.') },
    ]);
    const env = agentWorldEnv(world, agentEnv(server, world.home));
    env['PATH'] = onlyCliPath(world.dir, 'codex');
    term = await startGrove(world, repo, { env, columns: 120, rows: 34 });
    await term.waitFor('No sessions yet.');

    await newSession(term, 'Make made.txt with printf');
    await term.waitFor('Made made.txt.', 60_000);
    await term.waitFor('[Commit] Add made.txt', 20_000);

    const branch = git(repo, 'for-each-ref', '--format=%(refname:short)', 'refs/heads/grove/');
    expect(git(repo, 'show', `${branch}:made.txt`)).toBe('made by codex');
    const worktree = git(repo, 'worktree', 'list', '--porcelain')
      .split('\n')
      .filter((l) => l.startsWith('worktree '))
      .map((l) => l.slice('worktree '.length))
      .find((p) => p !== repo);
    expect(readFileSync(join(worktree ?? '', 'made.txt'), 'utf8')).toBe('made by codex\n');
  });
});
