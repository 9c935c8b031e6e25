import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openInfra, type Infra } from '../../src/compose.js';
import { SessionActions, withForkContext } from '../../src/app/services/session-actions.js';
import type { Session } from '../../src/domain/session.js';
import { shellRunner } from '../../src/infra/shell.js';
import { startGroveApp, type GroveApp } from '../helpers/grove-app.js';

// Drafts, forks and continuing a finished session, on a real SQLite file and
// real git repositories. No agent runs: a started draft's first prompt is
// recorded where the worker would pick it up.

let dir: string;
let repo: string;
let infra: Infra;
let grove: GroveApp;
let actions: SessionActions;
let started: { sessionId: string; prompt: string; display: string }[];

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();
}

beforeEach(async () => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'grove-actions-')));
  repo = join(dir, 'project');
  mkdirSync(repo, { recursive: true });
  mkdirSync(join(dir, 'home'), { recursive: true });
  git(repo, 'init', '-q', '-b', 'main');
  git(repo, 'config', 'user.name', 'Grove Test');
  git(repo, 'config', 'user.email', 'test@grove.invalid');
  writeFileSync(join(repo, 'README.md'), '# project\n');
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'Initial commit');
  infra = openInfra({
    PATH: process.env['PATH'] ?? '/usr/bin:/bin',
    HOME: join(dir, 'home'),
    GROVE_HOME: join(dir, 'grove-home'),
    LANG: 'C.UTF-8',
  });
  grove = await startGroveApp(infra, repo);
  started = [];
  actions = new SessionActions({
    app: grove.app,
    store: infra.store,
    git: infra.git,
    shell: shellRunner,
    runtime: infra.runtime,
    sessions: grove.controller.sessions,
    enqueueStart: (sessionId, prompt, display) => {
      started.push({ sessionId, prompt, display });
      return Promise.resolve();
    },
    refreshDiff: (sessionId) => grove.controller.turns.refreshDiff(sessionId),
  });
});

afterEach(async () => {
  await grove.controller.shutdown();
  await infra.db.close();
  rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
});

async function newSession(): Promise<Session> {
  const session = await grove.controller.sessions.create(
    grove.project.id,
    { agent: 'claude', model: 'sonnet', reasoning: 'medium' },
    {},
  );
  await grove.controller.sessions.whenReady(session.id);
  return session;
}

async function reload(id: string): Promise<Session> {
  const session = await infra.store.sessions.get(id);
  if (!session) throw new Error(`session ${id} is gone`);
  return session;
}

describe('draft sessions', () => {
  it('keeps the prompt of a saved draft and removes its worktree and branch until it starts', async () => {
    const session = await newSession();

    await actions.saveAsDraft(session.id, 'Write the changelog');

    const saved = await reload(session.id);
    expect(saved.status).toBe('Draft');
    expect(saved.prompt).toBe('Write the changelog');
    expect(existsSync(session.worktreePath)).toBe(false);
    expect(git(repo, 'branch', '--list', session.branch)).toBe('');
  });

  it('makes the worktree from the base branch as it is when the draft starts, then queues its prompt', async () => {
    const session = await newSession();
    await actions.saveAsDraft(session.id, 'Write the changelog');
    writeFileSync(join(repo, 'LATER.md'), 'committed after the draft was saved\n');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'Later work on main');

    await actions.startDraft(session.id);

    expect(existsSync(join(session.worktreePath, 'LATER.md'))).toBe(true);
    expect(git(session.worktreePath, 'rev-parse', '--abbrev-ref', 'HEAD')).toBe(session.branch);
    expect(started).toEqual([
      { sessionId: session.id, prompt: 'Write the changelog', display: 'Write the changelog' },
    ]);
  });

  it('starts every saved draft of the project and leaves sessions that are not drafts alone', async () => {
    const first = await newSession();
    const second = await newSession();
    const plain = await newSession();
    await actions.saveAsDraft(first.id, 'First task');
    await actions.saveAsDraft(second.id, 'Second task');
    for (const id of [first.id, second.id, plain.id])
      await grove.controller.sessions.publishSession(id);
    await new Promise((resolve) => setImmediate(resolve));

    const count = await actions.startDrafts(null);

    expect(count).toBe(2);
    expect(started.map((s) => s.sessionId).sort()).toEqual([first.id, second.id].sort());
  });
});

describe('fork', () => {
  it("starts the fork from the parent's branch and uncommitted work without changing the parent", async () => {
    const parent = await newSession();
    writeFileSync(join(parent.worktreePath, 'committed.txt'), 'on the branch\n');
    git(parent.worktreePath, 'add', '-A');
    git(parent.worktreePath, 'commit', '-q', '-m', 'Parent work');
    const parentHead = git(parent.worktreePath, 'rev-parse', 'HEAD');
    writeFileSync(join(parent.worktreePath, 'uncommitted.txt'), 'not committed yet\n');

    const child = await actions.fork(parent.id);

    expect(readFileSync(join(child.worktreePath, 'committed.txt'), 'utf8')).toBe('on the branch\n');
    expect(readFileSync(join(child.worktreePath, 'uncommitted.txt'), 'utf8')).toBe(
      'not committed yet\n',
    );
    expect(git(parent.worktreePath, 'rev-parse', 'HEAD')).toBe(parentHead);
    expect(git(parent.worktreePath, 'status', '--porcelain')).toBe('?? uncommitted.txt');
    expect(child.baseBranch).toBe(parent.baseBranch);
    expect(child.branch).not.toBe(parent.branch);
  });

  it('stores the parent link and puts the parent summary before the first prompt', async () => {
    const parent = await newSession();
    await infra.store.sessions.update(
      parent.id,
      {
        title: 'Add the parser',
        summary: { turn: 'Added tests', session: 'Parser added with tests for every rule' },
      },
      infra.clock.now(),
    );

    const child = await actions.fork(parent.id);

    const stored = await reload(child.id);
    expect(stored.parentSessionId).toBe(parent.id);
    const prompt = withForkContext(stored, 'Now add error messages');
    expect(prompt).toContain('Parser added with tests for every rule');
    expect(prompt.endsWith('Now add error messages')).toBe(true);
  });

  it("uses the parent's last answer as context when it has no summary, bounded", async () => {
    const parent = await newSession();
    await infra.store.transcript.append(
      parent.id,
      'assistant_answer',
      `The answer. ${'x'.repeat(5000)}`,
      infra.clock.now(),
    );

    const child = await actions.fork(parent.id);

    const context = (await reload(child.id)).forkContext ?? '';
    expect(context).toContain('The answer.');
    expect(context.length).toBeLessThan(2400);
  });
});

describe('continue', () => {
  it('makes the worktree of a canceled session again from its kept branch and moves it to Review', async () => {
    const session = await newSession();
    writeFileSync(join(session.worktreePath, 'kept.txt'), 'kept work\n');
    git(session.worktreePath, 'add', '-A');
    git(session.worktreePath, 'commit', '-q', '-m', 'Kept work');
    git(repo, 'worktree', 'remove', '--force', session.worktreePath);
    await infra.store.sessions.update(
      session.id,
      { keptBranch: session.branch, prompt: 'task' },
      infra.clock.now(),
    );
    await infra.store.sessions.setStatus(session.id, 'Canceled', infra.clock.now());

    await actions.continueSession(session.id);

    const continued = await reload(session.id);
    expect(continued.status).toBe('Review');
    expect(continued.keptBranch).toBeNull();
    expect(readFileSync(join(session.worktreePath, 'kept.txt'), 'utf8')).toBe('kept work\n');
  });

  it('gives a merged, Done session a new branch from the base branch that holds its work', async () => {
    const session = await newSession();
    writeFileSync(join(repo, 'merged.txt'), 'merged work\n');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'Squash-merged work');
    git(repo, 'worktree', 'remove', '--force', session.worktreePath);
    git(repo, 'branch', '-D', session.branch);
    await infra.store.sessions.update(session.id, { prompt: 'task' }, infra.clock.now());
    await infra.store.sessions.setStatus(session.id, 'InProgress', infra.clock.now());
    await infra.store.sessions.setStatus(session.id, 'Review', infra.clock.now());
    await infra.store.sessions.setStatus(session.id, 'Done', infra.clock.now());

    await actions.continueSession(session.id);

    expect((await reload(session.id)).status).toBe('Review');
    expect(readFileSync(join(session.worktreePath, 'merged.txt'), 'utf8')).toBe('merged work\n');
    expect(git(session.worktreePath, 'rev-parse', '--abbrev-ref', 'HEAD')).toBe(session.branch);
  });
});
