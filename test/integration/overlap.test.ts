import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { GitStatusView } from '../../src/app/state.js';
import { mergeOverlapLines } from '../../src/cli/parallel.js';
import { git } from '../helpers/grove-env.js';
import { makeReviewWorld, waitFor, writeFiles, type ReviewWorld } from '../helpers/review-world.js';

// Overlap warnings between live sessions on real git: changed paths per
// session branch, and a merge-tree probe between the branches that share
// paths, run by the background git status poller.

let w: ReviewWorld;

const TEN_LINES = Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';
const edit = (line: number, text: string): string =>
  TEN_LINES.replace(`line ${line}\n`, `${text}\n`);

beforeEach(async () => {
  w = await makeReviewWorld();
  w.commitOnMain({ 'shared.txt': TEN_LINES, 'other.txt': 'other\n' }, 'Add shared files');
});

afterEach(async () => {
  w.controller.gitStatus.stop();
  await w.close();
});

async function cycle(): Promise<GitStatusView> {
  const poller = w.controller.gitStatus;
  const status = await poller.cycle(
    w.projectId,
    (poller as unknown as { generation: number }).generation,
    false,
  );
  if (!status) throw new Error('the cycle was dropped');
  return status;
}

describe('overlap between live sessions', () => {
  it('finds sessions that change the same file, and which of them conflict with each other', async () => {
    const a = await w.session({
      files: { 'shared.txt': edit(2, 'A was here') },
      message: 'A edits line 2',
      title: 'Session A',
    });
    const b = await w.session({
      files: { 'shared.txt': edit(2, 'B was here') },
      message: 'B edits line 2',
      title: 'Session B',
    });
    const c = await w.session({
      files: { 'shared.txt': edit(9, 'C was here') },
      message: 'C edits line 9',
      title: 'Session C',
    });
    const d = await w.session({
      files: { 'other.txt': 'D\n' },
      message: 'D edits another file',
      title: 'Session D',
    });

    const status = await cycle();

    expect(status.overlaps?.[a.id]).toEqual([
      { sessionId: b.id, files: ['shared.txt'], conflicts: ['shared.txt'] },
      { sessionId: c.id, files: ['shared.txt'], conflicts: [] },
    ]);
    // Equal weight (one shared file, no conflict): ordered by id.
    expect(status.overlaps?.[c.id]?.map((o) => [o.sessionId, o.conflicts.length])).toEqual(
      [
        [a.id, 0],
        [b.id, 0],
      ].sort(),
    );
    expect(status.overlaps?.[d.id]).toBeUndefined();
    // Neither conflicts with main itself: only with each other.
    expect(status.conflicts).toEqual([]);
  });

  it('runs no git command for overlaps when no branch moved, and re-probes only what a moved branch touches', async () => {
    const a = await w.session({ files: { 'shared.txt': edit(2, 'A') }, message: 'A' });
    await w.session({ files: { 'shared.txt': edit(2, 'B') }, message: 'B' });
    await w.session({ files: { 'other.txt': 'C\n' }, message: 'C' });
    const detector = w.controller.gitStatus.overlap;
    const live = (await w.infra.store.sessions.listByProject(w.projectId)).filter(
      (s) => s.status === 'Review',
    );
    const detect = async () => detector.detect(w.repo, live, await w.infra.git.branchHeads(w.repo));

    const first = await detect();
    const quiet = await detect();
    writeFiles(a.worktreePath, { 'shared.txt': edit(2, 'A again') });
    git(a.worktreePath, 'commit', '-qam', 'A moves');
    const moved = await detect();

    expect(first.gitCalls).toBe(3 + 1); // a diff per session, one merge-tree for the pairs sharing a file
    expect(quiet.gitCalls).toBe(0);
    expect(moved.gitCalls).toBe(1 + 1); // A's diff again, and its pair
    expect(moved.overlaps).toEqual(first.overlaps);
  });

  it('shows the overlap in the snapshot once the poller has run', async () => {
    const a = await w.session({ files: { 'shared.txt': edit(2, 'A') }, message: 'A' });
    const b = await w.session({ files: { 'shared.txt': edit(5, 'B') }, message: 'B' });

    w.controller.gitStatus.restart(w.projectId);

    await waitFor(
      'the overlap in the snapshot',
      () => w.app.state.git?.overlaps?.[a.id]?.[0]?.sessionId === b.id,
    );
    expect(w.app.state.git?.overlaps?.[b.id]).toEqual([
      { sessionId: a.id, files: ['shared.txt'], conflicts: [] },
    ]);
  });

  it('says before a merge which other sessions will need a rebase (TUI confirmation and grove merge)', async () => {
    const a = await w.session({
      files: { 'shared.txt': edit(2, 'A') },
      message: 'A',
      title: 'Session A',
    });
    const b = await w.session({
      files: { 'shared.txt': edit(2, 'B') },
      message: 'B',
      title: 'Session B',
    });
    await w.session({ files: { 'other.txt': 'C\n' }, message: 'C', title: 'Session C' });
    w.controller.gitStatus.restart(w.projectId);
    await waitFor('the overlap in the snapshot', () => w.app.state.git?.overlaps?.[a.id]);

    w.controller.requestMerge(a.id);
    const popup = w.app.state.popup;
    const headless = await mergeOverlapLines(w.infra, a, w.repo);

    expect(popup?.kind === 'confirm' ? popup.lines.slice(1) : []).toEqual([
      '1 other session changed the same files and will need a rebase after this merge:',
      `  "Session B" (${b.id.replace(/-/g, '').slice(0, 8)}): conflicts in shared.txt`,
    ]);
    expect(headless).toEqual(popup?.kind === 'confirm' ? popup.lines.slice(1) : null);
  });
});
