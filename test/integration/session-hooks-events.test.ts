import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { KEY_REJECTED } from '../helpers/fake-model/types.js';
import { waitFor } from '../helpers/review-world.js';
import { hookVars, ownVars, setUpHookWorld } from '../helpers/session-hooks-world.js';

// The session hook's published and failed events (docs/usage/inbox.md,
// "Session hooks"), on real git and SQLite with the real Claude Code CLI
// against the fake model server and the GitHub stand-in: what each run gets
// in its GROVE_* variables. The other events: session-hooks.test.ts.

const hooks = setUpHookWorld({ github: true });

/** The first run of the recorder, once it has run. */
function firstRun(what: string): Promise<Record<string, string>> {
  return waitFor(what, () => hooks.recorded()[0] ?? null, 60_000);
}

describe('session hook events', () => {
  it('runs the published hook once Grove has pushed the branch and opened the pull request', async () => {
    const { w } = hooks;
    const session = await w.session({ files: { 'p.txt': 'p\n' }, message: 'Add p' });

    w.controller.publish(session.id, '');

    const run = await firstRun('the published hook');
    expect(w.github?.pulls.map((p) => p.head)).toEqual([session.branch]);
    expect((await w.get(session.id)).reviewRequest?.number).toBe(1);
    expect(ownVars(w, run)).toEqual(
      await hookVars(w, session, { event: 'published', detail: '', status: 'Review' }),
    );
  }, 120_000);

  it('a confined published hook gets the same GROVE_* variables and never the GitHub token', async () => {
    const { w } = hooks;
    await hooks.setHook('env > hook-env.tmp && mv hook-env.tmp hook-env.txt', false);
    const session = await w.session({ files: { 's.txt': 's\n' }, message: 'Add s' });

    w.controller.publish(session.id, '');

    const file = join(session.worktreePath, 'hook-env.txt');
    const lines = await waitFor(
      'the confined hook',
      () => existsSync(file) && readFileSync(file, 'utf8').split('\n'),
      60_000,
    );
    const grove = Object.fromEntries(
      lines.filter((l) => l.startsWith('GROVE_')).map((l) => l.split(/=(.*)/s).slice(0, 2)),
    ) as Record<string, string>;
    expect(grove).toMatchObject(
      await hookVars(w, session, { event: 'published', detail: '', status: 'Review' }),
    );
    const token = w.env['GITHUB_TOKEN'] ?? '';
    expect(token).not.toBe('');
    expect(lines.join('\n')).not.toContain(token);
  }, 120_000);

  it('runs the failed hook with detail publish when the remote rejects the push', async () => {
    const { w } = hooks;
    const session = await w.session({ files: { 'q.txt': 'q\n' }, message: 'Add q' });
    const hook = join(w.origin, 'hooks', 'pre-receive');
    writeFileSync(hook, '#!/bin/sh\necho "pushes are frozen" >&2\nexit 1\n');
    chmodSync(hook, 0o755);

    w.controller.publish(session.id, '');

    const run = await firstRun('the failed hook');
    expect(ownVars(w, run)).toEqual(
      await hookVars(w, session, { event: 'failed', detail: 'publish', status: 'Review' }),
    );
    expect(w.github?.pulls).toEqual([]);
  }, 120_000);

  it('runs the failed hook with detail turn when the agent CLI ends the turn with an error', async () => {
    const { w } = hooks;
    const session = await w.session({ files: { 'r.txt': 'r\n' }, message: 'Add r' });
    w.server.script('anthropic', [{ when: 'Break please', ...KEY_REJECTED }]);

    expect(await w.controller.submitPrompt(session.id, 'Break please')).toBeNull();

    const run = await firstRun('the failed hook');
    const after = await w.get(session.id);
    const [last] = await w.infra.store.operations.newestFinished(['reply'], [session.id]);
    expect(last?.status).toBe('failed');
    expect(ownVars(w, run)).toEqual(
      await hookVars(w, session, { event: 'failed', detail: 'turn', status: after.status }),
    );
    expect(hooks.recorded()).toHaveLength(1);
  }, 120_000);

  it('runs the failed hook with detail rebase when a rebase stops on conflicts the agent cannot resolve', async () => {
    const { w } = hooks;
    w.commitOnMain({ 'shared.txt': 'one\n' }, 'Add shared.txt');
    const session = await w.session({ files: { 'shared.txt': 'session\n' }, message: 'Edit it' });
    w.commitOnMain({ 'shared.txt': 'main\n' }, 'Main edits it');
    w.server.script('anthropic', [{ when: 'Grove is rebasing this branch onto', ...KEY_REJECTED }]);

    w.controller.rebase(session.id);

    const run = await firstRun('the failed hook');
    expect(ownVars(w, run)).toEqual(
      await hookVars(w, session, { event: 'failed', detail: 'rebase', status: 'Review' }),
    );
  }, 120_000);
});
