import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { GROVE_BIN, runGrove } from '../helpers/grove-env.js';
import { makeWorkerWorld, type WorkerWorld } from '../helpers/worker-world.js';
import { alive } from '../helpers/processes.js';

// Claude Code sometimes gives its result and then never exits
// (anthropics/claude-code#25629; a Node process can also hang in its own
// exit). The built binary runs `grove run` with a fake `claude` that does
// that ([[linger]]): the turn still ends, with the answer and the work kept,
// and the process is gone.

let world: WorkerWorld;

beforeEach(() => {
  if (!existsSync(GROVE_BIN)) throw new Error(`${GROVE_BIN} is missing: run npm run build first`);
  world = makeWorkerWorld('linger');
});
afterEach(() =>
  rmSync(world.dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 }),
);

it('ends a Claude Code that gave its answer but does not exit, keeps the answer and the work, and says so', async () => {
  const run = await runGrove(world.env, world.repo, [
    'run',
    '--json',
    '[[file:kept.txt]] [[answer:All done]] [[linger]]',
  ]);
  expect(run.out).not.toContain('grove:');
  expect(run.code).toBe(0);
  const result = JSON.parse(run.stdout) as { sessionId: string; answer: string; branch: string };
  expect(result.answer).toBe('All done');
  expect(
    execFileSync('git', ['show', '--name-only', '--format=', result.branch], {
      cwd: world.repo,
      encoding: 'utf8',
    }).trim(),
  ).toBe('kept.txt');
  // The lingering process was there, and is gone.
  const lingered = readdirSync(world.control)
    .filter((name) => name.startsWith('linger-'))
    .map((name) => Number(name.slice('linger-'.length)));
  expect(lingered).toHaveLength(1);
  expect(lingered.filter(alive)).toEqual([]);
  const shown = await runGrove(world.env, world.repo, ['show', '--json', result.sessionId]);
  const transcript = (JSON.parse(shown.stdout) as { transcript: { content: string }[] }).transcript;
  expect(transcript.map((entry) => entry.content)).toContainEqual(
    expect.stringMatching(/^\[Ended\] Claude Code gave its answer but had not exited 10 s later/),
  );
}, 120_000);
