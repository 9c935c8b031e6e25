import { hostname } from 'node:os';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openDatabase } from '../../src/infra/db/database.js';
import { createStore, type Store } from '../../src/infra/db/store.js';
import { sizeFromLines } from '../../src/domain/session.js';
import type { SessionStatus } from '../../src/domain/session-status.js';
import type { TranscriptKind } from '../../src/domain/transcript.js';

export const MIGRATIONS = fileURLToPath(new URL('../../migrations/', import.meta.url));

export interface SeedSession {
  readonly title: string;
  readonly status: SessionStatus;
  readonly transcript?: readonly [TranscriptKind, string][];
  readonly addedLines?: number;
  readonly deletedLines?: number;
}

/** Writes sessions straight into a Grove database (as an earlier run would have). */
export async function withStore<T>(
  groveHome: string,
  fn: (store: Store) => Promise<T>,
): Promise<T> {
  const db = openDatabase(`${groveHome}/db/grove.db`, MIGRATIONS);
  try {
    return await fn(createStore(db.kysely));
  } finally {
    await db.close();
  }
}

export async function seedSessions(
  groveHome: string,
  repo: string,
  sessions: readonly SeedSession[],
): Promise<string[]> {
  return withStore(groveHome, async (store) => {
    const project = await store.projects.upsert(repo, basename(repo), Date.now());
    const ids: string[] = [];
    let n = 0;
    for (const s of sessions) {
      n++;
      const id = `${String(n).padStart(8, '0')}-aaaa-bbbb-cccc-${String(n).padStart(12, '0')}`;
      const now = Date.now() - (sessions.length - n) * 1000;
      await store.sessions.insert({
        id,
        projectId: project.id,
        title: s.title,
        status: 'Draft',
        baseBranch: 'main',
        branch: `grove/${id.slice(0, 8)}`,
        worktreePath: `${repo}-wt-${n}`,
        agent: 'claude',
        model: 'sonnet',
        reasoning: 'high',
        createdAt: now,
        prompt: s.title,
      });
      const path: SessionStatus[] =
        s.status === 'Draft'
          ? []
          : s.status === 'Done'
            ? ['InProgress', 'Review', 'Done']
            : s.status === 'Queued'
              ? ['InProgress', 'Review', 'Queued']
              : s.status === 'Merging'
                ? ['InProgress', 'Review', 'Queued', 'Merging']
                : s.status === 'Canceled'
                  ? ['Canceled']
                  : s.status === 'Review'
                    ? ['InProgress', 'Review']
                    : s.status === 'Question'
                      ? ['InProgress', 'Question']
                      : ['InProgress'];
      for (const status of path) await store.sessions.setStatus(id, status, now);
      if (s.addedLines !== undefined || s.deletedLines !== undefined) {
        const [added, deleted] = [s.addedLines ?? 0, s.deletedLines ?? 0];
        await store.sessions.update(
          id,
          { addedLines: added, deletedLines: deleted, size: sizeFromLines(added, deleted) },
          now,
        );
      }
      for (const [kind, content] of s.transcript ?? [])
        await store.transcript.append(id, kind, content, now);
      if (s.status === 'Merging') {
        // Held by another live Grove process (this test process), so start-up
        // recovery leaves it alone and the merge queue waits for it.
        await store.operations.enqueue(id, 'merge', {}, now);
        await store.operations.claimNext(id, `${hostname()}:${process.pid}`, now);
      }
      ids.push(id);
    }
    return ids;
  });
}
