import { existsSync } from 'node:fs';
import { parsePatchRows, type DiffRow } from '../../../domain/diff-rows.js';
import { sanitizePath } from '../../../domain/sanitize.js';
import type { Session } from '../../../domain/session.js';
import type { SessionStatus } from '../../../domain/session-status.js';
import type { Diff } from '../../../infra/git/git-client.js';
import type { DiffFileView, DiffView } from '../../state.js';
import type { AppEvent } from '../../events.js';
import type { ReviewContext } from './context.js';
import { ensureWorktree } from '../session-setup.js';

/** Files bigger than this are summarised instead of printed. */
const HUGE_PATCH_CHARS = 16_000_000;
const HUGE_PATCH_LINES = 200_000;

/** Decodes a C-quoted path as git prints it ("a/caf\303\251.txt"). */
function unquote(text: string): string {
  if (!text.startsWith('"') || !text.endsWith('"')) return text;
  const bytes: number[] = [];
  const simple: Record<string, number> = {
    a: 7,
    b: 8,
    t: 9,
    n: 10,
    v: 11,
    f: 12,
    r: 13,
    '"': 34,
    '\\': 92,
  };
  const body = text.slice(1, -1);
  for (let i = 0; i < body.length; i++) {
    const ch = body[i] ?? '';
    if (ch !== '\\') {
      bytes.push(...Buffer.from(ch, 'utf8'));
      continue;
    }
    const next = body[i + 1] ?? '';
    if (/[0-7]/.test(next)) {
      bytes.push(parseInt(body.slice(i + 1, i + 4), 8));
      i += 3;
    } else {
      // git writes no other escape; a "\u202E" the sanitizer put there stays as it is.
      const code = simple[next];
      bytes.push(...(code === undefined ? Buffer.from(`\\${next}`, 'utf8') : [code]));
      i += 1;
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

/** The new-side path of a `diff --git` header line (paths may hold spaces or be quoted). */
function headerPath(rest: string): string | null {
  const quoted =
    /^("(?:[^"\\]|\\.)*"|\S+) ("(?:[^"\\]|\\.)*")$/.exec(rest) ??
    /^("(?:[^"\\]|\\.)*") (\S+)$/.exec(rest);
  if (quoted?.[2]) return unquote(quoted[2]).replace(/^b\//, '');
  // Unquoted: the same path twice ("a/P b/P") unless renamed.
  const half = (rest.length - 1) / 2;
  if (
    Number.isInteger(half) &&
    rest.startsWith('a/') &&
    rest.slice(half + 1).startsWith('b/') &&
    rest.slice(2, half) === rest.slice(half + 3)
  )
    return rest.slice(half + 3);
  return /^a\/(.+?) b\/(.+)$/.exec(rest)?.[2] ?? null;
}

/** Splits a unified diff into per-file patches keyed by path (sanitized, as the diff's file list is). */
export function splitPatch(patch: string): Map<string, string> {
  const out = new Map<string, string>();
  const parts = patch.split(/^(?=diff --git )/m);
  for (const part of parts) {
    const line = /^diff --git (.+)$/m.exec(part);
    const path = line?.[1] ? headerPath(line[1]) : null;
    if (path === null) continue;
    out.set(sanitizePath(path), part);
  }
  return out;
}

export function buildDiffView(
  sessionId: string,
  diff: {
    files: readonly {
      path: string;
      status: string;
      added: number;
      deleted: number;
      binary: boolean;
      oldSize?: number;
      newSize?: number;
    }[];
    patch: string;
    added: number;
    deleted: number;
  },
  extra: { generation?: number; source?: string } = {},
): DiffView {
  const patches = splitPatch(diff.patch);
  const files: DiffFileView[] = diff.files.map((file) => {
    const patch = patches.get(file.path) ?? '';
    let summarized: string | null = null;
    if (file.binary)
      summarized = `Binary file ${file.status}: ${file.oldSize ?? 0} → ${file.newSize ?? 0} bytes.`;
    else if (patch.length > HUGE_PATCH_CHARS || file.added + file.deleted > HUGE_PATCH_LINES) {
      summarized = `Large change: +${file.added} -${file.deleted} lines. Open the file in your editor to read it.`;
    }
    // Parsed here, in the background load, so no key press or frame pays for it.
    const rows: DiffRow[] = summarized
      ? [{ kind: 'note', text: summarized, oldNo: null, newNo: null, hunk: -1 }]
      : parsePatchRows(patch);
    return {
      path: file.path,
      status: file.status,
      added: file.added,
      deleted: file.deleted,
      binary: file.binary,
      patch: summarized ? '' : patch,
      summarized,
      rows,
    };
  });
  return {
    sessionId,
    loading: false,
    error: null,
    files,
    added: diff.added,
    deleted: diff.deleted,
    ...extra,
  };
}

/** Statuses whose worktree Grove removed: their diff is read from the kept branch. */
const BRANCH_ONLY: ReadonlySet<SessionStatus> = new Set<SessionStatus>(['Canceled', 'Done']);

/**
 * The session's diff: its worktree against the merge base, or, once the
 * worktree is gone (a canceled session), its kept branch against its base.
 */
export async function sessionDiff(
  ctx: ReviewContext,
  session: Session,
  signal?: AbortSignal,
): Promise<{ diff: Diff; source?: string }> {
  const { store, git } = ctx.deps;
  const project = await store.projects.get(session.projectId);
  if (project && (BRANCH_ONLY.has(session.status) || !existsSync(session.worktreePath))) {
    const branch = session.keptBranch ?? session.branch;
    if (BRANCH_ONLY.has(session.status)) {
      if (!(await git.branchExists(project.path, branch))) {
        throw new Error(
          session.status === 'Done'
            ? `The session is done and its branch ${branch} was removed${session.mergedCommit ? ` (merged as ${session.mergedCommit.slice(0, 12)} on ${session.baseBranch})` : ''}: there is no diff left to show.`
            : `The session's branch ${branch} was deleted when it was canceled (it held no work): there is nothing to show.`,
        );
      }
      return {
        diff: await git.diffOfBranch(project.path, branch, session.baseBranch, { signal }),
        source: `${branch} (kept branch)`,
      };
    }
    await ensureWorktree(
      { git, store, note: (id, text) => ctx.note(id, text), now: () => ctx.now() },
      session,
      project.path,
    );
  }
  return { diff: await git.diffAgainstBase(session.worktreePath, session.baseBranch, { signal }) };
}

/**
 * The diff view's loads: in the background, one at a time per session,
 * stoppable (q or Esc while loading), and a result from a stopped or
 * superseded load is dropped by its generation number.
 */
export class DiffLoader {
  private readonly loads = new Map<string, AbortController>();
  private generation = 0;

  constructor(private readonly ctx: ReviewContext) {}

  /**
   * Opens the diff view at once (the reducer shows it, at `comment` in the
   * comments pane when given) and loads the diff in the background.
   */
  open(sessionId: string, at: { comment?: number } = {}, fromTask = false): void {
    this.load(sessionId, at, fromTask);
  }

  /** A key handler's change is reduced at once (the next key sees it); a task's is queued for the loop. */
  private put(event: AppEvent, fromTask: boolean): void {
    if (fromTask) this.ctx.deps.app.emit(event);
    else this.ctx.deps.app.apply(event);
  }

  /** Loads the diff again for a view that is open (after a turn), keeping its place. */
  refresh(sessionId: string): void {
    const { app } = this.ctx.deps;
    if (
      app.state.mode.kind === 'diff' &&
      app.state.mode.sessionId === sessionId &&
      app.state.diff?.sessionId === sessionId &&
      !app.state.diff.loading
    )
      this.load(sessionId, null);
  }

  cancel(sessionId: string): void {
    this.loads.get(sessionId)?.abort();
    this.loads.delete(sessionId);
    // Anything still on its way is older than this.
    this.generation++;
  }

  /** `opened`: a fresh view (where it opens); null: a reload that keeps the view's place. */
  private load(sessionId: string, opened: { comment?: number } | null, fromTask = true): void {
    const { app, store } = this.ctx.deps;
    this.loads.get(sessionId)?.abort();
    const controller = new AbortController();
    this.loads.set(sessionId, controller);
    const generation = ++this.generation;
    const fresh = opened !== null;
    if (opened) this.put({ type: 'diffOpened', sessionId, generation, ...opened }, fromTask);
    app.task('Loading the diff', async () => {
      app.emit({
        type: 'diffCommentsLoaded',
        sessionId,
        comments: await store.diffComments.listBySession(sessionId),
      });
      const session = await store.sessions.get(sessionId);
      if (!session) return;
      let view: DiffView;
      try {
        const { diff, source } = await sessionDiff(this.ctx, session, controller.signal);
        view = buildDiffView(sessionId, diff, { generation, ...(source ? { source } : {}) });
      } catch (error) {
        if (controller.signal.aborted) return;
        const message = error instanceof Error ? error.message : String(error);
        view = {
          sessionId,
          generation,
          loading: false,
          error: `Could not compute the diff: ${message}`,
          files: [],
          added: 0,
          deleted: 0,
        };
      } finally {
        if (this.loads.get(sessionId) === controller) this.loads.delete(sessionId);
      }
      if (controller.signal.aborted || app.state.diff?.sessionId !== sessionId) return;
      app.emit({ type: 'diffLoaded', diff: view, place: fresh ? 'start' : 'keep' });
    });
  }
}
