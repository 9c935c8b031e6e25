import { withGitStep, type AdvanceStep } from '../git-steps.js';
import { modelChoice } from '../sessions.js';
import { conflictPrompt } from './assisted-rebase.js';
import type { ReviewContext } from './context.js';

const MAX_ATTEMPTS = 3;

/**
 * `s`: brings the project's current branch in step with its upstream: pull
 * with rebase (conflicts go to the project's main agent), push, and a popup
 * with what came in and what went out. A dirty checkout is refused.
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
    this.ctx.popup('Syncing', [`Syncing ${project.displayName}…`], true);
    app.task('Sync', async () => {
      try {
        const lines = await this.sync(project.path, projectId);
        if (lines.ok) await this.afterSync(projectId, lines.branch);
        this.ctx.popup(lines.ok ? 'Sync finished' : 'Sync stopped', lines.lines);
      } catch (error) {
        this.ctx.popup('Sync stopped', [error instanceof Error ? error.message : String(error)]);
      } finally {
        this.running = false;
      }
    });
  }

  private async sync(
    dir: string,
    projectId: number,
  ): Promise<{ ok: boolean; branch: string; lines: string[] }> {
    const { git } = this.ctx.deps;
    const branch = await git.currentBranch(dir);
    if (!branch)
      return {
        ok: false,
        branch: '',
        lines: ['The main checkout is not on a branch (detached HEAD). Nothing was changed.'],
      };
    const unfinished = await git.inProgress(dir);
    if (unfinished) {
      return {
        ok: false,
        branch,
        lines: [
          `${dir} is in the middle of a git ${unfinished}. Finish or abort it there (git ${unfinished} --continue or --abort), then sync again. Nothing was changed.`,
        ],
      };
    }
    const headBefore = await git.headCommit(dir).catch(() => null);
    if (headBefore === null)
      return {
        ok: false,
        branch,
        lines: [
          `${branch} has no commits yet, so there is nothing to sync. Make a first commit, then sync again. Nothing was changed.`,
        ],
      };
    if (!(await git.isClean(dir))) {
      return {
        ok: false,
        branch,
        lines: [
          `${dir} has uncommitted changes. Commit or stash them, then sync again. Nothing was changed.`,
        ],
      };
    }
    const upstream = await git.upstreamOf(dir, branch);
    if (!upstream)
      return {
        ok: false,
        branch,
        lines: [`${branch} has no upstream branch. Set one with: git push -u origin ${branch}`],
      };
    const [remote, ...rest] = upstream.split('/');
    const remoteBranch = rest.join('/');
    if (!remote || !remoteBranch)
      return {
        ok: false,
        branch,
        lines: [`Could not read the upstream of ${branch} (${upstream}).`],
      };
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
      this.pullAndPush(dir, branch, upstream, remote, remoteBranch, advance),
    );
  }

  private async pullAndPush(
    dir: string,
    branch: string,
    upstream: string,
    remote: string,
    remoteBranch: string,
    advance: AdvanceStep,
  ): Promise<{ ok: boolean; branch: string; lines: string[] }> {
    const { git, agents, app } = this.ctx.deps;
    await git.fetch(dir, remote);
    const incoming = await git.commitSubjects(dir, `${branch}..${upstream}`);
    const outgoing = await git.commitSubjects(dir, `${upstream}..${branch}`);
    let result = await git.pullRebase(dir, remote, remoteBranch);
    const resolved = new Set<string>();
    let attempts = 0;
    while (!result.ok) {
      if (attempts >= MAX_ATTEMPTS) {
        await git.rebaseAbort(dir).catch(() => {});
        return {
          ok: false,
          branch,
          lines: [
            `Pulling stopped on conflicts in ${result.conflicts.join(', ')} that could not be resolved.`,
            'The rebase was aborted; your branch is as it was.',
          ],
        };
      }
      attempts++;
      await advance('resolving conflicts');
      this.ctx.popup(
        'Syncing',
        [
          `Conflicts in ${result.conflicts.join(', ')}: asking the agent to resolve them (attempt ${attempts} of ${MAX_ATTEMPTS})…`,
        ],
        true,
      );
      try {
        await agents.utility(
          modelChoice(app.state.settings, 'main'),
          conflictPrompt(upstream, result.conflicts),
          dir,
          // Quitting Grove stops the agent; the rebase is then aborted below.
          this.ctx.deps.shutdown,
          { write: true },
        );
      } catch (error) {
        await git.rebaseAbort(dir).catch(() => {});
        return {
          ok: false,
          branch,
          lines: [
            `Pulling stopped on conflicts in ${result.conflicts.join(', ')}; the agent could not resolve them: ${error instanceof Error ? error.message : String(error)}`,
            'The rebase was aborted; your branch is as it was.',
          ],
        };
      }
      const marked = await git.filesWithConflictMarkers(dir, result.conflicts);
      if (marked.length > 0) continue;
      for (const file of result.conflicts) resolved.add(file);
      await advance('continuing');
      await git.stageFiles(dir, result.conflicts);
      result = await git.rebaseContinue(dir);
    }
    const lines: string[] = [];
    lines.push(
      incoming.length > 0
        ? `Pulled ${incoming.length} commit(s) from ${upstream}:`
        : `Nothing new on ${upstream}.`,
    );
    for (const subject of incoming.slice(0, 8)) lines.push(`  ↓ ${subject}`);
    if (resolved.size > 0) lines.push(`Resolved conflicts in: ${[...resolved].join(', ')}`);
    if (outgoing.length > 0) {
      await advance('pushing');
      try {
        await git.push(dir, remote, `${branch}:${remoteBranch}`, { forceWithLease: true });
      } catch (error) {
        lines.push(`Push failed: ${error instanceof Error ? error.message : String(error)}`);
        return { ok: false, branch, lines };
      }
      lines.push(`Pushed ${outgoing.length} commit(s) to ${upstream}:`);
      for (const subject of outgoing.slice(0, 8)) lines.push(`  ↑ ${subject}`);
    } else {
      lines.push('Nothing to push.');
    }
    return { ok: true, branch, lines };
  }
}
