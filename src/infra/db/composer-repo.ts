import type { Executor } from './executor.js';

/** The prompt composer's memory: a project's prompt history and each session's unsent draft. */
export interface ComposerRepo {
  /** Records a sent prompt; the project keeps its newest `keep`. */
  addPrompt(projectId: number, text: string, now: number, keep: number): Promise<void>;
  /** The project's newest `limit` prompts, oldest first. */
  listPrompts(projectId: number, limit: number): Promise<string[]>;
  /** Stores a session's draft; an empty text removes it. */
  saveDraft(sessionId: string, text: string, now: number): Promise<void>;
  /** The drafts of the project's sessions, by session id. */
  listDrafts(projectId: number): Promise<Record<string, string>>;
}

export function createComposerRepo(db: Executor): ComposerRepo {
  return {
    async addPrompt(projectId, text, now, keep) {
      const newest = await db
        .selectFrom('prompt_history')
        .select('text')
        .where('project_id', '=', projectId)
        .orderBy('id', 'desc')
        .limit(1)
        .executeTakeFirst();
      // Sending the same prompt again does not fill the history with copies.
      if (newest?.text === text) return;
      await db
        .insertInto('prompt_history')
        .values({ project_id: projectId, text, created_at: now })
        .execute();
      const cutoff = await db
        .selectFrom('prompt_history')
        .select('id')
        .where('project_id', '=', projectId)
        .orderBy('id', 'desc')
        .offset(keep)
        .limit(1)
        .executeTakeFirst();
      if (cutoff)
        await db
          .deleteFrom('prompt_history')
          .where('project_id', '=', projectId)
          .where('id', '<=', cutoff.id)
          .execute();
    },

    async listPrompts(projectId, limit) {
      const rows = await db
        .selectFrom('prompt_history')
        .select('text')
        .where('project_id', '=', projectId)
        .orderBy('id', 'desc')
        .limit(limit)
        .execute();
      return rows.map((row) => row.text).reverse();
    },

    async saveDraft(sessionId, text, now) {
      if (text.trim() === '') {
        await db.deleteFrom('session_draft').where('session_id', '=', sessionId).execute();
        return;
      }
      await db
        .insertInto('session_draft')
        .values({ session_id: sessionId, text, updated_at: now })
        .onConflict((oc) => oc.column('session_id').doUpdateSet({ text, updated_at: now }))
        .execute();
    },

    async listDrafts(projectId) {
      const rows = await db
        .selectFrom('session_draft')
        .innerJoin('session', 'session.id', 'session_draft.session_id')
        .select(['session_draft.session_id', 'session_draft.text'])
        .where('session.project_id', '=', projectId)
        .execute();
      return Object.fromEntries(rows.map((row) => [row.session_id, row.text]));
    },
  };
}
