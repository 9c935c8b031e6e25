import { afterEach, beforeEach } from 'vitest';
import { git } from '../helpers/grove-env.js';
import { expectExit, harness, reply, type Harness } from './headless-harness.js';
import { ShowSchema } from './headless-schema.js';

// What the headless-run*.test.ts files share: a fresh harness per test (the
// built binary, the real Claude Code, the fake model server, a real
// repository and SQLite store), exported as the live binding `h` (each system
// test file runs in its own process), and the turns and reads they use.

export let h: Harness;

/** Registers the file's hooks: each test gets its own harness, closed after it. */
export function setUpHeadlessRun(): void {
  beforeEach(async () => {
    h = await harness();
  });

  afterEach(async () => {
    await h.close();
  });
}

export function helloTurn(prompt: string, answer = 'I created **hello.txt**.'): void {
  h.utilities();
  h.server.script('anthropic', [
    {
      when: prompt,
      toolCall: { kind: 'write_file', path: 'hello.txt', content: 'hello\nworld\n' },
    },
    { when: prompt, text: reply(answer) },
  ]);
}

export async function showJson(id: string) {
  const run = await h.grove(['show', id, '--json']);
  expectExit(run, 0);
  return ShowSchema.parse(JSON.parse(run.stdout));
}

/** The model requests of a session turn about `task` (the title prompt quotes the task too, and is left out). */
export function turnRequests(task: string) {
  return h.server
    .modelRequests('anthropic')
    .filter(
      (r) =>
        JSON.stringify(r.body).includes(task) && !JSON.stringify(r.body).includes('Write a title'),
    );
}

export function sessionBranches(): string[] {
  return git(h.repo, 'for-each-ref', '--format=%(refname:short)', 'refs/heads/grove/')
    .split('\n')
    .filter(Boolean);
}
