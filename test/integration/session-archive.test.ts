import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { ARCHIVE_PAGE, archivedInList } from '../../src/app/state.js';
import type { Session } from '../../src/domain/session.js';
import { isArchived } from '../../src/domain/session-order.js';
import { filterSessions } from '../../src/domain/session-filter.js';
import type { SessionStatus } from '../../src/domain/session-status.js';
import { parseKeyId } from '../../src/domain/keys.js';
import { dispatchTerminalEvent } from '../../src/runtime/dispatch.js';
import type { KeyContext } from '../../src/runtime/modes/context.js';
import { git } from '../helpers/grove-env.js';
import { startGroveApp, type GroveApp } from '../helpers/grove-app.js';
import { makeReviewWorld, waitFor, writeFiles, type ReviewWorld } from '../helpers/review-world.js';

// Start-up that does not read the archive (issue 26, item 2), on a real
// SQLite store with hundreds of finished sessions and real git branches:
// a Grove starting reads the live sessions and counts the archive; the
// archive's rows come in pages as the list's selection comes down, and its
// search is answered by the store. Git figures of branches that did not
// move since the last Grove are not asked of git again.

const ARCHIVED = 200;
let w: ReviewWorld;
const started: GroveApp[] = [];

beforeEach(async () => {
  w = await makeReviewWorld();
});

afterEach(async () => {
  for (const grove of started.splice(0)) {
    grove.controller.gitStatus.stop();
    await grove.controller.shutdown();
  }
  w.controller.gitStatus.stop();
  await w.close();
});

/** Finished sessions written straight into the store, oldest last; the oldest says "needle". */
async function seedArchive(count: number): Promise<void> {
  const statuses: SessionStatus[] = ['Done', 'Canceled', 'Merged'];
  const now = Date.now();
  await w.infra.store.transaction(async (store) => {
    for (let i = 0; i < count; i++) {
      const id = `a${String(i).padStart(7, '0')}-0000-0000-0000-000000000000`;
      await store.sessions.insert({
        id,
        projectId: w.projectId,
        title: i === count - 1 ? 'Finished needle work' : `Finished work ${i}`,
        status: statuses[i % statuses.length] ?? 'Done',
        baseBranch: 'main',
        branch: `grove/${id.slice(0, 8)}`,
        worktreePath: `${w.repo}-gone-${i}`,
        agent: 'claude',
        model: 'sonnet',
        reasoning: 'high',
        createdAt: now - 100_000 - i * 10,
        updatedAt: now - 100_000 - i * 10,
        prompt: `finished prompt ${i}`,
      });
    }
  });
}

/** Counts what the store hands out of the archive: every archived row any session read returns. */
function countArchivedReads(): { readonly rows: number } {
  const counter = { rows: 0 };
  const repo = w.infra.store.sessions as unknown as Record<string, unknown>;
  for (const name of Object.keys(repo)) {
    const method = repo[name];
    if (typeof method !== 'function') continue;
    repo[name] = async (...args: unknown[]) => {
      const result: unknown = await (method as (...a: unknown[]) => Promise<unknown>)(...args);
      const rows = Array.isArray(result) ? result : result ? [result] : [];
      for (const row of rows as Session[])
        if (typeof row?.status === 'string' && isArchived(row.status)) counter.rows++;
      return result;
    };
  }
  return counter;
}

/** Counts the per-session git calls of the status poller and the overlap detector. */
async function countSessionGit(): Promise<{ calls: number }> {
  const counter = { calls: 0 };
  const heads = await w.infra.git.branchHeads(w.repo);
  const tips = new Set(
    [...heads].filter(([name]) => name.startsWith('grove/')).map(([, tip]) => tip),
  );
  const client = w.infra.git as unknown as Record<string, unknown>;
  for (const name of ['aheadBehind', 'changedPaths', 'mergeTreeConflicts']) {
    const method = client[name] as (...a: unknown[]) => Promise<unknown>;
    client[name] = (...args: unknown[]) => {
      // A session's branch, or its tip (the project branch's own figures are not per session).
      if (
        args.some((arg) => typeof arg === 'string' && (arg.startsWith('grove/') || tips.has(arg)))
      )
        counter.calls++;
      return method(...args);
    };
  }
  return counter;
}

async function startAgain(): Promise<GroveApp> {
  const grove = await startGroveApp(w.infra, w.repo);
  started.push(grove);
  return grove;
}

async function gitCycle(grove: GroveApp): Promise<void> {
  const poller = grove.controller.gitStatus;
  const generation = (poller as unknown as { generation: number }).generation;
  await poller.cycle(w.projectId, generation, false);
}

function keys(grove: GroveApp, ...ids: string[]): void {
  const ctx: KeyContext = {
    get state() {
      return grove.app.state;
    },
    apply: (event) => grove.app.apply(event),
    intents: grove.controller,
  };
  for (const id of ids) dispatchTerminalEvent(ctx, { type: 'key', key: parseKeyId(id) });
}

describe('the archive on a store of many finished sessions', () => {
  it('starts with the live sessions, reads the archive in pages as the selection comes down, and searches it in the store', async () => {
    const live = await w.session({ files: { 'a.txt': 'a\n' }, message: 'Live work' });
    await seedArchive(ARCHIVED);

    const grove = await startAgain();

    expect(grove.app.state.sessions.map((s) => s.id)).toEqual([live.id]);
    expect(grove.app.state.archive).toEqual({
      query: '',
      total: ARCHIVED,
      stored: ARCHIVED,
      read: 0,
    });
    grove.controller.loadArchive(true); // what Controller.start asks for after the first frame
    await waitFor('the first page', () => archivedInList(grove.app.state) === ARCHIVE_PAGE);

    // Down the list to the last row read: the next page comes in.
    keys(grove, ...Array.from({ length: ARCHIVE_PAGE }, () => 'j'));
    await waitFor('the second page', () => archivedInList(grove.app.state) === 2 * ARCHIVE_PAGE);
    const ordered = grove.app.state.sessions.filter((s) => isArchived(s.status));
    expect(ordered.map((s) => s.title).slice(0, 3)).toEqual([
      'Finished work 0',
      'Finished work 1',
      'Finished work 2',
    ]);
    expect(new Set(ordered.map((s) => s.id)).size).toBe(2 * ARCHIVE_PAGE);

    // The search finds the oldest finished session, which no page has brought yet.
    keys(grove, '/', 'n', 'e', 'e', 'd', 'l', 'e');
    await waitFor('the search in the store', () => grove.app.state.archive.query === 'needle');
    expect(grove.app.state.archive).toMatchObject({ total: 1, read: 1 });
    const shown = filterSessions(grove.app.state.sessions, grove.app.state.sessionFilter, {});
    expect(shown.map((s) => s.title)).toEqual(['Finished needle work']);

    // Esc clears the search: what was read before is there at once, and the archive's
    // first page is read again for the count.
    keys(grove, 'escape', 'escape');
    const all = filterSessions(grove.app.state.sessions, grove.app.state.sessionFilter, {});
    expect(all.filter((s) => isArchived(s.status))).toHaveLength(2 * ARCHIVE_PAGE + 1);
    expect(all.some((s) => s.id === live.id)).toBe(true);
    await waitFor('the archive unfiltered', () => grove.app.state.archive.query === '');
    expect(grove.app.state.archive).toMatchObject({ total: ARCHIVED, read: ARCHIVE_PAGE });
  });

  it('a session that finishes joins the archive count; one continued leaves it', async () => {
    const live = await w.session({ files: { 'a.txt': 'a\n' }, message: 'Live work' });
    await seedArchive(10);
    const grove = await startAgain();
    expect(grove.app.state.archive.total).toBe(10);

    const now = Date.now();
    grove.app.emit({
      type: 'sessionUpdated',
      session: await w.infra.store.sessions.setStatus(live.id, 'Canceled', now),
    });
    await waitFor('the count', () => grove.app.state.archive.total === 11);
    grove.app.emit({
      type: 'sessionUpdated',
      session: await w.infra.store.sessions.setStatus(live.id, 'Review', now + 1),
    });
    await waitFor('the count again', () => grove.app.state.archive.total === 10);
  });

  it('start-up reads no finished session beyond the first page, and no git for branches that did not move', async () => {
    const a = await w.session({ files: { 'a.txt': 'a\n' }, message: 'A' });
    await w.session({ files: { 'b.txt': 'b\n' }, message: 'B' });
    await seedArchive(ARCHIVED);
    // A first Grove reads the branches' figures (and keeps them).
    await gitCycle(await startAgain());

    const archivedReads = countArchivedReads();
    const sessionGit = await countSessionGit();
    const grove = await startAgain();
    expect(archivedReads.rows).toBe(0); // the first frame's snapshot
    grove.controller.start();
    await waitFor('the git status', () => grove.app.state.git !== null);
    await waitFor('the first archive page', () => archivedInList(grove.app.state) > 0);
    await sleep(1000); // the start's other reads (budgets, inbox, groups, pull requests) settle

    // The list's first page, and the refresh timer's read of the same rows (the store changed).
    expect(archivedReads.rows).toBeLessThanOrEqual(2 * ARCHIVE_PAGE);
    expect(sessionGit.calls).toBe(0);

    // A branch that moves is probed again, alone.
    writeFiles(a.worktreePath, { 'a.txt': 'a again\n' });
    git(a.worktreePath, 'commit', '-qam', 'A moves');
    const moved = await countSessionGit();
    await gitCycle(await startAgain());
    expect(moved.calls).toBe(2); // A's ahead/behind and its changed paths
  });
});
