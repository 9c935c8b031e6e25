import { waitingText } from '../domain/usage-limit.js';
import { existsSync, statSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { App } from '../app/app.js';
import { awaitedIntents, type AwaitedIntents } from '../app/awaited-intents.js';
import { Controller } from '../app/controller.js';
import { appQueries, type AppQueries } from '../app/queries.js';
import { loadSettings } from '../app/services/projects.js';
import { recoverInterruptedOperations } from '../app/services/recovery.js';
import { modelChoice } from '../app/services/sessions.js';
import { initialState } from '../app/state.js';
import { isOwnerAlive, VERSION, type Infra } from '../compose.js';
import { INTERRUPTED_BY_RESTART } from '../domain/operation.js';
import type { Project } from '../domain/project.js';
import { agentName, providerInfo, type ModelChoice } from '../domain/providers.js';
import { agentChoices } from '../domain/settings.js';
import type { Session } from '../domain/session.js';
import { shellRunner } from '../infra/shell.js';
import { createHostCleaner } from '../infra/hosts/remote-cleanup.js';
import { groveSsh } from '../infra/hosts/ssh.js';
import type { HeadlessCommand } from './args.js';
import { UsageError } from './usage-error.js';

export const EXIT = {
  ok: 0,
  failed: 1,
  usage: 2,
  questions: 3,
  timeout: 4,
  budget: 5,
  interrupted: 130,
} as const;

export interface HeadlessIo {
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
  readonly stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  readonly stderrIsTTY: boolean;
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
}

/** Progress lines go to standard error when asked (--progress) or when it is a terminal. */
export function showProgress(io: HeadlessIo, flag: boolean): boolean {
  return flag || io.stderrIsTTY;
}

/** A failure to report in words with an exit code (never a stack trace). */
export class CommandError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}

export interface HeadlessContext {
  readonly infra: Infra;
  readonly project: Project;
  readonly app: App;
  /** What a command asks of the app (the services the TUI's AppIntents use), waiting for each. */
  readonly intents: AwaitedIntents;
  /** What a command reads of the app and waits for. */
  readonly queries: AppQueries;
  /**
   * The controller behind them, for tests that drive the TUI's services on a screenless
   * context. Commands never use it (test/unit/cli-app-surface.test.ts).
   */
  readonly controller: Controller;
  readonly io: HeadlessIo;
  progress(text: string): void;
}

/** The project for -C DIR (or the current directory); it must be a git repository. */
export async function openProject(
  infra: Infra,
  io: HeadlessIo,
  dirOption: string | null,
): Promise<Project> {
  const dir = resolve(io.cwd, dirOption ?? '.');
  if (!existsSync(dir) || !statSync(dir).isDirectory())
    throw new UsageError(`no such directory: ${dir}`);
  const root = await infra.git.repoRoot(dir);
  if (!root) throw new CommandError(`${dir} is not inside a git repository.`, EXIT.failed);
  return infra.store.projects.upsert(root, basename(root), infra.clock.now());
}

const openContexts: HeadlessContext[] = [];

/** Stops agent processes and background tasks of every context this process opened. */
export async function shutdownContexts(): Promise<void> {
  await Promise.allSettled(openContexts.splice(0).map((ctx) => ctx.intents.shutdown()));
}

export async function headlessContext(
  infra: Infra,
  io: HeadlessIo,
  dirOption: string | null,
  showProgress: boolean,
): Promise<HeadlessContext> {
  const project = await openProject(infra, io, dirOption);
  // Operations of Grove processes that are gone are failed first, as the TUI does.
  // Agents left running by a dead Grove are ended first: recovery must not call a worktree "as it was" while one can write to it.
  await infra.agents.sweepLeftovers();
  await recoverInterruptedOperations(
    infra.store,
    infra.clock.now(),
    (owner, heartbeatAt) =>
      isOwnerAlive(owner, infra.runtime.owner, heartbeatAt, infra.clock.now()),
    undefined,
    {
      git: infra.git,
      owner: infra.runtime.owner,
      logger: infra.logger,
      onProjectNotice: (text) => io.stderr.write(`grove: ${text}\n`),
    },
  );
  const [sessions, settings] = await Promise.all([
    infra.store.sessions.listByProject(project.id),
    loadSettings(infra.store, project.id),
  ]);
  const app = new App(
    initialState({
      version: VERSION,
      columns: 80,
      rows: 24,
      now: infra.clock.now(),
      tab: 'sessions',
      projects: [project],
      activeProjectId: project.id,
      sessions,
      settings,
    }),
    infra.logger,
  );
  // No screen: keep the queue drained so the snapshot stays current.
  app.onWake(() => setImmediate(() => app.drain()));
  const controller = new Controller({
    app,
    store: infra.store,
    git: infra.git,
    agents: infra.agents,
    forge: infra.forge,
    shell: shellRunner,
    runtime: infra.runtime,
    hosts: infra.hosts,
    hostCleaner: createHostCleaner(groveSsh(io.env, infra.paths.home), infra.store.hosts),
    focusedReviews: false,
    settleHooks: true,
  });
  app.setIntents(controller);
  const progress = (text: string): void => {
    if (showProgress) io.stderr.write(`${text}\n`);
  };
  const ctx = {
    infra,
    project,
    app,
    intents: awaitedIntents(controller),
    queries: appQueries(controller),
    controller,
    io,
    progress,
  };
  openContexts.push(ctx);
  return ctx;
}

/** Resolves an id or unique prefix to a session of any project. */
export async function findSession(infra: Infra, id: string): Promise<Session> {
  const matches = await infra.store.sessions.findByIdPrefix(id);
  if (matches.length === 0) throw new CommandError(`no session matches '${id}'`, EXIT.usage);
  if (matches.length > 1) {
    const list = matches
      .slice(0, 5)
      .map((s) => `  ${s.id}  ${s.title}`)
      .join('\n');
    throw new CommandError(
      `'${id}' matches ${matches.length} sessions; give more of the id:\n${list}`,
      EXIT.usage,
    );
  }
  const [session] = matches;
  if (!session) throw new CommandError(`no session matches '${id}'`, EXIT.usage);
  return session;
}

export async function readPrompt(io: HeadlessIo, prompt: string | null): Promise<string> {
  if (prompt !== null && prompt !== '-') return prompt;
  if (io.stdin.isTTY) {
    if (prompt === '-')
      throw new UsageError("'-' reads the prompt from standard input, but it is a terminal");
    throw new UsageError('give the prompt as an argument, or pipe it on standard input');
  }
  const chunks: Buffer[] = [];
  for await (const chunk of io.stdin)
    chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  const text = Buffer.concat(chunks).toString('utf8').trim();
  if (text === '') throw new UsageError('the prompt on standard input is empty');
  return text;
}

export function choiceFor(
  settings: Readonly<Record<string, string>>,
  agent: string | null,
  model: string | null,
  reasoning: string | null,
): ModelChoice {
  const base = modelChoice(settings, 'main');
  if (agent === null && model === null && reasoning === null) return base;
  // An ACP agent of agents.json by its name (`opencode`) or id (`acp:opencode`).
  const known = agentChoices(settings);
  const id = agent === null ? base.agent : known.find((k) => k === agent || agentName(k) === agent);
  const info = id === undefined ? undefined : providerInfo(id);
  if (!info) {
    const names = known.map(agentName);
    const list = `${names.slice(0, -1).join(', ')} or ${names.at(-1) ?? ''}`;
    throw new UsageError(
      `unknown agent '${agent ?? ''}' (use ${list}, or name an ACP agent in GROVE_HOME/agents.json)`,
    );
  }
  const sameAgent = info.id === base.agent;
  const chosenReasoning = reasoning ?? (sameAgent ? base.reasoning : info.defaultReasoning);
  if (!info.reasoningLevels.includes(chosenReasoning)) {
    throw new UsageError(
      `${info.id} has no reasoning level '${chosenReasoning}' (use ${info.reasoningLevels.join(', ')})`,
    );
  }
  return {
    agent: info.id,
    model: model ?? (sameAgent ? base.model : info.defaultModel),
    reasoning: chosenReasoning,
  };
}

export interface TurnOutcome {
  readonly outcome: {
    readonly status: 'done' | 'failed' | 'canceled';
    readonly error: string | null;
  } | null;
  readonly timedOut: boolean;
  readonly interrupted: boolean;
  /** Why the turn did not start: a budget limit holds the session's queue (the prompt stays queued). */
  readonly held?: string | null;
}

const POLL_MS = 250;
/** How often a command waiting behind another Grove process looks whether that process is still alive. */
const LEASE_CHECK_MS = 3_000;

/** What a waiting command says when its own operation was failed because the process running it is gone. */
export const DRIVER_GONE_ERROR =
  'the Grove process that was running this work stopped before it finished; the session is back in Review with its worktree as it was.';

/**
 * Recovery while a command waits behind another Grove process (the TUI's
 * lease watch, for a command): when the process working on the session is
 * gone (killed, crashed), its agents are ended, its operation fails and the
 * session returns to Review with an `[Interrupted]` notice, so the waiting
 * command goes on. Looks at most every LEASE_CHECK_MS; true when it
 * recovered the session.
 */
function driverWatch(ctx: HeadlessContext, sessionId: string): () => Promise<boolean> {
  let last = 0;
  return async () => {
    const now = ctx.infra.clock.now();
    if (now - last < LEASE_CHECK_MS) return false;
    last = now;
    const recovered = await ctx.intents.recoverGone().catch((error: unknown): string[] => {
      ctx.infra.logger.log('warn', 'recovering the work of a gone Grove process failed', error);
      return [];
    });
    if (!recovered.includes(sessionId)) return false;
    ctx.progress(
      'The Grove process working on this session is gone; the session was recovered (its unfinished work failed) and this goes on.',
    );
    return true;
  };
}

/**
 * Submits a prompt as the TUI does and returns the id of the operation it
 * queued (found among the session's unfinished operations; this process's
 * worker may already be running it).
 */
export async function submitTurn(
  ctx: HeadlessContext,
  sessionId: string,
  prompt: string,
): Promise<string> {
  const { store } = ctx.infra;
  const before = new Set((await store.operations.listUnfinished(sessionId)).map((op) => op.id));
  let finishedHere: string | null = null;
  ctx.queries.onOutcome((o) => {
    if (
      o.operation.sessionId === sessionId &&
      !before.has(o.operation.id) &&
      o.operation.payload['prompt'] === prompt
    )
      finishedHere ??= o.operation.id;
  });
  const refused = await ctx.intents.submitPrompt(sessionId, prompt);
  if (refused) throw new CommandError(refused, EXIT.failed);
  for (;;) {
    const mine = (await store.operations.listUnfinished(sessionId)).find(
      (op) =>
        !before.has(op.id) &&
        (op.kind === 'start_prompt' || op.kind === 'reply') &&
        op.payload['prompt'] === prompt,
    );
    if (mine) return mine.id;
    // Already over (this process ran it at once): its outcome is on its way.
    if (finishedHere !== null) return finishedHere;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Waits until operation `operationId` of the session is over — run by this
 * process's worker, or by another Grove process holding the session's lease —
 * stopping it on timeout or Ctrl+C exactly as the TUI's stop does. This
 * process runs no other operation of the session (those are left to
 * whoever queued them).
 */
export async function waitForOperation(
  ctx: HeadlessContext,
  sessionId: string,
  operationId: string,
  timeoutMs: number | null,
): Promise<TurnOutcome> {
  const { intents, queries } = ctx;
  const { store, clock } = ctx.infra;
  let outcome: TurnOutcome['outcome'] = null;
  let timedOut = false;
  let interrupted = false;
  let held: string | null = null;
  let wake: () => void = () => {};
  const settle = (status: 'done' | 'failed' | 'canceled', error: string | null): void => {
    if (outcome) return;
    outcome = { status, error };
    intents.release(sessionId);
    wake();
  };
  queries.onOutcome((o) => {
    if (o.operation.id === operationId) settle(o.status, o.error);
  });
  // A budget limit holds the queue: the prompt stays queued for when the limit is raised, and this command ends.
  queries.onHeld((h) => {
    if (h.operation.sessionId !== sessionId || outcome || held !== null) return;
    held = h.reason;
    intents.release(sessionId);
    wake();
  });
  const stop = async (): Promise<void> => {
    if (queries.running(sessionId) === operationId) {
      intents.abort(sessionId);
      return;
    }
    const op = await store.operations.get(operationId);
    if (op?.status === 'queued') {
      // Not started (another process holds the session): it never will.
      intents.release(sessionId);
      await store.operations.finish(
        operationId,
        'canceled',
        'stopped before it started',
        clock.now(),
      );
      if (queries.running(sessionId) === operationId) intents.abort(sessionId);
      else settle('canceled', null);
    } else if (op?.status === 'running') {
      // Another process runs it: ask it to stop, and stop waiting.
      await store.operations.requestCancel(operationId);
      settle('canceled', null);
    }
  };
  const onSigint = (): void => {
    interrupted = true;
    ctx.progress('Stopping the turn (Ctrl+C)…');
    void stop();
  };
  // The terminal closed (SIGHUP): stop the turn the same way, without writing to it.
  const onHangup = (): void => {
    interrupted = true;
    void stop();
  };
  process.on('SIGINT', onSigint);
  process.on('SIGTERM', onSigint);
  process.on('SIGHUP', onHangup);
  const timer =
    timeoutMs === null
      ? null
      : setTimeout(() => {
          timedOut = true;
          ctx.progress(`Timed out after ${Math.round(timeoutMs / 1000)}s; stopping the turn…`);
          void stop();
        }, timeoutMs);
  let announcedWait = false;
  let announcedLimit: number | null = null;
  const recoverDeadDriver = driverWatch(ctx, sessionId);
  try {
    intents.runQueued(sessionId);
    while (!outcome && held === null) {
      const op = await store.operations.get(operationId);
      if (!op) {
        settle('failed', 'the operation disappeared');
      } else if (op.status === 'done' || op.status === 'failed' || op.status === 'canceled') {
        // Finished by another process (or by this one, just before its report).
        if (queries.running(sessionId) !== operationId)
          settle(
            op.status,
            op.status === 'failed' && op.lastError === INTERRUPTED_BY_RESTART
              ? DRIVER_GONE_ERROR
              : op.lastError,
          );
      } else if (op.status === 'queued' && op.notBefore && op.notBefore > clock.now()) {
        // Its agent reported a usage limit: the worker runs it again when the limit lifts.
        if (announcedLimit !== op.notBefore) {
          announcedLimit = op.notBefore;
          ctx.progress(
            `The prompt is ${waitingText({ agent: op.waitAgent ?? 'the agent', until: op.notBefore }, clock.now())} (a usage limit); it runs then (Ctrl+C cancels it).`,
          );
        }
        intents.runQueued(sessionId);
      } else if (op.status === 'queued' || op.owner !== ctx.infra.runtime.owner) {
        if (
          !announcedWait &&
          (op.status === 'running' ||
            (await store.operations.listUnfinished(sessionId)).some((o) => o.status === 'running'))
        ) {
          announcedWait = true;
          ctx.progress('Waiting for another Grove process that is working on this session…');
        }
        // A process that died while working on the session never lets go: recover the session, as the TUI does.
        await recoverDeadDriver();
        // Take it when the other process lets go (the worker also retries by itself).
        intents.runQueued(sessionId);
      }
      if (!outcome && held === null)
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, POLL_MS);
        });
    }
    await queries.idle(sessionId);
    await queries.turnsSettled();
  } finally {
    if (timer) clearTimeout(timer);
    process.off('SIGINT', onSigint);
    process.off('SIGTERM', onSigint);
    process.off('SIGHUP', onHangup);
  }
  return { outcome, timedOut, interrupted, held };
}

/** How long another process may take to stop its operation when asked. */
const STOP_WAIT_MS = 45_000;

/**
 * Another live Grove process running an operation of the session (a turn
 * in the TUI, another command) is asked to stop it — a persisted cancel
 * request its worker honours — and this waits until it has, so the session
 * is never driven by two processes at once.
 */
export async function stopOtherProcesses(ctx: HeadlessContext, sessionId: string): Promise<void> {
  const { store, clock, runtime } = ctx.infra;
  const othersRunning = async (): Promise<boolean> =>
    (await store.operations.listUnfinished(sessionId)).some(
      (op) => op.status === 'running' && op.owner !== runtime.owner,
    );
  if (!(await othersRunning())) return;
  for (const op of await store.operations.listUnfinished(sessionId))
    await store.operations.requestCancel(op.id);
  ctx.progress('Asking the other Grove process working on this session to stop…');
  const deadline = clock.now() + STOP_WAIT_MS;
  // A process that is gone never stops: its work is recovered instead.
  const recoverDeadDriver = driverWatch(ctx, sessionId);
  while (await othersRunning()) {
    if ((await recoverDeadDriver()) && !(await othersRunning())) break;
    if (clock.now() > deadline)
      throw new CommandError(
        'another Grove process is still working on this session and did not stop; nothing was changed. Try again.',
        EXIT.failed,
      );
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

export type { HeadlessCommand };
