import * as z from 'zod/mini';
import { parseInterval } from '../../domain/settings.js';
import type { App } from '../app.js';
import type { GitClient, Runtime, Store } from '../ports.js';
import type { GitStatusView } from '../state.js';
import type { GitProbeKind } from '../../infra/db/session-repo.js';
import { OverlapDetector, withVariantGroups } from './overlap.js';

export interface GitStatusDeps {
  readonly app: App;
  readonly store: Store;
  readonly git: GitClient;
  readonly runtime: Runtime;
}

const MAX_BACKOFF = 8;

const baseProbeSchema = z.object({ ahead: z.number(), behind: z.number(), conflict: z.boolean() });
const pathsSchema = z.array(z.string());

/** A stored JSON value as its schema says, or null (a value this Grove cannot read is probed again). */
function parseJson<T>(text: string, schema: z.ZodMiniType<T>): T | null {
  try {
    const parsed = schema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** What a session branch looked like against its base the last time it was probed. */
interface Probe {
  readonly key: string;
  readonly ahead: number;
  readonly behind: number;
  readonly conflict: boolean;
}

/**
 * Every interval (30 s by default): fetch, ahead/behind of the project
 * branch and of each active session branch, and a merge-tree conflict
 * probe. One app event per cycle; results of an older generation (a
 * project switch happened) are dropped. A failing fetch backs off and is
 * reported once, not every cycle. Branch tips come from one git call; a
 * session whose branch and base are where they were last cycle reuses its
 * last probe, so a quiet project costs a handful of git calls per cycle
 * however many sessions it has. The same cycle finds live sessions that
 * changed the same files, or would conflict with each other (OverlapDetector,
 * also cached by branch tips).
 */
export class GitStatusPoller {
  private generation = 0;
  private timer: NodeJS.Timeout | null = null;
  private failures = 0;
  private reported = false;
  private readonly probes = new Map<string, Probe>();
  /** Live sessions that touch the same files; probed again only for branches that moved. */
  readonly overlap: OverlapDetector;

  /** The project the cycle runs for (null: stopped). */
  private projectId: number | null = null;
  /** The project whose stored probes are in `probes` and the overlap detector. */
  private storedFor: number | null = null;

  constructor(private readonly deps: GitStatusDeps) {
    this.overlap = new OverlapDetector(deps.git, (sessionId, tips, paths) =>
      this.keep(sessionId, 'paths', tips, paths),
    );
    // A sync moved the project branch (and fetched): the figures are looked at again at once.
    deps.app.subscribe((event) => {
      if (
        (event.type === 'syncFinished' || event.type === 'syncStopped') &&
        this.projectId !== null
      )
        this.restart(this.projectId);
    });
  }

  restart(projectId: number): void {
    this.stop();
    this.projectId = projectId;
    const generation = ++this.generation;
    // A quick local snapshot first (no network), then the periodic cycle.
    void this.cycle(projectId, generation, false).finally(() =>
      this.schedule(projectId, generation),
    );
  }

  stop(): void {
    this.projectId = null;
    this.generation++;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private interval(): number | null {
    return parseInterval(this.deps.app.state.settings['git.statusInterval'] ?? '30s');
  }

  private schedule(projectId: number, generation: number): void {
    if (generation !== this.generation) return;
    const base = this.interval();
    if (base === null) return;
    const delay = base * Math.min(MAX_BACKOFF, 2 ** this.failures);
    this.timer = setTimeout(() => {
      void this.cycle(projectId, generation, true).finally(() =>
        this.schedule(projectId, generation),
      );
    }, delay);
    this.timer.unref();
  }

  /**
   * The figures an earlier Grove stored for the project's live sessions, so a
   * start where no branch moved runs no git per session. Read once per project.
   */
  private async recall(projectId: number): Promise<void> {
    if (this.storedFor === projectId) return;
    this.storedFor = projectId;
    this.probes.clear();
    const sessions = this.deps.store.sessions;
    const none = new Map<string, { tips: string; value: string }>();
    const [base, paths] = await Promise.all([
      sessions.gitProbes(projectId, 'base').catch(() => none),
      sessions.gitProbes(projectId, 'paths').catch(() => none),
    ]);
    for (const [id, { tips, value }] of base) {
      const probe = parseJson(value, baseProbeSchema);
      if (probe) this.probes.set(id, { key: tips, ...probe });
    }
    const known = new Map<string, { key: string; paths: readonly string[] }>();
    for (const [id, { tips, value }] of paths) {
      const list = parseJson(value, pathsSchema);
      if (list) known.set(id, { key: tips, paths: list });
    }
    this.overlap.remember(known);
  }

  /** Stores a session's figures with the tips they were read at (a failed write only costs git next start). */
  private keep(sessionId: string, kind: GitProbeKind, tips: string, value: unknown): void {
    this.deps.store.sessions
      .saveGitProbe(sessionId, kind, { tips, value: JSON.stringify(value) })
      .catch((e: unknown) => this.deps.runtime.logger.log('warn', 'storing git figures failed', e));
  }

  /** One full cycle; exposed for tests. */
  async cycle(
    projectId: number,
    generation: number,
    fetch: boolean,
  ): Promise<GitStatusView | null> {
    const { store, git, app, runtime } = this.deps;
    const project = await store.projects.get(projectId);
    if (!project) return null;
    let error: string | null = null;
    if (fetch) {
      try {
        const remotes = await git.listRemotes(project.path);
        if (remotes.length > 0) await git.fetch(project.path);
        this.failures = 0;
        this.reported = false;
      } catch (e) {
        this.failures++;
        error = e instanceof Error ? e.message : String(e);
        runtime.logger.log('warn', 'background fetch failed', e);
        if (!this.reported) {
          this.reported = true;
          app.emit({
            type: 'notice',
            notice: {
              level: 'warn',
              text: `Background fetch failed (retrying less often): ${error.split('\n')[0] ?? ''}`,
            },
          });
        }
      }
    }
    const branch = await git.currentBranch(project.path).catch(() => null);
    const upstream = branch ? await git.upstreamOf(project.path, branch).catch(() => null) : null;
    const track =
      branch && upstream
        ? await git.aheadBehind(project.path, branch, upstream).catch(() => null)
        : null;
    await this.recall(projectId);
    const sessions = (await store.sessions.listLive(projectId)).filter((s) => s.status !== 'Draft');
    const perSession: Record<string, { ahead: number; behind: number }> = {};
    const conflicts: string[] = [];
    const heads =
      sessions.length > 0
        ? await git.branchHeads(project.path).catch(() => new Map<string, string>())
        : new Map<string, string>();
    for (const session of sessions) {
      if (generation !== this.generation) return null;
      const tip = heads.get(session.branch);
      const baseTip = heads.get(session.baseBranch);
      if (!tip) continue; // The branch does not exist (yet): its worktree is still being created.
      const key = `${tip} ${baseTip ?? ''}`;
      let probe = this.probes.get(session.id);
      // A base that is not a local branch (a tag, a remote ref) is probed every cycle.
      if (probe?.key !== key || baseTip === undefined) {
        try {
          const ab = await git.aheadBehind(project.path, session.branch, session.baseBranch);
          const conflict =
            ab.ahead > 0 &&
            ab.behind > 0 &&
            (await git.mergeTreeConflicts(project.path, session.baseBranch, session.branch))
              .length > 0;
          probe = { key, ...ab, conflict };
          this.probes.set(session.id, probe);
          if (baseTip !== undefined) this.keep(session.id, 'base', key, { ...ab, conflict });
        } catch {
          continue;
        }
      }
      perSession[session.id] = { ahead: probe.ahead, behind: probe.behind };
      if (probe.conflict) conflicts.push(session.id);
    }
    const active = new Set(sessions.map((s) => s.id));
    for (const id of this.probes.keys()) if (!active.has(id)) this.probes.delete(id);
    if (generation !== this.generation) return null;
    const groups = await store.groups.listByProject(projectId).catch(() => []);
    const overlaps = await this.overlap
      .detect(project.path, withVariantGroups(sessions, groups), heads)
      .then(
        (result) => result.overlaps,
        (e: unknown) => {
          runtime.logger.log('warn', 'overlap detection failed', e);
          return undefined;
        },
      );
    if (generation !== this.generation) return null;
    const status: GitStatusView = {
      branch,
      upstream,
      ahead: track?.ahead ?? 0,
      behind: track?.behind ?? 0,
      conflicts,
      sessions: perSession,
      ...(overlaps ? { overlaps } : {}),
      error,
    };
    app.emit({ type: 'gitStatus', projectId, status });
    return status;
  }
}
