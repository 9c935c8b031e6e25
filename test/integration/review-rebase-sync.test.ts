import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Popup } from '../../src/app/state.js';
import { parseHeadless } from '../../src/cli/args.js';
import { runHeadless } from '../../src/cli/dispatch.js';
import { EXIT, shutdownContexts } from '../../src/cli/headless.js';
import { git } from '../helpers/grove-env.js';
import {
  makeReviewWorld,
  reply,
  waitFor,
  writeFiles,
  type ReviewWorld,
} from '../helpers/review-world.js';

// Keeping work current: `r` rebases a session branch onto its base, `s`
// syncs the project's branch with its upstream (pull --rebase, push).

let w: ReviewWorld;

beforeEach(async () => {
  w = await makeReviewWorld();
});

afterEach(async () => {
  await shutdownContexts();
  await w.close();
});

function statusTrail(sessionId: string): string[] {
  return w.events.flatMap((e) =>
    e.type === 'sessionUpdated' && e.session.id === sessionId ? [e.session.status] : [],
  );
}

async function rebased(sessionId: string): Promise<void> {
  w.controller.rebase(sessionId);
  await waitFor('the rebase to start', () => statusTrail(sessionId).includes('Rebasing'));
  await waitFor('the rebase to end', async () => (await w.get(sessionId)).status !== 'Rebasing');
  await w.controller.workers.idle(sessionId);
}

// The sync service reports facts (syncPlanned, syncFinished, syncStopped…); what the
// person sees is the reducer's popup in the snapshot, read here as the screen would.

/** The sync confirmation on screen, if that is what is shown. */
function shownConfirmation(): (Popup & { kind: 'confirm' }) | undefined {
  const popup = w.app.state.popup;
  return popup?.kind === 'confirm' && popup.intent.kind === 'syncMain' ? popup : undefined;
}

/** The popup that says how a sync ended (or why it did not start), if shown. */
function shownAnswer(): (Popup & { kind: 'info' }) | undefined {
  const popup = w.app.state.popup;
  return popup?.kind === 'info' && !popup.busy ? popup : undefined;
}

/** Closes what is on screen (as Esc does), then presses `s`. */
function pressSync(): void {
  w.app.apply({ type: 'popup', popup: null });
  w.controller.syncMain();
}

/** Presses `s` and waits for the confirmation that says what a sync would do. */
async function syncConfirmation(): Promise<Popup & { kind: 'confirm' }> {
  pressSync();
  return waitFor('the sync confirmation', shownConfirmation);
}

/** Presses `s`, answers yes if it asks, and waits for the popup that says how it ended. */
async function sync(): Promise<Popup & { kind: 'info' }> {
  pressSync();
  const first = await waitFor('the sync to ask or end', () => shownConfirmation() ?? shownAnswer());
  if (first.kind === 'info') return first;
  if (first.intent.kind !== 'syncMain') throw new Error('not a sync confirmation');
  w.controller.confirmSync(first.intent.branch, first.intent.head);
  return waitFor('the sync to end', shownAnswer);
}

describe('session rebase (r)', () => {
  it('rebases the session branch onto main and returns to Review', async () => {
    const session = await w.session({
      files: { 'feature.txt': 'feature\n' },
      message: 'Add the feature',
    });
    const upstreamOfSession = w.commitOnMain({ 'main.txt': 'new on main\n' }, 'Move main on');
    writeFiles(session.worktreePath, { 'wip.txt': 'not yet committed\n' });
    expect(git(w.repo, 'rev-list', '--count', `${session.branch}..main`)).toBe('1');

    await rebased(session.id);

    const after = await w.get(session.id);
    expect(after.status).toBe('Review');
    expect(statusTrail(session.id)).toContain('Rebasing');
    // main's commit is under the session's single commit, which now also holds the pending work.
    expect(git(w.repo, 'rev-parse', `${session.branch}~1`)).toBe(upstreamOfSession);
    expect(git(w.repo, 'rev-list', '--count', `${session.branch}..main`)).toBe('0');
    expect(git(w.repo, 'rev-list', '--count', `main..${session.branch}`)).toBe('1');
    expect(git(w.repo, 'show', `${session.branch}:wip.txt`)).toBe('not yet committed');
    expect(git(w.repo, 'log', '-1', '--format=%s', session.branch)).toBe('Add the feature');
    expect(readFileSync(join(session.worktreePath, 'main.txt'), 'utf8')).toBe('new on main\n');
    expect(git(session.worktreePath, 'status', '--porcelain')).toBe('');
    expect((await w.notices(session.id)).at(-1)).toBe('[Rebase] Rebased onto main.');
    // main itself is untouched.
    expect(git(w.repo, 'rev-parse', 'main')).toBe(upstreamOfSession);
  });

  it('resolves a rebase conflict with the agent and goes back to Question when the agent had asked something', async () => {
    w.commitOnMain({ 'shared.txt': 'one\ntwo\n' }, 'Add shared.txt');
    const session = await w.session({
      files: { 'shared.txt': 'one\nSESSION\n' },
      message: 'Session edit',
    });
    await w.infra.store.sessions.update(
      session.id,
      { questions: [{ text: 'Which colour?', options: ['red', 'blue'] }] },
      Date.now(),
    );
    await w.infra.store.sessions.setStatus(session.id, 'InProgress', Date.now());
    await w.infra.store.sessions.setStatus(session.id, 'Question', Date.now());
    await w.controller.sessions.publishSession(session.id);
    w.commitOnMain({ 'shared.txt': 'one\nMAIN\n' }, 'Main edit');
    w.server.script('anthropic', [
      {
        when: 'Grove is rebasing this branch onto `main`',
        toolCall: { kind: 'write_file', path: 'shared.txt', content: 'one\nMAIN\nSESSION\n' },
      },
      { when: 'Grove is rebasing this branch onto `main`', text: reply('Both kept.') },
    ]);

    await rebased(session.id);

    expect((await w.get(session.id)).status).toBe('Question');
    expect(git(w.repo, 'show', `${session.branch}:shared.txt`)).toBe('one\nMAIN\nSESSION');
    expect(git(w.repo, 'merge-base', session.branch, 'main')).toBe(
      git(w.repo, 'rev-parse', 'main'),
    );
    expect(await w.infra.git.isRebaseInProgress(session.worktreePath)).toBe(false);
    expect((await w.notices(session.id)).at(-1)).toBe('[Rebase] Rebased onto main.');
    // The agent's two requests (the write, then the reply) are the session's, as 'rebase'.
    const usage = await w.infra.store.usage.bySession(session.id);
    expect(
      usage
        .filter((r) => r.role === 'rebase')
        .map((r) => [r.requests, r.inputTokens + r.outputTokens]),
    ).toEqual([[1, 320]]);
    expect((await w.get(session.id)).inputTokens + (await w.get(session.id)).outputTokens).toBe(
      320,
    );
  });

  it('aborts a rebase the agent cannot help with and leaves the branch as it was', async () => {
    w.commitOnMain({ 'shared.txt': 'one\ntwo\n' }, 'Add shared.txt');
    const session = await w.session({
      files: { 'shared.txt': 'one\nSESSION\n' },
      message: 'Session edit',
    });
    w.commitOnMain({ 'shared.txt': 'one\nMAIN\n' }, 'Main edit');
    const head = git(w.repo, 'rev-parse', session.branch);
    w.server.script('anthropic', [
      {
        when: 'Grove is rebasing this branch onto',
        error: {
          status: 401,
          body: {
            type: 'error',
            error: { type: 'authentication_error', message: 'invalid x-api-key' },
          },
        },
      },
    ]);

    await rebased(session.id);

    expect((await w.get(session.id)).status).toBe('Review');
    expect((await w.notices(session.id)).at(-1)).toMatch(
      /^\[Rebase Error\] Conflicts in shared\.txt \(the agent could not help: .*\)\. The rebase was aborted/,
    );
    const id = session.id.slice(0, 8);
    const nextStep = `To go on: resolve the conflicts yourself in the worktree (o opens a shell there, or cd ${session.worktreePath}; then git rebase main), or reply to the agent saying what to keep (Enter, or grove reply ${id}); then rebase again (r, or grove rebase ${id}).`;
    expect((await w.notices(session.id)).at(-1)?.endsWith(nextStep)).toBe(true);
    expect(git(w.repo, 'rev-parse', session.branch)).toBe(head);
    expect(await w.infra.git.isRebaseInProgress(session.worktreePath)).toBe(false);
    expect(git(session.worktreePath, 'status', '--porcelain')).toBe('');
  });
});

describe('grove rebase', () => {
  it('names the next step when the agent cannot resolve the conflicts', async () => {
    w.commitOnMain({ 'shared.txt': 'one\ntwo\n' }, 'Add shared.txt');
    const session = await w.session({
      files: { 'shared.txt': 'one\nSESSION\n' },
      message: 'Session edit',
    });
    w.commitOnMain({ 'shared.txt': 'one\nMAIN\n' }, 'Main edit');
    w.server.script('anthropic', [
      {
        when: 'Grove is rebasing this branch onto',
        error: {
          status: 401,
          body: {
            type: 'error',
            error: { type: 'authentication_error', message: 'invalid x-api-key' },
          },
        },
      },
    ]);
    let err = '';
    const stderr = new PassThrough();
    stderr.on('data', (d: Buffer) => (err += d.toString()));

    const code = await runHeadless(parseHeadless('rebase', [session.id]), w.infra, {
      stdout: new PassThrough(),
      stderr,
      stdin: Object.assign(new PassThrough(), { isTTY: true }),
      stderrIsTTY: false,
      env: process.env,
      cwd: w.repo,
    });

    expect(code).toBe(EXIT.failed);
    const id = session.id.slice(0, 8);
    expect(err).toContain(
      `The rebase was aborted; the branch is as it was. To go on: resolve the conflicts yourself in the worktree (o opens a shell there, or cd ${session.worktreePath}; then git rebase main), or reply to the agent saying what to keep (Enter, or grove reply ${id}); then rebase again (r, or grove rebase ${id}).`,
    );
    // The conflict waits in the inbox (grove inbox --json) for the person's decision.
    let out = '';
    const stdout = new PassThrough();
    stdout.on('data', (d: Buffer) => (out += d.toString()));
    const listed = await runHeadless(parseHeadless('inbox', ['--json']), w.infra, {
      stdout,
      stderr: new PassThrough(),
      stdin: Object.assign(new PassThrough(), { isTTY: true }),
      stderrIsTTY: false,
      env: process.env,
      cwd: w.repo,
    });
    expect(listed).toBe(EXIT.ok);
    const items = (JSON.parse(out) as { kind: string; sessionId: string; text: string }[]).filter(
      (i) => i.sessionId === session.id,
    );
    expect(items.map((i) => i.kind)).toEqual(['conflict']);
    expect(items[0]?.text).toMatch(/^\[Rebase Error\] Conflicts in shared\.txt/);
  });
});

describe('sync main (s)', () => {
  it('asks first, saying what would be pushed where and what would be pulled, and changes nothing until yes', async () => {
    w.pushFromElsewhere({ 'theirs.txt': 'theirs\n' }, 'Their change');
    const ours = w.commitOnMain({ 'ours.txt': 'ours\n' }, 'Our change');
    w.commitOnMain({ 'more.txt': 'more\n' }, 'More of ours');
    const originHead = git(w.origin, 'rev-parse', 'main');

    const popup = await syncConfirmation();

    expect(popup.title).toBe('Sync main with origin/main?');
    expect(popup.lines).toEqual([
      'Push 2 commits from main to origin/main:',
      '  ↑ More of ours',
      '  ↑ Our change',
      'Pull 1 commit from origin/main into main (yours are rebased on top):',
      '  ↓ Their change',
    ]);
    expect(popup.yes).toBe(false);
    expect(git(w.origin, 'rev-parse', 'main')).toBe(originHead);
    expect(git(w.repo, 'rev-parse', 'main~1')).toBe(ours);
  });

  it('does not push when the branch moved after the confirmation was shown', async () => {
    w.commitOnMain({ 'ours.txt': 'ours\n' }, 'Our change');
    const originHead = git(w.origin, 'rev-parse', 'main');
    const { intent } = await syncConfirmation();
    if (intent.kind !== 'syncMain') throw new Error('not a sync confirmation');
    w.commitOnMain({ 'late.txt': 'late\n' }, 'A commit the confirmation did not list');
    const seen = w.events.length;

    w.controller.confirmSync(intent.branch, intent.head);

    const ended = await waitFor('the answer', () =>
      w.events.slice(seen).find((e) => e.type === 'syncStopped'),
    );
    expect(ended).toEqual({ type: 'syncStopped', reason: { kind: 'moved', branch: 'main' } });
    expect((await waitFor('the answer on screen', shownAnswer)).title).toBe('Sync not started');
    expect(git(w.origin, 'rev-parse', 'main')).toBe(originHead);
  });

  it('says there is nothing to do when the branch and its upstream are in step, asking nothing', async () => {
    pressSync();

    const ended = await waitFor('the answer', shownAnswer);
    expect([ended.title, ...ended.lines]).toEqual([
      'Nothing to sync',
      'main and origin/main are in step. Nothing was changed.',
    ]);
  });

  it('pulls incoming commits with rebase and pushes outgoing ones', async () => {
    w.pushFromElsewhere({ 'theirs.txt': 'theirs\n' }, 'Their change');
    const ours = w.commitOnMain({ 'ours.txt': 'ours\n' }, 'Our change');

    const popup = await sync();

    expect(popup.title).toBe('Sync finished');
    expect(popup.lines).toContain('Pulled 1 commit(s) from origin/main:');
    expect(popup.lines).toContain('  ↓ Their change');
    expect(popup.lines).toContain('Pushed 1 commit(s) to origin/main:');
    expect(popup.lines).toContain('  ↑ Our change');
    // Linear history, ours on top of theirs, and origin has it all.
    expect(git(w.repo, 'log', '--format=%s', 'main').split('\n')).toEqual([
      'Our change',
      'Their change',
      'Initial commit',
    ]);
    expect(git(w.repo, 'rev-parse', 'main')).not.toBe(ours);
    expect(git(w.origin, 'rev-parse', 'main')).toBe(git(w.repo, 'rev-parse', 'main'));
    expect(git(w.repo, 'status', '--porcelain')).toBe('');
    expect(git(w.repo, 'rev-parse', '--abbrev-ref', 'HEAD')).toBe('main');
  });

  it('only pulls when nothing is outgoing, and says there was nothing to push', async () => {
    w.pushFromElsewhere({ 'theirs.txt': 'theirs\n' }, 'Their change');

    const popup = await sync();

    expect(popup.title).toBe('Sync finished');
    expect(popup.lines).toContain('Nothing to push.');
    expect(git(w.repo, 'rev-parse', 'main')).toBe(git(w.origin, 'rev-parse', 'main'));
    expect(readFileSync(join(w.repo, 'theirs.txt'), 'utf8')).toBe('theirs\n');
  });

  it('resolves a pull conflict with the main agent, then pushes', async () => {
    w.commitOnMain({ 'shared.txt': 'one\ntwo\n' }, 'Add shared.txt');
    git(w.repo, 'push', '-q', 'origin', 'main');
    w.pushFromElsewhere({ 'shared.txt': 'one\nTHEIRS\n' }, 'Their edit');
    w.commitOnMain({ 'shared.txt': 'one\nOURS\n' }, 'Our edit');
    w.server.script('anthropic', [
      {
        when: 'Grove is rebasing this branch onto `origin/main`',
        toolCall: { kind: 'write_file', path: 'shared.txt', content: 'one\nTHEIRS\nOURS\n' },
      },
      { when: 'Grove is rebasing this branch onto `origin/main`', text: reply('Kept both.') },
    ]);

    const popup = await sync();

    expect(popup.title).toBe('Sync finished');
    expect(popup.lines).toContain('Resolved conflicts in: shared.txt');
    expect(popup.lines).toContain('  ↑ Our edit');
    expect(git(w.repo, 'log', '--format=%s', 'main').split('\n').slice(0, 2)).toEqual([
      'Our edit',
      'Their edit',
    ]);
    expect(git(w.origin, 'show', 'main:shared.txt')).toBe('one\nTHEIRS\nOURS');
    expect(git(w.origin, 'rev-parse', 'main')).toBe(git(w.repo, 'rev-parse', 'main'));
    expect(await w.infra.git.isRebaseInProgress(w.repo)).toBe(false);
    expect(git(w.repo, 'status', '--porcelain')).toBe('');
    // Sync's agent is the project's: counted in the project's total, in no session.
    const rows = await w.infra.store.usage.byProject(w.projectId);
    expect(rows.map((r) => [r.sessionId, r.role, r.inputTokens + r.outputTokens])).toEqual([
      [null, 'sync', 320],
    ]);
    expect(
      (await w.infra.store.usage.totals(w.projectId)).map((t) => t.inputTokens + t.outputTokens),
    ).toEqual([320]);
  });

  it('stops on a conflict that cannot be resolved and puts the branch back', async () => {
    w.commitOnMain({ 'shared.txt': 'one\ntwo\n' }, 'Add shared.txt');
    git(w.repo, 'push', '-q', 'origin', 'main');
    w.pushFromElsewhere({ 'shared.txt': 'one\nTHEIRS\n' }, 'Their edit');
    const ours = w.commitOnMain({ 'shared.txt': 'one\nOURS\n' }, 'Our edit');
    const originHead = git(w.origin, 'rev-parse', 'main');
    w.server.script(
      'anthropic',
      [1, 2, 3].map(() => ({
        when: 'Grove is rebasing this branch onto',
        text: reply('Not sure.'),
      })),
    );

    const popup = await sync();

    expect(popup.title).toBe('Sync stopped');
    expect(popup.lines.join('\n')).toMatch(/conflicts in shared\.txt/);
    expect(popup.lines.join('\n')).toMatch(/aborted; your branch is as it was/);
    expect(git(w.repo, 'rev-parse', 'main')).toBe(ours);
    expect(git(w.origin, 'rev-parse', 'main')).toBe(originHead);
    expect(await w.infra.git.isRebaseInProgress(w.repo)).toBe(false);
    expect(git(w.repo, 'status', '--porcelain')).toBe('');
  });

  it('refuses a dirty checkout and changes nothing', async () => {
    w.pushFromElsewhere({ 'theirs.txt': 'theirs\n' }, 'Their change');
    const ours = w.commitOnMain({ 'ours.txt': 'ours\n' }, 'Our change');
    const originHead = git(w.origin, 'rev-parse', 'main');
    writeFiles(w.repo, { 'README.md': '# edited\n' });

    const popup = await sync();

    expect(popup.title).toBe('Sync stopped');
    expect(popup.lines.join('\n')).toMatch(/has uncommitted changes.*Nothing was changed/);
    expect(git(w.repo, 'rev-parse', 'main')).toBe(ours);
    expect(git(w.origin, 'rev-parse', 'main')).toBe(originHead);
    expect(readFileSync(join(w.repo, 'README.md'), 'utf8')).toBe('# edited\n');
    expect(git(w.repo, 'rev-parse', 'origin/main')).toBe(git(w.repo, 'rev-parse', 'main~1'));
  });

  it('says how to set an upstream when the branch has none, and when the checkout is detached', async () => {
    git(w.repo, 'branch', '--unset-upstream');
    const head = git(w.repo, 'rev-parse', 'HEAD');

    const noUpstream = await sync();
    expect(noUpstream.title).toBe('Sync stopped');
    expect(noUpstream.lines).toEqual([
      'main has no upstream branch. Set one with: git push -u origin main',
    ]);

    git(w.repo, 'checkout', '-q', '--detach');
    const detached = await sync();
    expect(detached.title).toBe('Sync stopped');
    expect(detached.lines.join('\n')).toMatch(/detached HEAD.*Nothing was changed/);
    expect(git(w.repo, 'rev-parse', 'HEAD')).toBe(head);
  });
});
