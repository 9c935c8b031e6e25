import type { Executor } from './executor.js';

export interface SettingsRepo {
  getGlobal(name: string): Promise<string | undefined>;
  setGlobal(name: string, value: string): Promise<void>;
  getProject(projectId: number, name: string): Promise<string | undefined>;
  setProject(projectId: number, name: string, value: string): Promise<void>;
  /** Every setting stored for the project, by name. */
  listProject(projectId: number): Promise<Record<string, string>>;
}

export function createSettingsRepo(db: Executor): SettingsRepo {
  return {
    async getGlobal(name) {
      const row = await db
        .selectFrom('setting')
        .select('value')
        .where('name', '=', name)
        .executeTakeFirst();
      return row?.value;
    },

    async setGlobal(name, value) {
      await db
        .insertInto('setting')
        .values({ name, value })
        .onConflict((oc) => oc.column('name').doUpdateSet({ value }))
        .execute();
    },

    async getProject(projectId, name) {
      const row = await db
        .selectFrom('project_setting')
        .select('value')
        .where('project_id', '=', projectId)
        .where('name', '=', name)
        .executeTakeFirst();
      return row?.value;
    },

    async setProject(projectId, name, value) {
      await db
        .insertInto('project_setting')
        .values({ project_id: projectId, name, value })
        .onConflict((oc) => oc.columns(['project_id', 'name']).doUpdateSet({ value }))
        .execute();
    },

    async listProject(projectId) {
      const rows = await db
        .selectFrom('project_setting')
        .select(['name', 'value'])
        .where('project_id', '=', projectId)
        .orderBy('name')
        .execute();
      return Object.fromEntries(rows.map((row) => [row.name, row.value]));
    },
  };
}
