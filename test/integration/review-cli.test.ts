import { hostname } from 'node:os';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { agentEnv } from '../helpers/agent-env.js';
import { startFakeModelServer, type FakeModelServer } from '../helpers/fake-model/server.js';
import {
  GROVE_BIN,
  agentWorldEnv,
  git,
  makeRepo,
  makeWorld,
  type GroveWorld,
} from '../helpers/grove-env.js';
import { reply } from '../helpers/review-world.js';
import { waitUntil } from '../helpers/wait.js';

// The same review-and-land workflows through the built headless commands
// (dist/grove.js, built by `npm test` before the suite runs).

let world: GroveWorld;
let server: FakeModelServer;
let repo: string;

beforeEach(async () => {
  world = makeWorld();
  server = await startFakeModelServer();
  repo = makeRepo(world, 'project', true);
  server.script('anthropic', [
    { when: 'Write a title for a coding task', text: reply('Write the notes') },
    {
      when: 'Write the git commit message for the changes',
      text: reply('Add notes\n\nNotes for the team.'),
    },
  ]);
});

afterEach(async () => {
  await server.close();
  world.cleanup();
});

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the built binary without blocking this process (the fake model server lives here). */
function grove(...args: string[]): Promise<Run> {
  const env = { ...agentWorldEnv(world, agentEnv(server, world.home)), HOME: world.home };
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [GROVE_BIN, ...args],
      { cwd: repo, env, timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

async function runSession(
  prompt: string,
): Promise<{ id: string; branch: string; worktree: string }> {
  server.script('anthropic', [
    {
      when: prompt,
      toolCall: { kind: 'write_file', path: 'notes.md', content: '# Notes\n\none\n' },
    },
    { when: prompt, text: reply('Wrote notes.md') },
  ]);
  const run = await grove('run', '--output', 'json', prompt);
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  const result = JSON.parse(run.stdout) as {
    sessionId: string;
    branch: string;
    worktree: string;
    status: string;
  };
  expect(result.status).toBe('Review');
  return { id: result.sessionId, branch: result.branch, worktree: result.worktree };
}

describe('headless review commands', () => {
  it('grove diff shows committed, uncommitted and binary changes; grove merge lands the session', async () => {
    const s = await runSession('Write the notes please');
    writeFileSync(join(s.worktree, 'notes.md'), '# Notes\n\none\ntwo\n');
    writeFileSync(
      join(s.worktree, 'logo.png'),
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 1, 2, 0]),
    );
    const cached = git(s.worktree, 'diff', '--cached');
    const status = git(s.worktree, 'status', '--porcelain');

    const diff = await grove('diff', s.id.slice(0, 8));

    expect(diff.code).toBe(0);
    expect(diff.stdout).toContain('+++ b/notes.md');
    expect(diff.stdout).toContain('+two');
    expect(diff.stdout).toMatch(/Binary files \/dev\/null and b\/logo\.png differ/);
    expect(git(s.worktree, 'diff', '--cached')).toBe(cached);
    expect(git(s.worktree, 'status', '--porcelain')).toBe(status);

    const merge = await grove('merge', s.id.slice(0, 8));

    expect(merge.code).toBe(0);
    const head = git(repo, 'rev-parse', 'main');
    expect(merge.stdout.trim()).toBe(`Done ${head}`);
    expect(git(repo, 'log', '-1', '--format=%s', 'main')).toBe('Add notes');
    expect(git(repo, 'show', 'main:notes.md')).toBe('# Notes\n\none\ntwo');
    expect(git(repo, 'cat-file', '-t', 'main:logo.png')).toBe('blob');
    expect(existsSync(s.worktree)).toBe(false);
    expect(git(repo, 'branch', '--list', s.branch)).toBe('');
    const show = JSON.parse((await grove('show', '--json', s.id)).stdout) as { status: string };
    expect(show.status).toBe('Done');
  });

  it('grove merge waits while another session of the project is merging (another process), then lands', async () => {
    const a = await runSession('Write the notes');
    const b = await runSession('Write other notes');
    const db = new Database(join(world.groveHome, 'db', 'grove.db'));
    const status = (id: string): unknown =>
      db.prepare('SELECT status FROM session WHERE id = ?').pluck().get(id);
    try {
      // Another Grove process (this test process, alive) is merging b: its status and its running operation are what every process sees.
      db.prepare("UPDATE session SET status = 'Merging' WHERE id = ?").run(b.id);
      const now = Date.now();
      db.prepare(
        "INSERT INTO session_operation (id, session_id, kind, status, owner, heartbeat_at, queued_at, started_at) VALUES ('other-merge', ?, 'merge', 'running', ?, ?, ?, ?)",
      ).run(b.id, `${hostname()}:${process.pid}`, now, now, now);
      const before = git(repo, 'rev-parse', 'main');
      const merging = grove('merge', a.id);
      // The merge has said it is waiting: it holds the session in Queued.
      const notices = (): unknown[] =>
        db
          .prepare("SELECT content FROM session_message WHERE session_id = ? AND kind = 'notice'")
          .pluck()
          .all(a.id);
      let ended: { code: number | null; stderr: string } | undefined;
      void merging.then((r) => (ended = r));
      await waitUntil('the merge says it is waiting', () => {
        if (ended) throw new Error(`grove merge ended early (${ended.code}): ${ended.stderr}`);
        return notices().some((n) =>
          String(n).includes('Waiting for the merge of another session'),
        );
      });
      expect(status(a.id)).toBe('Queued');
      expect(git(repo, 'rev-parse', 'main')).toBe(before);

      // The other merge ends: this one goes ahead.
      db.prepare("UPDATE session SET status = 'Review' WHERE id = ?").run(b.id);
      db.prepare(
        "UPDATE session_operation SET status = 'done', finished_at = ? WHERE id = 'other-merge'",
      ).run(Date.now());
      const result = await merging;
      expect(result.code, result.stderr).toBe(0);
      const notes = db
        .prepare("SELECT content FROM session_message WHERE session_id = ? AND kind = 'notice'")
        .pluck()
        .all(a.id);
      expect(notes).toContain(
        '[Merge] Waiting for the merge of another session of this project to finish.',
      );
      expect(status(a.id)).toBe('Done');
      expect(git(repo, 'show', 'main:notes.md')).toBe('# Notes\n\none');
    } finally {
      db.close();
    }
  });

  it('grove cancel says what would happen, then with --yes keeps the dirty work on the branch', async () => {
    const s = await runSession('Write the notes now');
    writeFileSync(join(s.worktree, 'idea.txt'), 'unsaved idea\n');

    const dry = await grove('cancel', s.id);
    expect(dry.code).toBe(2);
    expect(dry.stderr).toMatch(/1 uncommitted change\(s\) and 1 commit\(s\) not on main/);
    expect(dry.stderr).toContain('--yes');
    expect(existsSync(join(s.worktree, 'idea.txt'))).toBe(true);

    const done = await grove('cancel', '--yes', s.id);

    expect(done.code).toBe(0);
    expect(done.stdout.trim()).toBe(`Canceled (work kept on branch ${s.branch})`);
    expect(existsSync(s.worktree)).toBe(false);
    expect(git(repo, 'show', `${s.branch}:idea.txt`)).toBe('unsaved idea');
    expect(git(repo, 'show', `${s.branch}:notes.md`)).toBe('# Notes\n\none');
    const show = await grove('show', s.id);
    expect(show.stdout).toContain(
      `kept branch ${s.branch} (restore: git worktree add ../${s.branch.replace('/', '-')} ${s.branch})`,
    );
    expect(readFileSync(join(repo, 'README.md'), 'utf8')).toBe('# project\n');
  });
});
