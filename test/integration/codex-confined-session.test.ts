import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { git } from '../helpers/grove-env.js';
import { onlyCliPath } from '../helpers/real-clis.js';
import { expectExit, harness, reply, type Harness } from './headless-harness.js';
import { ResultSchema } from './headless-schema.js';

// A real Codex session under Grove's confinement runs shell commands in its
// worktree: Codex starts its own sandbox inside Grove's, which needs a
// writable /tmp (its /tmp/codex-daemon-<uid> folder and a lock under
// /tmp/codex-bwrap-synthetic-mount-targets-<uid>/). The agent's /tmp is
// private and starts empty, as on a machine where Codex never ran.

let h: Harness;

beforeEach(async () => {
  h = await harness();
});

afterEach(async () => {
  await h.close();
});

/** In the body of a request of the session's turn: Codex states its sandbox there. */
const WORKSPACE_WRITE = 'workspace-write';

/** What Codex told the model its commands printed, for a failure's message. */
function commandOutputs(): string {
  return JSON.stringify(
    h.server
      .modelRequests('openai')
      .flatMap((r) => ((r.body as { input?: unknown[] }).input ?? []) as { type?: string }[])
      .filter((item) => item.type === 'function_call_output'),
  );
}

/** A PATH on which Codex is the only agent CLI. */
function codexOnlyPath(): Record<string, string> {
  return { PATH: onlyCliPath(h.world.dir, 'codex') };
}

describe('a confined Codex session', () => {
  it('runs shell commands in its worktree from grove run and grove reply, and the work lands on its branch', async () => {
    const env = codexOnlyPath();
    const first = 'Write the first file with a command';
    h.server.script('openai', [
      { when: 'Write a title for a coding task', text: reply('Files from commands') },
      { when: 'Write the git commit message', text: reply('Add files made by commands') },
      // The session's own turn (workspace-write), never a side call (read-only) that quotes the prompt.
      {
        when: WORKSPACE_WRITE,
        toolCall: { kind: 'shell', command: "printf 'made\\n' > made.txt" },
      },
      { when: WORKSPACE_WRITE, text: reply('Made it.') },
    ]);

    const run = await h.grove(['run', '--output', 'json', first], { env });

    expectExit(run, 0);
    const result = ResultSchema.parse(JSON.parse(run.stdout));
    expect(result.agent).toBe('codex');
    expect(existsSync(join(result.worktree, 'made.txt')), commandOutputs()).toBe(true);
    expect(readFileSync(join(result.worktree, 'made.txt'), 'utf8')).toBe('made\n');
    expect(git(h.repo, 'show', `${result.branch}:made.txt`)).toBe('made');

    const second = 'Now run the tests with a command';
    h.server.script('openai', [
      { when: 'Write the git commit message', text: reply('Add the test output') },
      {
        when: WORKSPACE_WRITE,
        toolCall: { kind: 'shell', command: "sh -c 'echo tested' > tested.txt" },
      },
      { when: WORKSPACE_WRITE, text: reply('Tested.') },
    ]);

    const replied = await h.grove(['reply', result.sessionId, '--output', 'json', second], { env });

    expectExit(replied, 0);
    expect(existsSync(join(result.worktree, 'tested.txt')), commandOutputs()).toBe(true);
    expect(readFileSync(join(result.worktree, 'tested.txt'), 'utf8')).toBe('tested\n');
    expect(git(h.repo, 'show', `${result.branch}:tested.txt`)).toBe('tested');
  });
});
