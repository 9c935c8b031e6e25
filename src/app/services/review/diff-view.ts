import { sanitizeLine } from '../../../domain/sanitize.js';
import type { DiffFileView, DiffView } from '../../state.js';
import type { ReviewContext } from './context.js';
import { ensureWorktree } from '../session-setup.js';

/** Files bigger than this are summarised instead of printed. */
const HUGE_PATCH_CHARS = 400_000;
const HUGE_PATCH_LINES = 5_000;

/** Decodes a C-quoted path as git prints it ("a/caf\303\251.txt"). */
function unquote(text: string): string {
  if (!text.startsWith('"') || !text.endsWith('"')) return text;
  const bytes: number[] = [];
  const simple: Record<string, number> = { a: 7, b: 8, t: 9, n: 10, v: 11, f: 12, r: 13, '"': 34, '\\': 92 };
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
      bytes.push(simple[next] ?? next.charCodeAt(0));
      i += 1;
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

/** The new-side path of a `diff --git` header line (paths may hold spaces or be quoted). */
function headerPath(rest: string): string | null {
  const quoted = /^("(?:[^"\\]|\\.)*"|\S+) ("(?:[^"\\]|\\.)*")$/.exec(rest) ?? /^("(?:[^"\\]|\\.)*") (\S+)$/.exec(rest);
  if (quoted?.[2]) return unquote(quoted[2]).replace(/^b\//, '');
  // Unquoted: the same path twice ("a/P b/P") unless renamed.
  const half = (rest.length - 1) / 2;
  if (Number.isInteger(half) && rest.startsWith('a/') && rest.slice(half + 1).startsWith('b/') && rest.slice(2, half) === rest.slice(half + 3)) return rest.slice(half + 3);
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
    out.set(sanitizeLine(path), part);
  }
  return out;
}

export function buildDiffView(
  sessionId: string,
  diff: { files: readonly { path: string; status: string; added: number; deleted: number; binary: boolean }[]; patch: string; added: number; deleted: number },
): DiffView {
  const patches = splitPatch(diff.patch);
  const files: DiffFileView[] = diff.files.map((file) => {
    const patch = patches.get(file.path) ?? '';
    let summarized: string | null = null;
    if (file.binary) summarized = `Binary file ${file.status}.`;
    else if (patch.length > HUGE_PATCH_CHARS || file.added + file.deleted > HUGE_PATCH_LINES) {
      summarized = `Large change: +${file.added} -${file.deleted} lines. Open the file in your editor to read it.`;
    }
    return { path: file.path, status: file.status, added: file.added, deleted: file.deleted, binary: file.binary, patch: summarized ? '' : patch, summarized };
  });
  return { sessionId, loading: false, error: null, files, added: diff.added, deleted: diff.deleted };
}

/** Opens the diff view at once and loads the diff in the background. */
export function openDiff(ctx: ReviewContext, sessionId: string): void {
  const { app, store, git } = ctx.deps;
  app.apply({ type: 'mode', mode: { kind: 'diff', sessionId, fileIndex: 0, scroll: 0 } });
  app.apply({ type: 'diffLoaded', diff: { sessionId, loading: true, error: null, files: [], added: 0, deleted: 0 } });
  app.task('Loading the diff', async () => {
    const session = await store.sessions.get(sessionId);
    if (!session) return;
    let view: DiffView;
    try {
      const project = await store.projects.get(session.projectId);
      if (project) await ensureWorktree({ git, note: (id, text) => ctx.note(id, text) }, session, project.path);
      const diff = await git.diffAgainstBase(session.worktreePath, session.baseBranch);
      view = buildDiffView(sessionId, diff);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      view = { sessionId, loading: false, error: `Could not compute the diff: ${message}`, files: [], added: 0, deleted: 0 };
    }
    // A stale load (the user opened another diff meanwhile) is dropped.
    if (app.state.diff?.sessionId === sessionId) app.emit({ type: 'diffLoaded', diff: view });
  });
}
