import { withGitStep, type AdvanceStep } from '../git-steps.js';
import { modelChoice } from '../sessions.js';
import { conflictPrompt } from './assisted-rebase.js';
import type { SyncReport, SyncStop } from '../../events.js';
import type { ReviewContext } from './context.js';

const MAX_ATTEMPTS = 3;

/** How a sync ended: what moved, or why it stopped (`branch`: the branch synced, when known). */
type SyncEnd =
  | {
      readonly ok: true;
      readonly branch: string;
      readonly report: SyncReport;
      /** Local commits the pull rebased: old id → new id. */
      readonly rewritten: ReadonlyMap<string, string>;
    }
  | { readonly ok: false; readonly stop: SyncStop };

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * `s`: brings the project's current branch in step with its upstream: pull
 * with rebase (conflicts go to the project's main agent), push, and events
 * that say what came in and what went out (the reducer shows them). A dirty
 * checkout is refused.
 */
export class SyncMain {
  private running = false;

  constructor(
    private readonly ctx: ReviewContext,
    private readonly afterSync: (projectId: number, branch: string) => Promise<void>,
  ) {}

  start(): void {
    const { app } = this.ctx.deps;
    if (this.running) {
      this.ctx.notice('info', 'A sync is already running.');
      return;
    }
    const projectId = app.state.activeProjectId;
    const project = app.state.projects.find((p) => p.id === projectId);
    if (!project || projectId === null) {
      this.ctx.notice('warn', 'No active project to sync.');
      return;
    }
    this.running = true;
    app.emit({ type: 'syncStarted', project: project.displayName });
    app.task('Sync', async () => {
      try {
        const end = await this.sync(project.path, projectId);
        if (end.ok) {
          await this.renameMergedCommits(projectId, end.branch, end.rewritten);
          await this.afterSync(projectId, end.branch);
          app.emit({ type: 'syncFinished', report: end.report });
        } else {
          app.emit({ type: 'syncStopped', reason: end.stop });
        }
      } catch (error) {
        app.emit({ type: 'syncStopped', reason: { kind: 'failed', message: errorText(error) } });
      } finally {
        this.running = false;
      }
    });
  }

  /**
   * The pull rebased the branch's own commits onto what came in, so the merge
   * commits of sessions landed there have new ids: each such session names
   * the commit that is on the branch now.
   */
  private async renameMergedCommits(
    projectId: number,
    branch: string,
    rewritten: ReadonlyMap<string, string>,
  ): Promise<void> {
    if (rewritten.size === 0) return;
    const { store, app } = this.ctx.deps;
    for (const session of await store.sessions.listByProject(projectId)) {
      const now = session.mergedCommit ? rewritten.get(session.mergedCommit) : undefined;
      if (!now || !session.mergedCommit || session.baseBranch !== branch) continue;
      await store.sessions.update(session.id, { mergedCommit: now }, this.ctx.now());
      await this.ctx.note(
        session.id,
        `[Sync] ${branch} was rebased onto its upstream: this session's merge commit is now ${now.slice(0, 12)} (was ${session.mergedCommit.slice(0, 12)}).`,
      );
      const updated = await store.sessions.get(session.id);
      if (updated) app.emit({ type: 'sessionUpdated', session: updated });
    }
  }

  private async sync(dir: string, projectId: number): Promise<SyncEnd> {
    const { git } = this.ctx.deps;
    const branch = await git.currentBranch(dir);
    if (!branch) return { ok: false, stop: { kind: 'detached' } };
    const unfinished = await git.inProgress(dir);
    if (unfinished) return { ok: false, stop: { kind: 'inProgress', dir, operation: unfinished } };
    const headBefore = await git.headCommit(dir).catch(() => null);
    if (headBefore === null) return { ok: false, stop: { kind: 'noCommits', branch } };
    if (!(await git.isClean(dir))) return { ok: false, stop: { kind: 'dirty', dir } };
    const upstream = await git.upstreamOf(dir, branch);
    if (!upstream) return { ok: false, stop: { kind: 'noUpstream', branch } };
    const [remote, ...rest] = upstream.split('/');
    const remoteBranch = rest.join('/');
    if (!remote || !remoteBranch)
      return { ok: false, stop: { kind: 'badUpstream', branch, upstream } };
    // Recorded before the pull starts: if Grove stops half-way, recovery aborts the rebase.
    const step = {
      kind: 'sync' as const,
      step: 'pulling',
      sessionId: null,
      projectId,
      dir,
      branch,
      headBefore,
      detail: { upstream },
    };
    return withGitStep(this.ctx.stepDeps(), step, 'Sync', (advance) =>
      this.pullAndPush(dir, projectId, branch, upstream, remote, remoteBranch, advance),
    );
  }

  private async pullAndPush(
    dir: string,
    projectId: number,
    branch: string,
    upstream: string,
    remote: string,
    remoteBranch: string,
    advance: AdvanceStep,
  ): Promise<SyncEnd> {
    const { git, agents, app } = this.ctx.deps;
    await git.fetch(dir, remote);
    const incoming = await git.commitSubjects(dir, `${branch}..${upstream}`);
    const outgoing = await git.commitSubjects(dir, `${upstream}..${branch}`);
    const before = await git.commitIdentities(dir, `${upstream}..${branch}`);
    let result = await git.pullRebase(dir, remote, remoteBranch);
    const resolved = new Set<string>();
    let attempts = 0;
    while (!result.ok) {
      if (attempts >= MAX_ATTEMPTS) {
        await git.rebaseAbort(dir).catch(() => {});
        return {
          ok: false,
          stop: { kind: 'conflicts', files: result.conflicts, agentError: null },
        };
      }
      attempts++;
      await advance('resolving conflicts');
      app.emit({
        type: 'syncResolving',
        files: result.conflicts,
        attempt: attempts,
        attempts: MAX_ATTEMPTS,
      });
      try {
        const choice = modelChoice(app.state.settings, 'main');
        const reply = await agents.utility(
          choice,
          conflictPrompt(upstream, result.conflicts),
          dir,
          // Quitting Grove stops the agent; the rebase is then aborted below.
          this.ctx.deps.shutdown,
          { write: true },
        );
        // Sync is the project's, not a session's: counted in the project's total.
        await this.ctx.deps.store.usage
          .addProject(projectId, choice.model, 'sync', reply.inputTokens, reply.outputTokens)
          .catch((error: unknown) =>
            this.ctx.deps.runtime.logger.log('warn', "sync's usage was not counted", error),
          );
      } catch (error) {
        await git.rebaseAbort(dir).catch(() => {});
        return {
          ok: false,
          stop: { kind: 'conflicts', files: result.conflicts, agentError: errorText(error) },
        };
      }
      const marked = await git.filesWithConflictMarkers(dir, result.conflicts);
      if (marked.length > 0) continue;
      for (const file of result.conflicts) resolved.add(file);
      await advance('continuing');
      await git.stageFiles(dir, result.conflicts);
      result = await git.rebaseContinue(dir);
    }
    const report: SyncReport = { upstream, incoming, outgoing, resolved: [...resolved] };
    const rewritten = new Map<string, string>();
    if (incoming.length > 0 && before.length > 0) {
      const after = new Map(
        (await git.commitIdentities(dir, `${upstream}..${branch}`)).map((c) => [
          c.identity,
          c.commit,
        ]),
      );
      for (const old of before) {
        const now = after.get(old.identity);
        if (now && now !== old.commit) rewritten.set(old.commit, now);
      }
    }
    if (outgoing.length > 0) {
      await advance('pushing');
      try {
        await git.push(dir, remote, `${branch}:${remoteBranch}`, { forceWithLease: true });
      } catch (error) {
        return { ok: false, stop: { kind: 'pushFailed', report, error: errorText(error) } };
      }
    }
    return { ok: true, branch, report, rewritten };
  }
}
