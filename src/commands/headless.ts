import { existsSync, statSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { App } from '../app/app.js';
import { Controller } from '../app/controller.js';
import { loadSettings } from '../app/services/projects.js';
import { modelChoice } from '../app/services/sessions.js';
import { initialState } from '../app/state.js';
import type { AppEvent } from '../app/events.js';
import type { OperationOutcome } from '../app/services/worker.js';
import { isOwnerAlive, VERSION, type Infra } from '../compose.js';
import type { Project } from '../domain/project.js';
import { providerInfo, type ModelChoice } from '../domain/providers.js';
import { shortId, type Session } from '../domain/session.js';
import { shellRunner } from '../infra/shell.js';
import type { HeadlessCommand, OutputFormat } from './args.js';
import { UsageError } from './usage-error.js';
import { sessionResult } from './session-json.js';

export const EXIT = { ok: 0, failed: 1, usage: 2, questions: 3, timeout: 4, interrupted: 130 } as const;

export interface HeadlessIo {
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
  readonly stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  readonly stderrIsTTY: boolean;
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
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
  readonly controller: Controller;
  readonly io: HeadlessIo;
  progress(text: string): void;
}

/** The project for -C DIR (or the current directory); it must be a git repository. */
export async function openProject(infra: Infra, io: HeadlessIo, dirOption: string | null): Promise<Project> {
  const dir = resolve(io.cwd, dirOption ?? '.');
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new UsageError(`no such directory: ${dir}`);
  const root = await infra.git.repoRoot(dir);
  if (!root) throw new CommandError(`${dir} is not inside a git repository.`, EXIT.failed);
  return infra.store.projects.upsert(root, basename(root), infra.clock.now());
}

const openContexts: HeadlessContext[] = [];

/** Stops agent processes and background tasks of every context this process opened. */
export async function shutdownContexts(): Promise<void> {
  await Promise.allSettled(openContexts.splice(0).map((ctx) => ctx.controller.shutdown()));
}

export async function headlessContext(infra: Infra, io: HeadlessIo, dirOption: string | null, showProgress: boolean): Promise<HeadlessContext> {
  const project = await openProject(infra, io, dirOption);
  // Operations of Grove processes that are gone are failed first, as the TUI does.
  await infra.store.operations.failInterrupted(infra.clock.now(), (owner) => isOwnerAlive(owner, infra.runtime.owner));
  const [sessions, settings] = await Promise.all([infra.store.sessions.listByProject(project.id), loadSettings(infra.store, project.id)]);
  const app = new App(
    initialState({ version: VERSION, columns: 80, rows: 24, now: infra.clock.now(), tab: 'sessions', projects: [project], activeProjectId: project.id, sessions, settings }),
    infra.logger,
  );
  // No screen: keep the queue drained so the snapshot stays current.
  app.onWake(() => setImmediate(() => app.drain()));
  const controller = new Controller({ app, store: infra.store, git: infra.git, agents: infra.agents, forge: infra.forge, shell: shellRunner, runtime: infra.runtime, focusedReviews: false });
  app.setCommands(controller);
  const progress = (text: string): void => {
    if (showProgress) io.stderr.write(`${text}\n`);
  };
  const ctx = { infra, project, app, controller, io, progress };
  openContexts.push(ctx);
  return ctx;
}

/** Resolves an id or unique prefix to a session of any project. */
export async function findSession(infra: Infra, id: string): Promise<Session> {
  const matches = await infra.store.sessions.findByIdPrefix(id);
  if (matches.length === 0) throw new CommandError(`no session matches '${id}'`, EXIT.usage);
  if (matches.length > 1) {
    const list = matches.slice(0, 5).map((s) => `  ${s.id}  ${s.title}`).join('\n');
    throw new CommandError(`'${id}' matches ${matches.length} sessions; give more of the id:\n${list}`, EXIT.usage);
  }
  const [session] = matches;
  if (!session) throw new CommandError(`no session matches '${id}'`, EXIT.usage);
  return session;
}

export async function readPrompt(io: HeadlessIo, prompt: string | null): Promise<string> {
  if (prompt !== null && prompt !== '-') return prompt;
  if (io.stdin.isTTY) {
    if (prompt === '-') throw new UsageError("'-' reads the prompt from standard input, but it is a terminal");
    throw new UsageError('give the prompt as an argument, or pipe it on standard input');
  }
  const chunks: Buffer[] = [];
  for await (const chunk of io.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  const text = Buffer.concat(chunks).toString('utf8').trim();
  if (text === '') throw new UsageError('the prompt on standard input is empty');
  return text;
}

export function choiceFor(settings: Readonly<Record<string, string>>, agent: string | null, model: string | null, reasoning: string | null): ModelChoice {
  const base = modelChoice(settings, 'main');
  if (agent === null && model === null && reasoning === null) return base;
  const info = providerInfo(agent ?? base.agent);
  if (!info) throw new UsageError(`unknown agent '${agent ?? ''}' (use claude, codex or gemini)`);
  const sameAgent = info.id === base.agent;
  const chosenReasoning = reasoning ?? (sameAgent ? base.reasoning : info.defaultReasoning);
  if (!info.reasoningLevels.includes(chosenReasoning)) {
    throw new UsageError(`${info.id} has no reasoning level '${chosenReasoning}' (use ${info.reasoningLevels.join(', ')})`);
  }
  return { agent: info.id, model: model ?? (sameAgent ? base.model : info.defaultModel), reasoning: chosenReasoning };
}

/** Turns app events into stderr progress lines or stream-json lines. */
export function eventPrinter(ctx: HeadlessContext, sessionId: string, output: OutputFormat): (event: AppEvent) => void {
  let lastProgress = '';
  return (event) => {
    if (output === 'stream-json') {
      const line = streamEvent(event, sessionId);
      if (line) ctx.io.stdout.write(`${JSON.stringify(line)}\n`);
      return;
    }
    if (event.type === 'progress' && event.sessionId === sessionId && event.text && event.text !== lastProgress) {
      lastProgress = event.text;
      ctx.progress(`… ${event.text}`);
    } else if (event.type === 'transcriptAppended' && event.sessionId === sessionId) {
      for (const entry of event.entries) if (entry.kind === 'notice' || entry.kind === 'output') ctx.progress(entry.content);
    }
  };
}

function streamEvent(event: AppEvent, sessionId: string): Record<string, unknown> | null {
  switch (event.type) {
    case 'progress':
      return event.sessionId === sessionId && event.text ? { type: 'progress', text: event.text } : null;
    case 'transcriptAppended':
      return event.sessionId === sessionId ? { type: 'transcript', entries: event.entries.map((e) => ({ kind: e.kind, content: e.content })) } : null;
    case 'sessionUpdated':
      return event.session.id === sessionId ? { type: 'status', status: event.session.status, title: event.session.title } : null;
    default:
      return null;
  }
}

export interface TurnOutcome {
  readonly outcome: OperationOutcome | null;
  readonly timedOut: boolean;
  readonly interrupted: boolean;
}

/**
 * Waits for the session's queued operations to finish in this process,
 * stopping the turn on timeout or Ctrl+C exactly as the TUI's stop does.
 */
export async function waitForSession(ctx: HeadlessContext, sessionId: string, timeoutMs: number | null): Promise<TurnOutcome> {
  let outcome: OperationOutcome | null = null;
  let timedOut = false;
  let interrupted = false;
  ctx.controller.workers.onOutcome((o) => {
    if (o.operation.sessionId === sessionId) outcome = o;
  });
  const stop = (): void => {
    ctx.controller.workers.abort(sessionId);
  };
  const onSigint = (): void => {
    interrupted = true;
    ctx.progress('Stopping the turn (Ctrl+C)…');
    stop();
  };
  process.on('SIGINT', onSigint);
  process.on('SIGTERM', onSigint);
  const timer = timeoutMs === null ? null : setTimeout(() => {
    timedOut = true;
    ctx.progress(`Timed out after ${Math.round(timeoutMs / 1000)}s; stopping the turn…`);
    stop();
  }, timeoutMs);
  try {
    ctx.controller.workers.notify(sessionId);
    await ctx.controller.workers.idle(sessionId);
    await ctx.controller.turns.settled();
  } finally {
    if (timer) clearTimeout(timer);
    process.off('SIGINT', onSigint);
    process.off('SIGTERM', onSigint);
  }
  return { outcome, timedOut, interrupted };
}

export async function lastAnswer(infra: Infra, sessionId: string, since: number): Promise<string> {
  const entries = await infra.store.transcript.list(sessionId);
  return entries.filter((e) => e.kind === 'assistant_answer' && e.position >= since).map((e) => e.content).join('\n\n');
}

export async function printResult(ctx: HeadlessContext, session: Session, since: number, output: OutputFormat, startedAt: number): Promise<void> {
  const { infra, io } = ctx;
  const answer = await lastAnswer(infra, session.id, since);
  if (output === 'text') {
    if (answer) io.stdout.write(`${answer}\n`);
    if (session.questions.length > 0) {
      io.stdout.write('\nThe agent asks:\n');
      session.questions.forEach((q, i) => {
        io.stdout.write(`${i + 1}. ${q.text}\n`);
        for (const option of q.options) io.stdout.write(`   - ${option}\n`);
      });
      io.stdout.write(`\nAnswer with: grove reply ${session.id.slice(0, 8)} "..."\n`);
    }
    return;
  }
  const diff = await infra.git.diffAgainstBase(session.worktreePath, session.baseBranch).catch(() => null);
  if (output === 'diff') {
    io.stdout.write(diff?.patch ?? '');
    return;
  }
  const result = sessionResult(session, answer, diff?.files ?? [], infra.clock.now() - startedAt);
  io.stdout.write(`${JSON.stringify(output === 'stream-json' ? { type: 'result', ...result } : result, null, output === 'json' ? 2 : undefined)}\n`);
}

/**
 * Why a turn did not finish, always on stderr (with or without --progress):
 * a script needs the reason next to the exit code.
 */
export async function reportOutcome(ctx: HeadlessContext, outcome: TurnOutcome, session: Session, since: number): Promise<void> {
  const { io, infra } = ctx;
  const kept = `the session (${shortId(session.id)}) is in ${session.status} with its work kept`;
  if (outcome.interrupted) {
    io.stderr.write(`grove: interrupted; the turn was stopped and ${kept}.\n`);
  } else if (outcome.timedOut) {
    io.stderr.write(`grove: timed out; the turn was stopped and ${kept}.\n`);
  } else if (outcome.outcome?.status === 'failed') {
    const entries = await infra.store.transcript.list(session.id);
    const errors = entries.filter((e) => e.position >= since && e.kind === 'notice' && e.content.startsWith('[Error]')).map((e) => e.content.replace(/^\[Error\]\s*/, ''));
    const reason = errors.length > 0 ? errors.join('\n') : (outcome.outcome.error ?? 'the turn failed');
    io.stderr.write(`grove: ${reason}\n`);
  }
}

export function exitCodeFor(outcome: TurnOutcome, session: Session): number {
  if (outcome.interrupted) return EXIT.interrupted;
  if (outcome.timedOut) return EXIT.timeout;
  if (outcome.outcome?.status === 'failed') return EXIT.failed;
  if (session.status === 'Question' && session.questions.length > 0) return EXIT.questions;
  return EXIT.ok;
}

export type { HeadlessCommand };
