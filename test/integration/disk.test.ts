import { execFileSync } from 'node:child_process';
import { lstatSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseHeadless } from '../../src/cli/args.js';
import { runHeadless } from '../../src/cli/dispatch.js';
import { DAY_MS } from '../../src/domain/gc.js';
import type { Session } from '../../src/domain/session.js';
import { SHARE_MODE_KEY, SHARED_FOLDERS_KEY } from '../../src/domain/shared-folders.js';
import { makeReviewWorld, waitFor, writeFiles, type ReviewWorld } from '../helpers/review-world.js';
import { GcSchema, ListSchema, ShowSchema } from './headless-schema.js';

// The disk a session's worktree takes, as headless commands report it on a
// real file system: `diskBytes` in `grove ls --json` and `grove show --json`
// counted as `du -s` counts it, and `grove gc` saying what is shared.

let w: ReviewWorld;
const MB = 1024 * 1024;

beforeEach(async () => {
  w = await makeReviewWorld();
  // 4 MB of dependencies in the main checkout, ignored by git.
  writeFiles(w.repo, { 'node_modules/big/blob.bin': Buffer.alloc(4 * MB, 7) });
  w.commitOnMain({ '.gitignore': 'node_modules\n' }, 'Ignore node_modules');
  w.controller.setSetting(SHARED_FOLDERS_KEY, 'node_modules');
  w.controller.setSetting(SHARE_MODE_KEY, 'symlink');
  await waitFor(
    'the settings to be stored',
    async () =>
      (await w.infra.store.settings.getProject(w.projectId, SHARE_MODE_KEY)) === 'symlink',
  );
});

afterEach(async () => {
  await w.close();
});

async function grove(
  command: Parameters<typeof parseHeadless>[0],
  ...args: string[]
): Promise<{ code: number; out: string }> {
  const stdout = new PassThrough();
  let out = '';
  stdout.on('data', (d: Buffer) => (out += d.toString()));
  const code = await runHeadless(parseHeadless(command, args), w.infra, {
    stdout,
    stderr: new PassThrough(),
    stdin: Object.assign(new PassThrough(), { isTTY: true }),
    stderrIsTTY: false,
    env: process.env,
    cwd: w.repo,
  });
  return { code, out };
}

/** `du -s` in bytes (allocated blocks), the figure diskBytes must match. */
function du(path: string): number {
  return Number(execFileSync('du', ['-s', '-B1', path], { encoding: 'utf8' }).split('\t')[0]);
}

async function sharedSession(): Promise<Session> {
  await w.controller.sessions.create(
    w.projectId,
    { agent: 'claude', model: 'sonnet', reasoning: 'high' },
    { ...w.app.state.settings, [SHARED_FOLDERS_KEY]: 'node_modules', [SHARE_MODE_KEY]: 'symlink' },
  );
  const session = (await w.infra.store.sessions.listLive(w.projectId))[0];
  if (!session) throw new Error('no session');
  await w.controller.sessions.whenReady(session.id);
  expect(lstatSync(join(session.worktreePath, 'node_modules')).isSymbolicLink()).toBe(true);
  return session;
}

describe('diskBytes', () => {
  it('is the worktree as du counts it: a linked shared folder counts nothing, a new file counts', async () => {
    const session = await sharedSession();
    writeFiles(session.worktreePath, { 'build/out.bin': Buffer.alloc(2 * MB, 1) });

    const ls = ListSchema.parse(JSON.parse((await grove('ls', '-C', w.repo, '--json')).out));
    const show = ShowSchema.parse(JSON.parse((await grove('show', session.id, '--json')).out));

    const bytes = du(session.worktreePath);
    expect(ls.find((s) => s.sessionId === session.id)?.diskBytes).toBe(bytes);
    expect(show.diskBytes).toBe(bytes);
    expect(bytes).toBeGreaterThanOrEqual(2 * MB);
    expect(bytes).toBeLessThan(4 * MB);
  });
});

describe('grove gc and shared folders', () => {
  it('says a linked folder counts nothing, and removes only the link', async () => {
    const session = await sharedSession();
    await w.infra.store.sessions.setStatus(session.id, 'Canceled', w.infra.clock.now());
    await w.infra.db.kysely
      .updateTable('session')
      .set({ updated_at: w.infra.clock.now() - 30 * DAY_MS })
      .where('id', '=', session.id)
      .execute();

    const dry = GcSchema.parse(
      JSON.parse((await grove('gc', '-C', w.repo, '--dry-run', '--json')).out),
    );
    expect(dry.items[0]?.shared).toEqual([{ path: 'node_modules', kind: 'link', bytes: 0 }]);
    expect(dry.items[0]?.bytes).toBeLessThan(4 * MB);

    const { out } = await grove('gc', '-C', w.repo);
    expect(out).toContain(
      'shared: node_modules is a link into the main checkout (not counted; only the link goes)',
    );
    expect(() => lstatSync(session.worktreePath)).toThrow();
    expect(readFileSync(join(w.repo, 'node_modules/big/blob.bin')).length).toBe(4 * MB);
  });
});
