import type { Infra } from '../compose.js';
import { sanitizeText } from '../domain/sanitize.js';
import type { Session } from '../domain/session.js';
import { ensureWorktree } from '../app/services/session-setup.js';
import { baseBranchGone } from '../app/services/base-check.js';
import type { Diff } from '../infra/git/diff.js';
import { CommandError, EXIT, type HeadlessIo } from './headless.js';

/**
 * `grove diff ID`: the session's diff against its base. A worktree folder
 * deleted behind Grove's back is checked out again from the session branch
 * first, as `reply` and `merge` do, with the same `[Worktree]` notice in the
 * transcript (and on stderr).
 */
export async function sessionDiff(infra: Infra, io: HeadlessIo, session: Session): Promise<Diff> {
  const project = await infra.store.projects.get(session.projectId);
  if (project) {
    const gone = await baseBranchGone(infra.git, project.path, session);
    if (gone) throw new CommandError(gone, EXIT.failed);
    await ensureWorktree(
      {
        git: infra.git,
        store: infra.store,
        now: () => infra.clock.now(),
        note: async (id, text) => {
          const content = sanitizeText(text);
          await infra.store.transcript.append(id, 'notice', content, infra.clock.now());
          io.stderr.write(`${content}\n`);
        },
      },
      session,
      project.path,
    ).catch((error: unknown) => {
      throw new CommandError(error instanceof Error ? error.message : String(error), EXIT.failed);
    });
  }
  const diff = await infra.git
    .diffAgainstBase(session.worktreePath, session.baseBranch)
    .catch((error: unknown) => {
      throw new CommandError(
        `could not compute the diff: ${error instanceof Error ? error.message : String(error)}`,
        EXIT.failed,
      );
    });
  return diff;
}
