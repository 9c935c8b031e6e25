// The git step journal (migration 003): one row per multi-step git
// operation under way, written before its first git command and removed when
// it ends. See src/app/services/git-steps.ts for how rows are used.
import { randomUUID } from 'node:crypto';
import type { Selectable } from 'kysely';
import * as z from 'zod/mini';
import { isGitStepKind, type GitStep, type NewGitStep } from '../../domain/git-step.js';
import type { Executor } from './executor.js';
import type { GitStepTable } from './schema.js';

export interface GitStepRepo {
  /** Records a step that is about to start; returns its id. */
  begin(step: NewGitStep, owner: string, now: number): Promise<string>;
  /** Moves a recorded operation to its next step, adding to its detail. */
  advance(id: string, step: string, detail?: Readonly<Record<string, string>>): Promise<void>;
  /** Removes the record: the operation ended (finished or undone). */
  end(id: string): Promise<void>;
  /** Every recorded step, oldest first. */
  list(): Promise<GitStep[]>;
}

const detailSchema = z.record(z.string(), z.string());

function decodeDetail(text: string): Record<string, string> {
  try {
    const parsed = detailSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : {};
  } catch {
    return {};
  }
}

function decode(row: Selectable<GitStepTable>): GitStep | undefined {
  if (!isGitStepKind(row.kind)) return undefined;
  return {
    id: row.id,
    kind: row.kind,
    step: row.step,
    sessionId: row.session_id,
    projectId: row.project_id,
    dir: row.dir,
    branch: row.branch,
    headBefore: row.head_before,
    detail: decodeDetail(row.detail),
    owner: row.owner,
    startedAt: row.started_at,
  };
}

export function createGitStepRepo(db: Executor): GitStepRepo {
  return {
    async begin(step, owner, now) {
      const id = randomUUID();
      await db
        .insertInto('git_step')
        .values({
          id,
          kind: step.kind,
          step: step.step,
          session_id: step.sessionId,
          project_id: step.projectId,
          dir: step.dir,
          branch: step.branch,
          head_before: step.headBefore,
          detail: JSON.stringify(step.detail),
          owner,
          started_at: now,
        })
        .execute();
      return id;
    },

    async advance(id, step, detail) {
      if (!detail || Object.keys(detail).length === 0) {
        await db.updateTable('git_step').set({ step }).where('id', '=', id).execute();
        return;
      }
      const row = await db
        .selectFrom('git_step')
        .select('detail')
        .where('id', '=', id)
        .executeTakeFirst();
      if (!row) return;
      await db
        .updateTable('git_step')
        .set({ step, detail: JSON.stringify({ ...decodeDetail(row.detail), ...detail }) })
        .where('id', '=', id)
        .execute();
    },

    async end(id) {
      await db.deleteFrom('git_step').where('id', '=', id).execute();
    },

    async list() {
      const rows = await db
        .selectFrom('git_step')
        .selectAll()
        .orderBy('started_at')
        .orderBy('id')
        .execute();
      return rows.map(decode).filter((s): s is GitStep => s !== undefined);
    },
  };
}
