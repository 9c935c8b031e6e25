import { existsSync } from 'node:fs';
import { diskStale } from '../../domain/disk.js';
import { worktreeDisk } from '../../infra/disk-usage.js';
import type { App } from '../app.js';
import type { Session } from '../../domain/session.js';
import type { Runtime, Store } from '../ports.js';
import { projectSharedFolders } from './gc.js';

/**
 * The Disk view's figures, in the background: each of the active project's
 * sessions (the archive's included; or only the session the session view
 * opens) with a worktree on this machine is walked, one after another,
 * when its last figure is older than DISK_REFRESH_MS, and reported as a
 * `diskMeasured` event. Nothing on the key or render path.
 */
export async function measureDisks(
  deps: { readonly app: App; readonly store: Store; readonly runtime: Runtime },
  signal: AbortSignal,
  /** Only this session (the one the session view opens), when given. */
  only?: Session,
): Promise<void> {
  const { app, store, runtime } = deps;
  const project = app.state.projects.find(
    (p) => p.id === (only?.projectId ?? app.state.activeProjectId),
  );
  if (!project) return;
  const shared = await projectSharedFolders(store, project);
  // The archive too: a Done or Canceled session's worktree is what gc reclaims.
  for (const session of only ? [only] : await store.sessions.listByProject(project.id)) {
    if (signal.aborted) return;
    if (session.host) continue;
    if (!diskStale(app.state.disk[session.id], runtime.clock.now())) continue;
    if (!existsSync(session.worktreePath)) continue;
    const disk = await worktreeDisk(session.worktreePath, shared, signal);
    if (signal.aborted) return;
    app.emit({
      type: 'diskMeasured',
      sessionId: session.id,
      disk: {
        ...disk,
        measuredAt: runtime.clock.now(),
        session: {
          id: session.id,
          projectId: session.projectId,
          title: session.title,
          branch: session.branch,
          status: session.status,
          updatedAt: session.updatedAt,
          worktreePath: session.worktreePath,
        },
      },
    });
  }
}

type DiskDeps = Parameters<typeof measureDisks>[0];

/** The walks the TUI asks for: every worktree (the Disk view), or the one the session view opens. */
export class DiskWalks {
  private walkingAll = false;

  constructor(
    private readonly deps: DiskDeps,
    private readonly signal: AbortSignal,
  ) {}

  /** Walks the project's worktrees, one walk at a time (a second D while it runs adds nothing). */
  all(): void {
    if (this.walkingAll) return;
    this.walkingAll = true;
    this.deps.app.task('Measuring the worktrees', () =>
      measureDisks(this.deps, this.signal).finally(() => (this.walkingAll = false)),
    );
  }

  /** Walks one session's worktree, unless its figure is recent (the session view's line). */
  one(session: Session): void {
    this.deps.app.task('Measuring the worktree', () =>
      measureDisks(this.deps, this.signal, session),
    );
  }
}
