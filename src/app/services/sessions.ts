import { isAutoHost } from '../../domain/placement.js';
import { providerInfo, type ModelChoice, type ProviderId } from '../../domain/providers.js';
import { sanitizeLine, sanitizeText } from '../../domain/sanitize.js';
import {
  INSTALLED_AGENTS_KEY,
  settingValue,
  SETTING_ROWS,
  type ModelRole,
} from '../../domain/settings.js';
import { sizeOfDiff, type Session, type SessionLimitValues } from '../../domain/session.js';
import { issueSlug, type SessionIssue } from '../../domain/issue.js';
import {
  permissionModeDescription,
  permissionModeLabel,
  type PermissionMode,
} from '../../domain/permission-mode.js';
import type { TranscriptKind } from '../../domain/transcript.js';
import { queuedPromptText } from '../../domain/inbox.js';
import type { Operation } from '../../domain/operation.js';
import { activeProject, sessionById } from '../state.js';
import type { App } from '../app.js';
import type { GitClient, Runtime, Store } from '../ports.js';
import type { ShellRunner } from '../../infra/shell.js';
import {
  newSessionPlace,
  prepareWorktree,
  removeUnstartedCheckout,
  worktreeRoot,
} from './session-setup.js';

/**
 * Reads a model choice (agent, model, reasoning) for a role from the merged
 * settings. Given the installed agents, an agent the person has not chosen
 * follows them (never a default agent that is not there).
 */
export function modelChoice(
  settings: Readonly<Record<string, string>>,
  role: ModelRole,
  installed?: readonly ProviderId[],
): ModelChoice {
  const values = installed
    ? { ...settings, [INSTALLED_AGENTS_KEY]: installed.join(',') }
    : settings;
  const get = (field: string): string => {
    const row = SETTING_ROWS.find((r) => r.key === `${role}.${field}`);
    return row ? settingValue(row, values) : '';
  };
  const agent = get('agent');
  const info = providerInfo(agent);
  return {
    agent: info?.id ?? 'claude',
    model: get('model') || info?.defaultModel || '',
    reasoning: get('reasoning') || info?.defaultReasoning || '',
  };
}

export function clarificationPrompt(
  session: Pick<Session, 'questions'>,
  answers: readonly string[],
): string {
  const lines = ['Clarifications:'];
  session.questions.forEach((question, i) => {
    lines.push(`${i + 1}. Q: ${question.text}`);
    lines.push(`   A: ${answers[i] ?? 'no answer'}`);
  });
  return lines.join('\n');
}

export function provisionalTitle(prompt: string): string {
  const first = prompt.split('\n').find((line) => line.trim() !== '') ?? prompt;
  const clean = sanitizeLine(first.trim().replace(/\s+/g, ' '));
  return clean.length > 72 ? `${clean.slice(0, 71)}…` : clean;
}

/** The stored diff size of a session (what measureDiff returns). */
export type DiffFields = Pick<Session, 'addedLines' | 'deletedLines' | 'size' | 'hasDiff'>;

/** The stored diff size fields of git's counts (binary files count in the size by their bytes). */
export function diffFields(stats: Parameters<typeof sizeOfDiff>[0]): DiffFields {
  return {
    addedLines: stats.added,
    deletedLines: stats.deleted,
    size: sizeOfDiff(stats),
    hasDiff: stats.files.length > 0,
  };
}

export interface SessionServiceDeps {
  readonly app: App;
  readonly store: Store;
  readonly git: GitClient;
  readonly shell: ShellRunner;
  readonly runtime: Runtime;
  /** Aborted when Grove shuts down: work started here (the worktree setup command) stops with it. */
  readonly shutdown: AbortSignal;
}

/** Why a waiting prompt is dropped: a budget limit holds it, or its agent's usage limit. */
export type DropWhy = 'budget' | 'usageLimit';

const DROP_WORDS: Record<DropWhy, { readonly error: string; readonly notice: string }> = {
  budget: {
    error: 'dropped while a budget limit held it',
    notice: '[Budget] The held prompt was dropped, never sent',
  },
  usageLimit: {
    error: "dropped while it waited for its agent's usage limit",
    notice: '[Usage limit] The waiting prompt was dropped, never sent',
  },
};

/**
 * Session lifecycle outside of turns: creating a session and its worktree,
 * discarding an unstarted one, appending transcript rows, opening views.
 */
export class SessionService {
  /** Resolves when a session's worktree is ready (rejects if it failed). */
  private readonly ready = new Map<string, Promise<void>>();

  constructor(private readonly deps: SessionServiceDeps) {}

  private get now(): number {
    return this.deps.runtime.clock.now();
  }

  whenReady(sessionId: string): Promise<void> {
    return this.ready.get(sessionId) ?? Promise.resolve();
  }

  /**
   * Appends a transcript entry. Its text is sanitized: notices quote file
   * names, git and setup-script output, and prompts may be pasted from anywhere.
   */
  async note(
    sessionId: string,
    kind: TranscriptKind,
    raw: string,
    /** Written in the same transaction as the entry (how far a host's run was read). */
    alongside?: (tx: Store) => Promise<void>,
  ): Promise<void> {
    const content = sanitizeText(raw);
    const { store } = this.deps;
    const position = alongside
      ? await store.transaction(async (tx) => {
          const at = await tx.transcript.append(sessionId, kind, content, this.now);
          await alongside(tx);
          return at;
        })
      : await store.transcript.append(sessionId, kind, content, this.now);
    this.deps.app.emit({
      type: 'transcriptAppended',
      sessionId,
      entries: [{ position, kind, content, createdAt: this.now }],
    });
  }

  /**
   * Drops the session's first queued prompt, the one that waits (`why`): a
   * budget limit holds it (`grove deny budget:ID`) or it waits for its agent's
   * usage limit to lift (`grove deny usage:ID`). It is canceled and never sent;
   * the transcript says so; the session and the rest of its queue stay.
   * Undefined when no prompt waits that way.
   */
  async dropQueuedPrompt(sessionId: string, why: DropWhy): Promise<Operation | undefined> {
    const { store } = this.deps;
    const head = (await store.operations.listUnfinished(sessionId)).find(
      (op) => op.status === 'queued' && (op.kind === 'start_prompt' || op.kind === 'reply'),
    );
    if (!head || (why === 'usageLimit' && !((head.notBefore ?? 0) > this.now))) return undefined;
    const words = DROP_WORDS[why];
    // Asked first: a worker that claims it from now on cancels it instead of running it.
    await store.operations.requestCancel(head.id);
    if ((await store.operations.get(head.id))?.status === 'queued')
      await store.operations.finish(head.id, 'canceled', words.error, this.now);
    const prompt = queuedPromptText(head).split('\n')[0]?.slice(0, 120) ?? '';
    await this.note(sessionId, 'notice', `${words.notice}${prompt ? `: ${prompt}` : ''}.`);
    return head;
  }

  async publishSession(sessionId: string): Promise<Session | undefined> {
    const session = await this.deps.store.sessions.get(sessionId);
    if (session) this.deps.app.emit({ type: 'sessionUpdated', session });
    return session;
  }

  /**
   * Creates a Draft session on a new branch from the project's current
   * branch and starts making its worktree. Resolves with the session as soon
   * as the row exists; `whenReady` tells when the worktree is usable.
   */
  async create(
    projectId: number,
    choice: ModelChoice,
    settings: Readonly<Record<string, string>>,
    permissionMode: PermissionMode = 'auto_edit',
    /** The host it runs on (a host's name; `auto`: placed by its first turn); null: this machine. */
    host: string | null = null,
    /** The GitHub issue it starts from (its title gives the branch a slug); null: none. */
    issue: SessionIssue | null = null,
    /** Its own memory and process-count limits (grove run --memory-max, --tasks-max); null: the project's. */
    limits: SessionLimitValues | null = null,
  ): Promise<Session> {
    const { store, git, runtime } = this.deps;
    const project = await store.projects.get(projectId);
    if (!project) throw new Error('The project is no longer registered.');
    const baseBranch = await git.currentBranch(project.path);
    if (!baseBranch) {
      throw new Error(
        `${project.path} is not on a branch (detached HEAD). Check out a branch to start sessions from it.`,
      );
    }
    const root = worktreeRoot(settings['worktree.dir'], runtime.paths.worktrees);
    const { id, branch, worktreePath } = await newSessionPlace(
      { git, store },
      project.path,
      root,
      project.displayName,
      undefined,
      issue ? issueSlug(issue.title) : '',
    );
    const now = this.now;
    await store.sessions.insert({
      id,
      projectId,
      title: '',
      status: 'Draft',
      baseBranch,
      branch,
      worktreePath,
      agent: choice.agent,
      model: choice.model,
      reasoning: choice.reasoning,
      permissionMode,
      createdAt: now,
      updatedAt: now,
      ...(host === null || isAutoHost(host) ? {} : { host }),
      ...(issue === null ? {} : { issue }),
      ...(limits === null ? {} : { limits }),
    });
    // Placed by its first turn (services/admission.ts): this machine or a host with room.
    if (isAutoHost(host)) await store.hosts.markAuto(id, now);
    const session = await store.sessions.get(id);
    if (!session) throw new Error('The new session could not be read back.');
    const preparing = prepareWorktree(
      {
        store,
        git,
        shell: this.deps.shell,
        env: runtime.env,
        now: () => this.now,
        note: (sid, kind, text) => this.note(sid, kind, text),
      },
      session,
      project.path,
      settings,
      this.deps.shutdown,
    );
    this.ready.set(id, preparing);
    preparing.then(
      () => this.ready.delete(id),
      async (error: unknown) => {
        runtime.logger.log('error', `worktree for ${id} failed`, error);
        const message = error instanceof Error ? error.message : String(error);
        await this.note(
          id,
          'notice',
          `[Start Error] Could not create the worktree: ${message}`,
        ).catch(() => {});
      },
    );
    return session;
  }

  /** Deletes a session that never got a prompt, with its worktree and branch. */
  async discardUnstarted(sessionId: string): Promise<void> {
    const { store, git } = this.deps;
    const session = await store.sessions.get(sessionId);
    if (!session || session.prompt !== null || session.status !== 'Draft') return;
    const project = await store.projects.get(session.projectId);
    await this.whenReady(sessionId).catch(() => {});
    // Nothing was asked of an agent yet, so the worktree holds only setup output.
    if (project) await removeUnstartedCheckout(git, project.path, session);
    await store.sessions.delete(sessionId);
    this.ready.delete(sessionId);
    this.deps.app.emit({ type: 'sessionRemoved', sessionId });
  }

  /**
   * Changes the session's permission mode; the next turn runs in it. A
   * started session gets a transcript line saying so. Returns the session.
   */
  async setPermissionMode(sessionId: string, mode: PermissionMode): Promise<Session | undefined> {
    const before = await this.deps.store.sessions.get(sessionId);
    if (!before || before.permissionMode === mode) return before;
    await this.deps.store.sessions.update(sessionId, { permissionMode: mode }, this.now);
    // The header changes first, so the notice never shows next to the old mode.
    const after = await this.publishSession(sessionId);
    if (before.prompt !== null)
      await this.note(
        sessionId,
        'notice',
        `[Mode] ${permissionModeLabel(mode)}: ${permissionModeDescription(mode)}. It applies from the next turn.`,
      );
    return after;
  }

  /** Diff size and bucket from git, stored and published (after a rebase, a continue, opening a session). */
  async refreshDiff(sessionId: string): Promise<void> {
    const session = await this.deps.store.sessions.get(sessionId);
    if (!session) return;
    const patch = await this.measureDiff(session);
    if (!patch) return;
    try {
      await this.deps.store.sessions.update(sessionId, patch, this.now);
      await this.publishSession(sessionId);
    } catch (error) {
      this.deps.runtime.logger.log('warn', `storing the diff stats of ${sessionId} failed`, error);
    }
  }

  /** The session's diff size fields, measured by git; null (and a log line) when git cannot tell. */
  async measureDiff(
    session: Pick<Session, 'id' | 'worktreePath' | 'baseBranch'>,
  ): Promise<DiffFields | null> {
    try {
      return diffFields(await this.deps.git.diffStats(session.worktreePath, session.baseBranch));
    } catch (error) {
      this.deps.runtime.logger.log('warn', `diff stats for ${session.id} failed`, error);
      return null;
    }
  }

  async loadTranscript(sessionId: string): Promise<void> {
    const entries = await this.deps.store.transcript.list(sessionId);
    this.deps.app.emit({ type: 'transcriptLoaded', sessionId, entries });
  }

  /** The main model of the active project (used by `a`). */
  mainChoice(): ModelChoice {
    // Once the agent CLIs have been looked for, an unset main agent follows the installed ones.
    const detected = this.deps.app.state.agents;
    return modelChoice(
      this.deps.app.state.settings,
      'main',
      detected ? detected.filter((a) => a.path !== null).map((a) => a.id) : undefined,
    );
  }

  activeProjectId(): number | null {
    return activeProject(this.deps.app.state)?.id ?? null;
  }

  cached(sessionId: string): Session | undefined {
    return sessionById(this.deps.app.state, sessionId);
  }
}
