// The end of a `grove run` or `grove reply` turn: waiting for it, its answer printed in
// the chosen format, why it did not finish, and the exit code.
import type { Infra } from '../compose.js';
import { sanitizeText } from '../domain/sanitize.js';
import { shortId, type Session } from '../domain/session.js';
import type { OutputFormat } from './args.js';
import { eventPrinter } from './event-printer.js';
import { EXIT, waitForOperation, type HeadlessContext, type TurnOutcome } from './headless.js';
import { sessionResult } from './session-json.js';

/** One turn of `grove run` or `grove reply`, as their options give it. */
export interface TurnCommand {
  readonly output: OutputFormat;
  readonly timeoutMs: number | null;
}

/** Prints the session's turn as it goes (progress lines, stream-json events). */
export function followTurn(ctx: HeadlessContext, sessionId: string, command: TurnCommand): void {
  ctx.app.subscribe(eventPrinter(ctx, sessionId, command.output));
}

/**
 * Waits for the turn (operation `operationId`, its prompt `prompt`, the
 * transcript after position `since`), prints its result and why it did not
 * finish; resolves with the exit code.
 */
export async function finishTurn(
  ctx: HeadlessContext,
  session: Session,
  turn: { operationId: string; prompt: string; since: number; startedAt: number },
  command: TurnCommand,
): Promise<number> {
  return (await endTurn(ctx, session, turn, command)).code;
}

/**
 * finishTurn, resolving with the session as the turn left it too; with
 * `quiet`, the result is not printed (the command prints its own object),
 * only why the turn did not finish.
 */
export async function endTurn(
  ctx: HeadlessContext,
  session: Session,
  turn: { operationId: string; prompt: string; since: number; startedAt: number },
  command: TurnCommand & { readonly quiet?: boolean },
): Promise<{ code: number; session: Session }> {
  const outcome = await waitForOperation(ctx, session.id, turn.operationId, command.timeoutMs);
  const final = (await ctx.infra.store.sessions.get(session.id)) ?? session;
  if (!command.quiet)
    await printResult(ctx, final, turn.since, turn.prompt, command.output, turn.startedAt);
  await reportOutcome(ctx, outcome, final, turn.since);
  return { code: exitCodeFor(outcome, final), session: final };
}

/**
 * The answer of one turn: what the agent answered after the prompt `prompt`
 * (the first such prompt at or after transcript position `since`), up to
 * the next prompt.
 */
async function turnAnswer(
  infra: Infra,
  sessionId: string,
  since: number,
  prompt: string,
): Promise<string> {
  const entries = (await infra.store.transcript.list(sessionId)).filter((e) => e.position >= since);
  // The transcript holds the prompt sanitized.
  const stored = sanitizeText(prompt);
  const start = entries.findIndex(
    (e) => e.kind === 'user_prompt' && (e.content === stored || e.content === prompt),
  );
  if (start === -1) return '';
  const rest = entries.slice(start + 1);
  const next = rest.findIndex((e) => e.kind === 'user_prompt');
  return (next === -1 ? rest : rest.slice(0, next))
    .filter((e) => e.kind === 'assistant_answer')
    .map((e) => e.content)
    .join('\n\n');
}

async function printResult(
  ctx: HeadlessContext,
  session: Session,
  since: number,
  prompt: string,
  output: OutputFormat,
  startedAt: number,
): Promise<void> {
  const { infra, io } = ctx;
  const answer = await turnAnswer(infra, session.id, since, prompt);
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
  // The diff the turn's commit measured, when the worktree is as it left it.
  const diff = await infra.git
    .diffAgainstBase(session.worktreePath, session.baseBranch, { kept: true })
    .catch(() => null);
  if (output === 'diff') {
    io.stdout.write(diff?.patch ?? '');
    return;
  }
  const result = sessionResult(
    session,
    answer,
    diff?.files ?? [],
    infra.clock.now() - startedAt,
    await infra.store.usage.bySession(session.id),
  );
  io.stdout.write(
    `${JSON.stringify(output === 'stream-json' ? { type: 'result', ...result } : result, null, output === 'json' ? 2 : undefined)}\n`,
  );
}

/**
 * Why a turn did not finish, always on stderr (with or without --progress):
 * a script needs the reason next to the exit code.
 */
async function reportOutcome(
  ctx: HeadlessContext,
  outcome: TurnOutcome,
  session: Session,
  since: number,
): Promise<void> {
  const { io, infra } = ctx;
  const kept = `the session (${shortId(session.id)}) is in ${session.status} with its work kept`;
  if (outcome.held) {
    io.stderr.write(
      `grove: ${outcome.held} The prompt was not sent and stays queued in session ${shortId(session.id)}; it runs once the limit is raised (grove approve budget:${shortId(session.id)}, Settings in the TUI, or its popup when you open the session), or grove deny budget:${shortId(session.id)} drops it.\n`,
    );
  } else if (outcome.interrupted) {
    io.stderr.write(`grove: interrupted; the turn was stopped and ${kept}.\n`);
  } else if (outcome.timedOut) {
    io.stderr.write(`grove: timed out; the turn was stopped and ${kept}.\n`);
  } else if (outcome.outcome?.status === 'failed') {
    const entries = await infra.store.transcript.list(session.id);
    const errors = entries
      .filter((e) => e.position >= since && e.kind === 'notice' && e.content.startsWith('[Error]'))
      .map((e) => e.content.replace(/^\[Error\]\s*/, ''));
    const reason =
      errors.length > 0 ? errors.join('\n') : (outcome.outcome.error ?? 'the turn failed');
    io.stderr.write(`grove: ${reason}\n`);
  } else if (outcome.outcome?.status === 'canceled') {
    io.stderr.write(
      `grove: the turn was stopped by another Grove process; the session (${shortId(session.id)}) keeps its work.\n`,
    );
  }
}

function exitCodeFor(outcome: TurnOutcome, session: Session): number {
  if (outcome.interrupted) return EXIT.interrupted;
  if (outcome.timedOut) return EXIT.timeout;
  if (outcome.held) return EXIT.budget;
  if (outcome.outcome?.status !== 'done') return EXIT.failed;
  if (session.status === 'Question' && session.questions.length > 0) return EXIT.questions;
  return EXIT.ok;
}
