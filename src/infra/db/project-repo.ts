import type { Selectable } from 'kysely';
import type { Project } from '../../domain/project.js';
import type { Executor } from './executor.js';
import type { ProjectTable } from './schema.js';

export interface ProjectRepo {
  /** Registers `path` (or finds it) and marks it opened at `now`. */
  upsert(path: string, displayName: string, now: number): Promise<Project>;
  /** Most recently opened first. */
  list(): Promise<Project[]>;
  get(id: number): Promise<Project | undefined>;
  /** Marks the project opened at `now`. */
  touch(id: number, now: number): Promise<void>;
}

function decodeProject(row: Selectable<ProjectTable>): Project {
  return {
    id: row.id,
    path: row.path,
    displayName: row.display_name,
    createdAt: row.created_at,
    lastOpenedAt: row.last_opened_at,
  };
}

export function createProjectRepo(db: Executor): ProjectRepo {
  return {
    async upsert(path, displayName, now) {
      const row = await db
        .insertInto('project')
        .values({ path, display_name: displayName, created_at: now, last_opened_at: now })
        .onConflict((oc) => oc.column('path').doUpdateSet({ last_opened_at: now }))
        .returningAll()
        .executeTakeFirstOrThrow();
      return decodeProject(row);
    },

    async list() {
      const rows = await db
        .selectFrom('project')
        .selectAll()
        .orderBy('last_opened_at', 'desc')
        .orderBy('id', 'desc')
        .execute();
      return rows.map(decodeProject);
    },

    async get(id) {
      const row = await db
        .selectFrom('project')
        .selectAll()
        .where('id', '=', id)
        .executeTakeFirst();
      return row ? decodeProject(row) : undefined;
    },

    async touch(id, now) {
      await db.updateTable('project').set({ last_opened_at: now }).where('id', '=', id).execute();
    },
  };
}
