import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { git } from '../helpers/grove-env.js';
import { expectExit, harness, reply, type Harness } from './headless-harness.js';

// A new session's id is drawn at random; its branch is grove/<first 8 hex
// digits>. When that branch (or the worktree folder) is already there, Grove
// must draw again, and a failed start must never delete what it did not
// make. The collision is forced with a preload in the real binary: the
// process's first randomUUID() (the session's id) starts with deadbeef.

let h: Harness;
let preload: string;

beforeEach(async () => {
  h = await harness();
  preload = join(h.world.dir, 'first-id-deadbeef.cjs');
  writeFileSync(
    preload,
    [
      "const crypto = require('node:crypto');",
      'const real = crypto.randomUUID;',
      'let first = true;',
      // The agent CLIs Grove starts are node programs too: not theirs.
      'delete process.env.NODE_OPTIONS;',
      'crypto.randomUUID = function (...args) {',
      '  const id = real.apply(crypto, args);',
      "  if (first) { first = false; return 'deadbeef' + id.slice(8); }",
      '  return id;',
      '};',
    ].join('\n'),
  );
});

afterEach(async () => {
  await h.close();
});

const collide = (): { env: Record<string, string> } => ({
  env: { NODE_OPTIONS: `--require ${preload}` },
});

/** The person's own branch grove/deadbeef, with a commit of theirs that is on no other branch. */
function usersBranch(): string {
  git(h.repo, 'checkout', '-q', '-b', 'grove/deadbeef');
  writeFileSync(join(h.repo, 'notes.txt'), 'my own work\n');
  git(h.repo, 'add', 'notes.txt');
  git(h.repo, 'commit', '-q', '-m', 'My own work');
  const tip = git(h.repo, 'rev-parse', 'HEAD');
  git(h.repo, 'checkout', '-q', 'main');
  return tip;
}

describe('a new session id that collides with what is already there', () => {
  it('a failed start leaves the person’s branch grove/<id> and its commit as they were', async () => {
    const tip = usersBranch();
    // The start fails: the base branch has no commit yet.
    git(h.repo, 'checkout', '-q', '--orphan', 'fresh');

    const run = await h.grove(['run', 'Do something'], collide());

    expectExit(run, 1);
    expect(run.stderr).toContain('No session was started.');
    expect(git(h.repo, 'rev-parse', 'refs/heads/grove/deadbeef')).toBe(tip);
    expect(git(h.repo, 'show', `${tip}:notes.txt`)).toBe('my own work');
    expect(git(h.repo, 'for-each-ref', '--format=%(refname:short)', 'refs/heads/grove/')).toBe(
      'grove/deadbeef',
    );
  });

  it('draws another id, so the session runs on a branch of its own and the person’s branch and folder stay', async () => {
    const tip = usersBranch();
    const folder = join(h.world.groveHome, 'wt', 'project-deadbeef');
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, 'mine.txt'), 'keep me\n');
    h.utilities();
    h.server.script('anthropic', [{ when: 'Say hello', text: reply('Hello.') }]);

    const run = await h.grove(['run', 'Say hello', '--output', 'json'], collide());

    expectExit(run, 0);
    const result = JSON.parse(run.stdout) as { branch: string; worktree: string };
    expect(result.branch).toMatch(/^grove\/[0-9a-f]{8}$/);
    expect(result.branch).not.toBe('grove/deadbeef');
    expect(result.worktree).not.toBe(folder);
    expect(git(h.repo, 'rev-parse', 'refs/heads/grove/deadbeef')).toBe(tip);
    expect(readFileSync(join(folder, 'mine.txt'), 'utf8')).toBe('keep me\n');
    expect(existsSync(join(folder, '.git'))).toBe(false);
  });
});
