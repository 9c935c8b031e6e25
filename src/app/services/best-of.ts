import { randomUUID } from 'node:crypto';
import {
  checkOutputTail,
  judgePrompt,
  parseRanking,
  variantTitle,
  winnerOf,
  type CheckResult,
  type SessionGroup,
} from '../../domain/best-of.js';
import { hostAgentProblem } from '../../domain/host.js';
import type { PermissionMode } from '../../domain/permission-mode.js';
import { AUTO_HOST_NAME, isAutoHost } from '../../domain/placement.js';
import { providerInfo, type ModelChoice } from '../../domain/providers.js';
import type { Session } from '../../domain/session.js';
import { isOwnerAlive } from '../../infra/owner.js';
import type { ShellRunner } from '../../infra/shell.js';
import type { App } from '../app.js';
import type { Agents, GitClient, Runtime, Store } from '../ports.js';
import { loadSettings } from './projects.js';
import { AgentGuard } from './agent-guard.js';
import { modelChoice, type SessionService } from './sessions.js';
import { countUsage, type CallTokens } from './usage.js';
import { splitTokens } from '../../domain/usage-roles.js';

// Best-of-N: one prompt fanned out to N sessions (a group). When every
// variant's turn is over, the project's check command runs in each worktree,
// then a read-only judge turn ranks the variants; one key merges (or
// publishes) the winner and cancels the others (their branches are kept, as
// cancel always does).

export interface BestOfDeps {
  readonly app: App;
  readonly store: Store;
  readonly git: GitClient;
  readonly agents: Agents;
  readonly shell: ShellRunner;
  readonly runtime: Runtime;
  readonly sessions: SessionService;
  /** Queues a session's first prompt (as the composer does); a refusal in words, or null. */
  readonly submitPrompt: (sessionId: string, prompt: string) => Promise<string | null>;
  /** Queues the session's merge (the merge queue's confirm). */
  readonly merge: (sessionId: string) => void;
  /** Queues the session's publish (`p` with the branch's own name, or the one already published). */
  readonly publish: (sessionId: string) => void;
  /** Cancels a session, keeping its branch. */
  readonly cancel: (sessionId: string) => Promise<void>;
  readonly shutdown: AbortSignal;
}

const DEFAULT_CHECK_TIMEOUT_MS = 5 * 60_000;

/** "90s", "5m", "1h" in ms; null when not a duration. */
function durationMs(text: string): number | null {
  const match = /^(\d+)\s*(s|m|h)$/.exec(text.trim());
  if (!match) return null;
  return Number(match[1]) * (match[2] === 'h' ? 3600_000 : match[2] === 'm' ? 60_000 : 1000);
}

export class BestOfService {
  /** Groups being checked or judged by this process. */
  private readonly evaluating = new Map<string, Promise<void>>();
  /** Groups resumeStranded is looking at. */
  private readonly resuming = new Set<string>();

  constructor(private readonly deps: BestOfDeps) {}

  /**
   * Creates one session per choice, queues the prompt in each, and records
   * them as a group. `host`: where every variant runs (a host's name; `auto`:
   * each placed by its own first turn; null: this machine).
   */
  async start(
    projectId: number,
    prompt: string,
    choices: readonly ModelChoice[],
    mode?: PermissionMode,
    host: string | null = null,
  ): Promise<{ group: SessionGroup; sessions: Session[] }> {
    return this.fanOut(projectId, prompt, [], choices, mode, host);
  }

  /**
   * From the composer: a new session's first prompt runs in it and in `n - 1`
   * more sessions of the same agent and model, on the same host (or `auto`).
   */
  async startFrom(
    sessionId: string,
    prompt: string,
    n: number,
  ): Promise<{ group: SessionGroup; sessions: Session[] }> {
    const session = await this.deps.store.sessions.get(sessionId);
    if (!session) throw new Error('The session no longer exists.');
    const choice = {
      agent: session.agent,
      model: session.model,
      reasoning: session.reasoning,
    } as ModelChoice;
    const more = Array.from({ length: Math.max(0, n - 1) }, () => choice);
    const host = session.placeAuto === true ? AUTO_HOST_NAME : (session.host ?? null);
    return this.fanOut(session.projectId, prompt, [session], more, session.permissionMode, host);
  }

  private async fanOut(
    projectId: number,
    prompt: string,
    existing: readonly Session[],
    choices: readonly ModelChoice[],
    mode: PermissionMode | undefined,
    host: string | null,
  ): Promise<{ group: SessionGroup; sessions: Session[] }> {
    const { store, sessions, runtime, app } = this.deps;
    // Refused before anything is made: a host that is gone, an agent that cannot run there.
    if (host !== null && !isAutoHost(host)) {
      if (!(await store.hosts.get(host))) throw new Error(`No host is named '${host}'.`);
      for (const choice of choices) {
        const problem = hostAgentProblem(choice.agent, host, false);
        if (problem !== null) throw new Error(problem);
      }
    }
    const created: Session[] = [...existing];
    for (const choice of choices)
      created.push(await sessions.create(projectId, choice, app.state.settings, mode, host));
    const id = randomUUID();
    await store.groups.create(
      { id, projectId, prompt, sessionIds: created.map((s) => s.id) },
      runtime.clock.now(),
    );
    const group = await store.groups.get(id);
    if (!group) throw new Error('the group was not saved');
    for (const session of created) {
      await sessions.whenReady(session.id);
      const refused = await this.deps.submitPrompt(session.id, prompt);
      if (refused)
        runtime.logger.log('warn', `best-of: the prompt of ${session.id} was refused: ${refused}`);
      else await this.nameVariant(group, session.id);
    }
    await this.publish(id);
    return { group, sessions: created };
  }

  /**
   * Gives a variant's first-prompt title its place in the group ("… (variant
   * 2 of 3, claude/opus)"); the generated title that replaces it gets the
   * same (turn-commit.ts). Left alone once a generated title is there.
   */
  private async nameVariant(group: SessionGroup, sessionId: string): Promise<void> {
    const { store, sessions, runtime } = this.deps;
    const session = await store.sessions.get(sessionId);
    if (!session?.titleProvisional) return;
    await store.sessions.update(
      sessionId,
      { title: variantTitle(session.title, group, session) },
      runtime.clock.now(),
    );
    await sessions.publishSession(sessionId);
  }

  /** After a session's operation ends: when it was the last running variant of its group, check and judge the group. */
  async sessionSettled(sessionId: string): Promise<void> {
    const group = await this.deps.store.groups.ofSession(sessionId);
    if (!group || group.status !== 'running') return;
    if (!(await this.allSettled(group))) return;
    await this.evaluate(group.id);
  }

  /** Whether every variant's queued and running turns are over. */
  async allSettled(group: SessionGroup): Promise<boolean> {
    const { store } = this.deps;
    for (const member of group.members) {
      const unfinished = await store.operations.listUnfinished(member.sessionId);
      if (unfinished.some((op) => op.kind === 'start_prompt' || op.kind === 'reply')) return false;
      const session = await store.sessions.get(member.sessionId);
      if (session?.status === 'InProgress') return false;
    }
    return true;
  }

  private async anyDraft(group: SessionGroup): Promise<boolean> {
    for (const member of group.members)
      if ((await this.deps.store.sessions.get(member.sessionId))?.status === 'Draft') return true;
    return false;
  }

  /**
   * Runs the check command in each worktree, then the judge; resolves when
   * the group is ranked (or failed). `takeOverFrom` is the gone process that
   * left the group half evaluated (see resumeStranded).
   */
  evaluate(groupId: string, takeOverFrom?: string | null, neverEvaluated = false): Promise<void> {
    const running = this.evaluating.get(groupId);
    if (running) return running;
    const job = this.runEvaluation(groupId, takeOverFrom, neverEvaluated).finally(() =>
      this.evaluating.delete(groupId),
    );
    this.evaluating.set(groupId, job);
    return job;
  }

  /**
   * Evaluates the project's groups a gone Grove process left unevaluated,
   * once all their variants are settled: left in checking or judging (it
   * died or was killed while evaluating), or still running with no
   * evaluator (it died after the last variant finished, before the checks
   * began). Each variant's transcript and the group say so.
   */
  async resumeStranded(projectId: number): Promise<void> {
    await this.resumeStrandedGroups(projectId);
  }

  /** resumeStranded, returning the ids of the groups it evaluated. */
  async resumeStrandedGroups(projectId: number): Promise<string[]> {
    const now = this.deps.runtime.clock.now();
    const resumed: string[] = [];
    for (const group of await this.deps.store.groups.listByProject(projectId)) {
      if (group.status !== 'running' && group.status !== 'checking' && group.status !== 'judging')
        continue;
      if (this.evaluating.has(group.id) || this.resuming.has(group.id)) continue;
      this.resuming.add(group.id);
      try {
        if (await this.resume(group, now)) resumed.push(group.id);
      } finally {
        this.resuming.delete(group.id);
      }
    }
    return resumed;
  }

  private async resume(group: SessionGroup, now: number): Promise<boolean> {
    const { store, runtime } = this.deps;
    const evaluator = await store.groups.evaluatorOf(group.id);
    if (isOwnerAlive(evaluator, runtime.owner, null, now)) return false;
    if (!(await this.allSettled(group))) return false;
    // A running group's variants are all over: the process that ran the last one
    // starts its checks at once (sessionSettled), unless it stopped first. The
    // claim in runEvaluation is atomic, so a live one racing this keeps it.
    const never = group.status === 'running';
    // A group being created has variants whose prompt is not queued yet (Draft): not over, not begun.
    if (never && (await this.anyDraft(group))) return false;
    runtime.logger.log(
      'info',
      `best-of: group ${group.id} was left ${group.status} by ${evaluator ?? 'an unknown process'}; evaluating it ${never ? 'now' : 'again'}`,
    );
    for (const member of group.members)
      await this.deps.sessions.note(
        member.sessionId,
        'notice',
        never
          ? '[Best of N] Grove stopped after the variants of this group finished, before it was checked and judged: checking and judging it now.'
          : `[Best of N] Grove stopped while this group was ${group.status === 'checking' ? 'being checked' : 'being judged'}: checking and judging it again.`,
      );
    await this.evaluate(group.id, evaluator, never);
    return true;
  }

  private async runEvaluation(
    groupId: string,
    takeOverFrom?: string | null,
    neverEvaluated = false,
  ): Promise<void> {
    const { store, git, agents, runtime, app } = this.deps;
    const group = await store.groups.get(groupId);
    if (!group) return;
    const project = await store.projects.get(group.projectId);
    if (!project) return;
    const resumed = takeOverFrom !== undefined;
    // One process evaluates a group; another that started it first keeps it.
    const evaluator = await store.groups.evaluatorOf(groupId);
    if (
      evaluator !== runtime.owner &&
      !(await store.groups.claimEvaluation(groupId, runtime.owner, resumed ? takeOverFrom : null))
    )
      return;
    const resumeNote = !resumed
      ? null
      : neverEvaluated
        ? 'Checked and judged by a later Grove: the Grove process running the group stopped after its variants finished.'
        : 'Checked and judged again: the Grove process that was evaluating the group stopped.';
    const settings = await loadSettings(store, group.projectId);
    const command = (settings['check.command'] ?? '').trim();
    const timeoutMs = durationMs(settings['check.timeout'] ?? '') ?? DEFAULT_CHECK_TIMEOUT_MS;
    const signal = this.deps.shutdown;
    try {
      await store.groups.setStatus(groupId, 'checking', resumeNote ?? undefined);
      await this.publish(groupId);
      // Checks and the judge run agent code: what they change in the shared git folder is put back and flagged.
      const guard = new AgentGuard({
        ...this.deps,
        note: (id, text) => this.deps.sessions.note(id, 'notice', text),
      });
      const members: { session: Session; check: CheckResult | null }[] = [];
      for (const member of group.members) {
        const session = await store.sessions.get(member.sessionId);
        if (!session) continue;
        let check: CheckResult | null = null;
        if (command !== '') {
          // The check runs code the variant's agent wrote (its test scripts): in its sandbox.
          const result = await guard.around(
            guard.forSession(session, project.path, 'the check command'),
            () =>
              agents.shell(providerInfo(session.agent)?.id ?? 'claude', project.path).run(command, {
                cwd: session.worktreePath,
                env: {
                  ...runtime.env,
                  GROVE_WORKTREE: session.worktreePath,
                  GROVE_SESSION_ID: session.id,
                  GROVE_BASE_BRANCH: session.baseBranch,
                },
                timeoutMs,
                signal,
              }),
          );
          check = {
            exitCode: result.exitCode,
            timedOut: result.timedOut,
            output: checkOutputTail(result.output),
          };
          await store.groups.setCheck(session.id, check);
          await this.deps.sessions.note(
            session.id,
            'notice',
            `[Check] \`${command}\` ${check.timedOut ? `timed out after ${Math.round(timeoutMs / 1000)}s` : check.exitCode === 0 ? 'passed' : `failed (exit ${check.exitCode})`}.`,
          );
        }
        members.push({ session, check });
      }
      await store.groups.setStatus(groupId, 'judging');
      await this.publish(groupId);
      const variants = [];
      for (const { session, check } of members) {
        const diff = await git
          .diffAgainstBase(session.worktreePath, session.baseBranch)
          .catch(() => null);
        variants.push({
          sessionId: session.id,
          label: `${session.agent}/${session.model}`,
          diff: diff?.patch ?? '',
          check,
        });
      }
      const choice = modelChoice(settings, 'review', agents.installed());
      // The judge runs in the main checkout: what it changes flags every variant.
      const judged = {
        sessionIds: members.map((m) => m.session.id),
        projectId: project.id,
        mainCheckout: project.path,
        ownBranch: null,
        what: 'the best-of judge',
      };
      const prompt = judgePrompt(group.prompt, variants, command);
      const reply = await guard.around(judged, () =>
        agents.utility(choice, prompt, project.path, signal),
      );
      await countJudge(
        store,
        members.map((m) => m.session.id),
        choice.model,
        reply,
      );
      const ranking = parseRanking(
        reply.answer,
        variants.map((v) => v.sessionId),
      );
      if (!ranking) {
        await store.groups.setStatus(
          groupId,
          'failed',
          `The judge's answer held no ranking: ${reply.answer.slice(0, 300)}`,
        );
      } else {
        await store.groups.setRanking(groupId, ranking, resumeNote);
        const winner = members.find((m) => m.session.id === ranking[0]?.sessionId)?.session;
        app.emit({
          type: 'notice',
          notice: {
            level: 'info',
            text: `Best of ${members.length} ranked: ${winner ? winner.title || winner.branch : 'no winner'} is first.`,
          },
        });
      }
    } catch (error) {
      runtime.logger.log('warn', `best-of: evaluating group ${groupId} failed`, error);
      // Grove is stopping: the group stays where it is, and the next Grove to start evaluates it again.
      if (signal.aborted) return;
      await store.groups
        .setStatus(
          groupId,
          'failed',
          `Judging failed: ${error instanceof Error ? error.message : String(error)}`,
        )
        .catch(() => {});
    }
    await this.publish(groupId);
  }

  /**
   * Merges (or publishes, as a pull request) the group's winner (or
   * `sessionId`) and cancels the other variants, keeping their branches.
   */
  async choose(
    groupId: string,
    sessionId?: string,
    how: 'merge' | 'publish' = 'merge',
  ): Promise<string | null> {
    const { store } = this.deps;
    const group = await store.groups.get(groupId);
    if (!group) return 'The group no longer exists.';
    const winner = sessionId ?? winnerOf(group);
    if (!winner) return 'The group is not ranked yet.';
    await store.groups.choose(groupId, winner);
    if (how === 'publish') this.deps.publish(winner);
    else this.deps.merge(winner);
    for (const member of group.members) {
      if (member.sessionId === winner) continue;
      const session = await store.sessions.get(member.sessionId);
      if (!session || ['Done', 'Canceled', 'Merged'].includes(session.status)) continue;
      await this.deps.cancel(member.sessionId);
    }
    await this.publish(groupId);
    return null;
  }

  /** Loads the project's groups into the snapshot. */
  async load(projectId: number): Promise<void> {
    const groups = await this.deps.store.groups.listByProject(projectId);
    for (const group of groups) this.deps.app.emit({ type: 'groupChanged', group });
  }

  private async publish(groupId: string): Promise<void> {
    const group = await this.deps.store.groups.get(groupId);
    if (group) this.deps.app.emit({ type: 'groupChanged', group });
  }
}

/**
 * The judge's tokens are the group's: split in equal parts over its
 * variants (the first ones take the remainder), so each variant's usage
 * holds its share and the group's add up to what the judge spent.
 */
async function countJudge(
  store: Store,
  sessionIds: readonly string[],
  model: string,
  reply: CallTokens,
): Promise<void> {
  const parts = splitTokens(reply, sessionIds.length);
  const repairs = reply.repair ? splitTokens(reply.repair, sessionIds.length) : null;
  for (const [i, sessionId] of sessionIds.entries()) {
    const part = parts[i];
    if (!part) continue;
    await countUsage(store, sessionId, model, 'judge', { ...part, repair: repairs?.[i] ?? null });
  }
}
