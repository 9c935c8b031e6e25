import { existsSync } from 'node:fs';
import {
  DEFAULT_GC_DAYS,
  formatBytes,
  gcCandidates,
  restoreSnapshotCommand,
  snapshotRef,
} from '../../domain/gc.js';
import type { Project } from '../../domain/project.js';
import type { Session } from '../../domain/session.js';
import { GC_DAYS_KEY, GC_ON_START_KEY } from '../../domain/settings.js';
import { worktreeDisk } from '../../infra/disk-usage.js';
import {
  SHARED_FOLDERS_KEY,
  parseSharedFolders,
  type SharedUse,
} from '../../domain/shared-folders.js';
import type { App } from '../app.js';
import { recordHostCleanup } from './host-cleanup.js';
import type { GitClient, Runtime, Store } from '../ports.js';

export interface GcDeps {
  readonly store: Store;
  readonly git: GitClient;
  readonly runtime: Runtime;
}

export interface GcOptions {
  /** Done and Canceled sessions last changed at least this many days ago. */
  readonly days: number;
  /** List what would happen and change nothing. */
  readonly dryRun: boolean;
  readonly signal?: AbortSignal;
}

/** What happened (or, in a dry run, would happen) to one session's worktree. */
export type GcItem =
  | {
      readonly kind: 'removed';
      readonly session: Session;
      readonly bytes: number;
      /** Its shared folders (worktree.shared): a link counts nothing and only the link goes. */
      readonly shared: readonly SharedUse[];
      /** The ref that keeps its uncommitted work, and the command that restores it (null: nothing needed keeping). */
      readonly snapshot: {
        readonly ref: string;
        readonly commit: string;
        readonly restore: string;
      } | null;
    }
  | {
      readonly kind: 'wouldRemove';
      readonly session: Session;
      readonly bytes: number;
      readonly shared: readonly SharedUse[];
      /** Uncommitted and untracked paths a snapshot would keep (0 with `detached`: the commit itself). */
      readonly changes: number;
      /** Whether a snapshot would be written (work outside any branch). */
      readonly snapshot: boolean;
    }
  | { readonly kind: 'skipped'; readonly session: Session; readonly reason: string };

export interface GcReport {
  readonly project: Project;
  readonly items: readonly GcItem[];
  /** Bytes freed (in a dry run: that would be freed). */
  readonly bytes: number;
}

/**
 * Removes the worktrees of the project's Done and Canceled sessions older
 * than `days`. Each one's uncommitted and untracked work (and a HEAD no
 * branch holds) is first kept as a commit at refs/grove/snapshots/<id>; a
 * worktree whose state cannot be kept is left alone, with the reason. A
 * dry run writes nothing: no ref, no object, no index refresh.
 */
export async function collectGarbage(
  deps: GcDeps,
  project: Project,
  options: GcOptions,
): Promise<GcReport> {
  const { store, git, runtime } = deps;
  const now = runtime.clock.now();
  const sessions = gcCandidates(
    await store.sessions.listByProject(project.id),
    now,
    options.days,
  ).filter((s) => existsSync(s.worktreePath));
  const sharedPaths = await projectSharedFolders(store, project);
  const items: GcItem[] = [];
  let bytes = 0;
  for (const session of sessions) {
    if (options.signal?.aborted) break;
    const busy = (await store.operations.listUnfinished(session.id)).length > 0;
    if (busy) {
      items.push({
        kind: 'skipped',
        session,
        reason: 'an operation of the session is still queued or running',
      });
      continue;
    }
    try {
      if (options.dryRun) {
        const preview = await git.snapshotPreview(project.path, session.worktreePath);
        if (!preview) {
          items.push({
            kind: 'skipped',
            session,
            reason:
              (await git.snapshotBlocker(project.path, session.worktreePath)) ??
              'its state cannot be read',
          });
          continue;
        }
        const disk = await worktreeDisk(session.worktreePath, sharedPaths, options.signal);
        bytes += disk.allocated;
        items.push({
          kind: 'wouldRemove',
          session,
          bytes: disk.allocated,
          shared: disk.shared,
          changes: preview.changes,
          snapshot: preview.changes > 0 || !preview.onBranch,
        });
        continue;
      }
      const ref = snapshotRef(session.id);
      const result = await git.snapshotWorktree(
        project.path,
        session.worktreePath,
        ref,
        `grove gc: snapshot of session ${session.id}\n\n${session.title || session.branch}\nThe worktree ${session.worktreePath} (branch ${session.branch}) as it was, uncommitted and untracked files included.\n`,
      );
      if (result.kind === 'refused') {
        items.push({ kind: 'skipped', session, reason: result.reason });
        continue;
      }
      const disk = await worktreeDisk(session.worktreePath, sharedPaths, options.signal);
      const size = disk.allocated;
      // A session on a host: its worktree, branch and runs there go too (runHostCleanups, after).
      await recordHostCleanup(
        { store, git, now: () => runtime.clock.now() },
        session,
        project.path,
      );
      await git.removeWorktree(project.path, session.worktreePath, { force: true });
      if (existsSync(session.worktreePath)) {
        items.push({
          kind: 'skipped',
          session,
          reason: `git worktree remove left the folder in place${result.kind === 'saved' ? ` (its work is kept at ${ref})` : ''}`,
        });
        continue;
      }
      bytes += size;
      const snapshot =
        result.kind === 'saved'
          ? {
              ref,
              commit: result.commit,
              restore: restoreSnapshotCommand(project.path, session.worktreePath, session.id),
            }
          : null;
      items.push({ kind: 'removed', session, bytes: size, shared: disk.shared, snapshot });
      const text = snapshot
        ? `[Disk] grove gc removed the worktree ${session.worktreePath} (${formatBytes(size)}). Its uncommitted work is kept at ${ref}; restore it with: ${snapshot.restore}`
        : `[Disk] grove gc removed the worktree ${session.worktreePath} (${formatBytes(size)}); it held nothing uncommitted.`;
      await store.transcript
        .append(session.id, 'notice', text, runtime.clock.now())
        .catch((e: unknown) => runtime.logger.log('warn', 'gc note failed', e));
    } catch (error) {
      items.push({
        kind: 'skipped',
        session,
        reason: error instanceof Error ? error.message : String(error),
      });
    }
  }
  return { project, items, bytes };
}

/** The project's shared folders (worktree.shared); none when the stored value is not valid. */
export async function projectSharedFolders(
  store: Store,
  project: Project,
): Promise<readonly string[]> {
  const parsed = parseSharedFolders(
    (await store.settings.getProject(project.id, SHARED_FOLDERS_KEY)) ?? '',
  );
  return parsed.ok ? parsed.paths : [];
}

/** The age setting, in days. */
export function gcDays(settings: Readonly<Record<string, string>>): number {
  const value = settings[GC_DAYS_KEY] ?? '';
  return /^\d+$/.test(value) ? Number(value) : DEFAULT_GC_DAYS;
}

/**
 * At TUI start-up, with the setting on: reclaims the worktrees of every
 * registered project's old Done and Canceled sessions and says how much
 * space came back.
 */
export async function reclaimOnStart(deps: GcDeps & { readonly app: App }): Promise<void> {
  const { app, store } = deps;
  if ((await store.settings.getGlobal(GC_ON_START_KEY)) !== 'on') return;
  const days = gcDays({ [GC_DAYS_KEY]: (await store.settings.getGlobal(GC_DAYS_KEY)) ?? '' });
  let bytes = 0;
  let removed = 0;
  let kept = 0;
  for (const project of await store.projects.list()) {
    if (!existsSync(project.path)) continue;
    const report = await collectGarbage(deps, project, { days, dryRun: false });
    bytes += report.bytes;
    for (const item of report.items) {
      if (item.kind !== 'removed') continue;
      removed++;
      if (item.snapshot) kept++;
    }
  }
  if (removed === 0) return;
  app.emit({
    type: 'notice',
    notice: {
      level: 'info',
      text: `Reclaimed ${formatBytes(bytes)}: removed ${removed} worktree${removed === 1 ? '' : 's'} of sessions done over ${days} days ago${kept > 0 ? ` (${kept} with uncommitted work kept in refs/grove/snapshots; each session's transcript says how to restore it)` : ''}.`,
    },
  });
}
