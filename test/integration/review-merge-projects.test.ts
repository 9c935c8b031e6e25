import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeRepo } from '../helpers/grove-env.js';
import { makeReviewWorld, waitFor, type ReviewWorld } from '../helpers/review-world.js';

// The merge queue moves in every project, not only the one on screen: real
// git (through a `git` on PATH that holds the first squash merge until the
// test lets it go), real SQLite, the app core in this process.

const REAL_GIT = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
const savedPath = process.env['PATH'];

let w: ReviewWorld;
let bin: string;

beforeEach(async () => {
  bin = mkdtempSync(join(tmpdir(), 'grove-merge-hold-'));
  writeFileSync(
    join(bin, 'git'),
    // Grove puts its `-c key=value` settings first: the command is what follows them.
    `#!/bin/sh
strip() { while [ "$1" = "-c" ]; do shift 2; done; command_line="$*"; }
strip "$@"
case "$command_line" in
  "merge --squash "*)
    if [ ! -e '${bin}/held' ]; then
      touch '${bin}/held'
      while [ ! -e '${bin}/go' ]; do sleep 0.05; done
    fi ;;
esac
exec ${REAL_GIT} "$@"
`,
    { mode: 0o755 },
  );
  process.env['PATH'] = `${bin}:${savedPath ?? '/usr/bin:/bin'}`;
  w = await makeReviewWorld();
});

afterEach(async () => {
  writeFileSync(join(bin, 'go'), '');
  await w.close();
  process.env['PATH'] = savedPath;
  rmSync(bin, { recursive: true, force: true });
});

/** Presses `m` and confirms, as the session view does. */
function merge(sessionId: string): void {
  w.controller.requestMerge(sessionId);
  w.controller.confirmMerge(sessionId);
}

describe('merge queue across projects', () => {
  it('lands a merge queued in a project after the screen switched to another project', async () => {
    const first = await w.session({ files: { 'a.txt': 'a\n' }, message: 'Add a' });
    const second = await w.session({ files: { 'b.txt': 'b\n' }, message: 'Add b' });
    merge(first.id);
    // Queued first, so the second merge waits behind it.
    await waitFor('the first merge to be queued', async () =>
      ['Queued', 'Merging'].includes((await w.get(first.id)).status),
    );
    merge(second.id);
    await waitFor('the first squash merge to be held', () => existsSync(join(bin, 'held')));
    const otherRepo = makeRepo(w.world, 'other');
    const other = await w.infra.store.projects.upsert(otherRepo, 'other', w.infra.clock.now());

    w.controller.activateProject(other.id);
    await waitFor('the other project on screen', () => w.app.state.activeProjectId === other.id);
    writeFileSync(join(bin, 'go'), '');

    await waitFor(
      'the first session merged',
      async () => (await w.get(first.id)).status === 'Done',
    );
    await waitFor(
      'the second session merged',
      async () => (await w.get(second.id)).status === 'Done',
      60_000,
    );
    expect(
      execFileSync(REAL_GIT, ['log', '--format=%s', 'main'], { cwd: w.repo, encoding: 'utf8' })
        .trim()
        .split('\n'),
    ).toEqual(['Add b', 'Add a', 'Initial commit']);
  });
});
