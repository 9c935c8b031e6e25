import { existsSync } from 'node:fs';
import { shortId, type Session } from '../../domain/session.js';
import { sanitizeText } from '../../domain/sanitize.js';
import type { App } from '../app.js';
import type { GitClient, Runtime, Store, TerminalHandoff } from '../ports.js';
import type { ShellRunner } from '../../infra/shell.js';
import {
  newSessionPlace,
  prepareWorktree,
  removeUnstartedCheckout,
  worktreeRoot,
} from './session-setup.js';
import { provisionalTitle, type SessionService } from './sessions.js';

export interface SessionActionDeps {
  readonly app: App;
  readonly store: Store;
  readonly git: GitClient;
  readonly shell: ShellRunner;
  readonly runtime: Runtime;
  readonly sessions: SessionService;
  /** Queues a session's first prompt (a start_prompt operation) and wakes its worker. */
  readonly enqueueStart: (sessionId: string, prompt: string, display: string) => Promise<void>;
  /** Measures the session's diff again and publishes it. */
  readonly refreshDiff: (sessionId: string) => Promise<void>;
  /** The TUI's terminal (absent in headless commands). */
  readonly handoff?: TerminalHandoff;
  /** Aborted when Grove shuts down: a worktree setup command started here stops with it. */
  readonly shutdown?: AbortSignal;
}

/** How much of the parent's transcript a fork carries into its first prompt. */
export const FORK_CONTEXT_MAX = 2000;

function bounded(text: string, max: number): string {
  const clean = text.trim();
  return clean.length > max ? `${clean.slice(0, max - 1)}…` : clean;
}

/**
 * The context a fork's first prompt starts with: the parent's session
 * summary when it has one, else its last answer, bounded.
 */
export function forkContext(
  parent: Pick<Session, 'title' | 'summary'>,
  lastAnswer: string | null,
): string {
  const body = parent.summary?.session?.trim() ? parent.summary.session : (lastAnswer ?? '');
  const lines = [
    `Context: this session is a fork of the session "${parent.title || 'untitled'}". Its worktree starts from that session's branch and uncommitted work.`,
  ];
  if (body.trim() !== '')
    lines.push('What that session did so far:', bounded(body, FORK_CONTEXT_MAX));
  return lines.join('\n');
}

/**
 * Sessions beyond one turn: drafts written now and started later, forks,
 * continuing a finished session, and opening a worktree in a shell or an
 * editor.
 */
export class SessionActions {
  constructor(private readonly deps: SessionActionDeps) {}

  private get now(): number {
    return this.deps.runtime.clock.now();
  }

  private async project(session: Session): Promise<{ path: string; displayName: string }> {
    const project = await this.deps.store.projects.get(session.projectId);
    if (!project) throw new Error('The project is no longer registered.');
    return project;
  }

  /**
   * Keeps a new session's prompt as a draft: the session stays Draft, and its
   * worktree and branch (made for the composer) go until it is started.
   */
  async saveAsDraft(sessionId: string, text: string): Promise<Session | undefined> {
    const { store, git } = this.deps;
    const session = await store.sessions.get(sessionId);
    if (!session || session.status !== 'Draft' || session.prompt !== null) return session;
    await store.sessions.update(
      sessionId,
      { prompt: text, title: provisionalTitle(text), titleProvisional: true },
      this.now,
    );
    await this.deps.sessions.whenReady(sessionId).catch(() => {});
    const project = await this.project(session);
    // Nothing was asked of an agent yet: the worktree holds only setup output.
    await removeUnstartedCheckout(git, project.path, session);
    await this.deps.sessions.note(
      sessionId,
      'notice',
      '[Draft] Saved as a draft. Start it from the list with r (R starts every draft); its worktree is made then, from the base branch as it is at that time.',
    );
    return this.deps.sessions.publishSession(sessionId);
  }

  /** Whether the session is a saved draft: a prompt, and not started yet. */
  static isSavedDraft(session: Pick<Session, 'status' | 'prompt'>): boolean {
    return session.status === 'Draft' && session.prompt !== null;
  }

  /** Starts a saved draft: makes its worktree, then queues its prompt. */
  async startDraft(sessionId: string): Promise<void> {
    const { store, git, runtime } = this.deps;
    const session = await store.sessions.get(sessionId);
    if (!session || !SessionActions.isSavedDraft(session) || session.prompt === null) return;
    if ((await store.operations.listUnfinished(sessionId)).length > 0) return;
    const project = await this.project(session);
    if (!existsSync(session.worktreePath)) {
      if (await git.branchExists(project.path, session.branch))
        await git.restoreWorktree(project.path, session.worktreePath, session.branch);
      else {
        const settings = this.deps.app.state.settings;
        await prepareWorktree(
          {
            store,
            git,
            shell: this.deps.shell,
            env: runtime.env,
            now: () => this.now,
            note: (sid, kind, text) => this.deps.sessions.note(sid, kind, text),
          },
          session,
          project.path,
          settings,
          this.deps.shutdown ?? new AbortController().signal,
        );
      }
    }
    await this.deps.enqueueStart(
      sessionId,
      withForkContext(session, session.prompt),
      session.prompt,
    );
  }

  /** Starts the given drafts (null: every saved draft of the active project), one after another. */
  async startDrafts(sessionIds: readonly string[] | null): Promise<number> {
    const ids =
      sessionIds ??
      this.deps.app.state.sessions.filter((s) => SessionActions.isSavedDraft(s)).map((s) => s.id);
    let started = 0;
    for (const id of ids) {
      const session = await this.deps.store.sessions.get(id);
      if (!session || !SessionActions.isSavedDraft(session)) continue;
      await this.startDraft(id);
      started++;
    }
    return started;
  }

  /**
   * Forks a session: a new session whose branch starts from the parent's
   * branch and worktree state (uncommitted and untracked work kept as a
   * snapshot commit built in a temporary index, so the parent's branch,
   * index and files are not touched), linked to its parent, with a short
   * summary of the parent's transcript before its first prompt.
   */
  async fork(parentId: string): Promise<Session> {
    const { store, git, runtime } = this.deps;
    const parent = await store.sessions.get(parentId);
    if (!parent) throw new Error('The session no longer exists.');
    if (!existsSync(parent.worktreePath))
      throw new Error(`The session has no worktree to fork from (${parent.worktreePath}).`);
    const project = await this.project(parent);
    const settings = this.deps.app.state.settings;
    const root = worktreeRoot(settings['worktree.dir'], runtime.paths.worktrees);
    const { id, branch, worktreePath } = await newSessionPlace(
      { git, store },
      project.path,
      root,
      project.displayName,
    );
    const snapshot = await git.snapshotWorktree(
      project.path,
      parent.worktreePath,
      `refs/grove/forks/${id}`,
      `Grove fork of ${shortId(parent.id)}: work in progress of "${parent.title}"`,
    );
    if (snapshot.kind === 'refused')
      throw new Error(`The worktree cannot be forked now: ${snapshot.reason}.`);
    const start = snapshot.kind === 'saved' ? snapshot.commit : snapshot.head;
    const transcript = await store.transcript.list(parentId);
    const lastAnswer =
      [...transcript].reverse().find((entry) => entry.kind === 'assistant_answer')?.content ?? null;
    await store.sessions.insert({
      id,
      projectId: parent.projectId,
      title: '',
      status: 'Draft',
      baseBranch: parent.baseBranch,
      branch,
      worktreePath,
      agent: parent.agent,
      model: parent.model,
      reasoning: parent.reasoning,
      permissionMode: parent.permissionMode,
      createdAt: this.now,
    });
    await store.sessions.update(
      id,
      { parentSessionId: parentId, forkContext: sanitizeText(forkContext(parent, lastAnswer)) },
      this.now,
    );
    const child = await store.sessions.get(id);
    if (!child) throw new Error('The new session could not be read back.');
    await prepareWorktree(
      {
        store,
        git,
        shell: this.deps.shell,
        env: runtime.env,
        now: () => this.now,
        note: (sid, kind, text) => this.deps.sessions.note(sid, kind, text),
      },
      child,
      project.path,
      settings,
      this.deps.shutdown ?? new AbortController().signal,
      start,
    );
    const kept = snapshot.kind === 'saved' ? ' with its uncommitted work' : '';
    await this.deps.sessions.note(
      id,
      'notice',
      `[Fork] Forked from "${parent.title || shortId(parent.id)}" (${shortId(parent.id)}) at ${start.slice(0, 12)}${kept}. Its summary goes before your first prompt.`,
    );
    await this.deps.sessions.note(
      parentId,
      'notice',
      `[Fork] Forked as ${shortId(id)} (branch ${branch}); this session's branch is unchanged.`,
    );
    await this.deps.sessions.publishSession(parentId);
    return (await this.deps.sessions.publishSession(id)) ?? child;
  }

  /**
   * Continues a Done or Canceled session: its worktree is made again from the
   * kept branch (or its branch; after a merge, a new branch from the base
   * branch, which holds the work) and it moves back to Review.
   */
  async continueSession(sessionId: string): Promise<Session | undefined> {
    const { store, git } = this.deps;
    const session = await store.sessions.get(sessionId);
    if (!session || (session.status !== 'Done' && session.status !== 'Canceled')) return session;
    const project = await this.project(session);
    let how: string;
    if (existsSync(session.worktreePath)) {
      how = `its worktree ${session.worktreePath} was still there`;
    } else if (session.keptBranch && (await git.branchExists(project.path, session.keptBranch))) {
      await git.restoreWorktree(project.path, session.worktreePath, session.keptBranch);
      await store.sessions.update(
        sessionId,
        { branch: session.keptBranch, keptBranch: null },
        this.now,
      );
      how = `its worktree was made again from the kept branch ${session.keptBranch}`;
    } else if (await git.branchExists(project.path, session.branch)) {
      await git.restoreWorktree(project.path, session.worktreePath, session.branch);
      how = `its worktree was made again from the branch ${session.branch}`;
    } else {
      await git.addWorktree(project.path, session.worktreePath, session.branch, session.baseBranch);
      how = `its branch ${session.branch} starts again from ${session.baseBranch}${session.mergedCommit ? `, which holds the merged work (${session.mergedCommit.slice(0, 12)})` : ''}`;
    }
    await store.sessions.setStatus(sessionId, 'Review', this.now);
    await this.deps.sessions.note(
      sessionId,
      'notice',
      `[Continue] Continued: ${how}. Reply to go on with the agent.`,
    );
    await this.deps.refreshDiff(sessionId);
    return this.deps.sessions.publishSession(sessionId);
  }

  /**
   * Opens the person's shell or editor in the session's worktree. Grove gives
   * it the terminal and waits (or opens a tmux window inside tmux); then the
   * diff is measured again, since files may have changed.
   */
  async openWorktree(sessionId: string, tool: 'shell' | 'editor'): Promise<string> {
    const handoff = this.deps.handoff;
    const session = await this.deps.store.sessions.get(sessionId);
    if (!session) throw new Error('The session no longer exists.');
    if (!handoff) throw new Error('No terminal to open it in.');
    if (!existsSync(session.worktreePath)) {
      throw new Error(
        SessionActions.isSavedDraft(session)
          ? 'A draft has no worktree yet: start it first (r in the list).'
          : `The session has no worktree (${session.worktreePath}).`,
      );
    }
    const result = await handoff.open(tool, session.worktreePath);
    if (result.waited) await this.deps.refreshDiff(sessionId);
    return result.waited
      ? `Back from ${result.command} in ${session.worktreePath}.`
      : `Opened ${result.command} in a new tmux window, in ${session.worktreePath}.`;
  }
}

/** A fork's first prompt: the parent's context, then what the person typed. */
export function withForkContext(session: Pick<Session, 'forkContext'>, prompt: string): string {
  const context = session.forkContext ?? null;
  return context ? `${context}\n\nYour task:\n${prompt}` : prompt;
}
