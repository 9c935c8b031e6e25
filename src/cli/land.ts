// grove merge | rebase | publish: a session's work landed, rebased or pushed, through the
// same queued operation the TUI's keys run.
import { eventPrinter } from './event-printer.js';
import type { Infra } from '../compose.js';
import { shortId, type Session } from '../domain/session.js';
import {
  CommandError,
  EXIT,
  findSession,
  headlessContext,
  waitForOperation,
  showProgress,
  type HeadlessContext,
  type HeadlessIo,
} from './headless.js';
import { baseBranchGone, baseRewoundLines } from '../app/services/base-check.js';
import { guardRefusal } from '../app/services/agent-guard.js';
import { mergeOverlapLines } from './parallel.js';
import type { HeadlessCommand } from './args.js';
import { landJson, printJson } from './command-json.js';

type LandKind = 'merge' | 'rebase' | 'publish';

/** What came of a landing: the session after it, or why it did not finish. */
export type LandOutcome =
  | { readonly status: 'done'; readonly session: Session }
  | { readonly status: 'interrupted'; readonly session: Session }
  | { readonly status: 'held'; readonly reason: string }
  | { readonly status: 'failed'; readonly error: string };

/**
 * Why the session cannot be landed this way now (its base branch is gone, an
 * open pull request, a status that cannot merge), or null. The agent guard's
 * refusal is the caller's (`grove merge --acknowledge` answers it).
 */
export async function landRefusal(
  ctx: HeadlessContext,
  session: Session,
  kind: LandKind,
): Promise<string | null> {
  if (kind !== 'publish') {
    const gone = await baseBranchGone(ctx.infra.git, ctx.project.path, session);
    if (gone) return gone;
  }
  if (kind !== 'merge') return null;
  if (session.reviewRequest?.state === 'open')
    return `session has pull request #${session.reviewRequest.number}; merge it on GitHub.`;
  if (!['Review', 'AgentReview', 'Question'].includes(session.status))
    return `a ${session.status} session cannot be merged.`;
  return null;
}

/**
 * Lands the session (merge, rebase or publish) through the same queued
 * operation the TUI's keys run, and waits for it. `warn` gets what a merge
 * should say first (overlaps with other sessions, a rewound base).
 */
export async function landSession(
  ctx: HeadlessContext,
  session: Session,
  kind: LandKind,
  branch: string | null,
  warn: (lines: readonly string[]) => void,
): Promise<LandOutcome> {
  const { infra } = ctx;
  if (kind === 'merge') {
    // Said before the merge (while both branches exist).
    const warning = await mergeOverlapLines(infra, session, ctx.project.path);
    if (warning.length > 0) warn(warning);
    const rewound = await baseRewoundLines(
      infra.git,
      ctx.project.path,
      session,
      session.worktreePath,
    );
    if (rewound.length > 0) warn(rewound);
    await ctx.intents.setStatus(session.id, 'Queued');
  }
  const payload =
    kind === 'publish' ? { remoteBranch: session.publishedBranch ?? branch ?? session.branch } : {};
  const operationId = await infra.store.operations.enqueue(
    session.id,
    kind,
    payload,
    infra.clock.now(),
    infra.runtime.owner,
  );
  const outcome = await waitForOperation(ctx, session.id, operationId, null);
  const final = (await infra.store.sessions.get(session.id)) ?? session;
  // A stop that came after the work was done (the merge landed) stopped nothing.
  const finished =
    outcome.outcome?.status === 'done' || (kind === 'merge' && final.status === 'Done');
  if (outcome.interrupted && !finished) return { status: 'interrupted', session: final };
  if (outcome.held && !finished) {
    // Queued behind a prompt a budget holds: it would wait for a person to raise the limit, so
    // it is taken back now (a command left queued would be failed as interrupted by the next Grove).
    await infra.store.operations.finish(
      operationId,
      'canceled',
      'held behind a prompt at its budget',
      infra.clock.now(),
    );
    if (kind === 'merge') await ctx.intents.setStatus(session.id, session.status);
    return { status: 'held', reason: outcome.held };
  }
  if (!finished)
    return {
      status: 'failed',
      error: (outcome.outcome?.error ?? `the ${kind} did not finish`).replace(
        /^\[[A-Za-z ]*Error\]\s*/,
        '',
      ),
    };
  return { status: 'done', session: final };
}

export async function landCommand(
  infra: Infra,
  io: HeadlessIo,
  command: Extract<HeadlessCommand, { kind: LandKind }>,
): Promise<number> {
  const found = await findSession(infra, command.id);
  const project = await infra.store.projects.get(found.projectId);
  const ctx = await headlessContext(
    infra,
    io,
    project?.path ?? command.dir,
    showProgress(io, command.progress),
  );
  // As recovery left it: a session a killed merge left in Merging is back in Review.
  const session = (await infra.store.sessions.get(found.id)) ?? found;
  if (command.kind !== 'publish') {
    const gone = await baseBranchGone(infra.git, ctx.project.path, session);
    if (gone) throw new CommandError(gone, EXIT.failed);
  }
  ctx.app.subscribe(eventPrinter(ctx, session.id, 'text'));
  if (command.kind !== 'rebase' && session.guardFlag) {
    // An agent changed git state outside its worktree: not landed until the person says they saw it.
    if (!command.acknowledge)
      throw new CommandError(guardRefusal(session, command.kind) ?? '', EXIT.failed);
    await ctx.intents.acknowledgeGuard(session.id);
  }
  const refusal = await landRefusal(ctx, session, command.kind);
  if (refusal) throw new CommandError(refusal, EXIT.failed);
  const outcome = await landSession(
    ctx,
    session,
    command.kind,
    command.kind === 'publish' ? command.branch : null,
    // On standard error: standard output stays the result.
    (lines) => io.stderr.write(`grove: ${lines.join('\n')}\n`),
  );
  switch (outcome.status) {
    case 'interrupted':
      io.stderr.write(
        `grove: interrupted; the ${command.kind} was stopped and the session (${shortId(session.id)}) is in ${outcome.session.status}.\n`,
      );
      return EXIT.interrupted;
    case 'held':
      io.stderr.write(
        `grove: ${outcome.reason} The ${command.kind} was not started: it waits behind the session's held prompt. Raise the limit (grove approve budget:${shortId(session.id)}, Settings in the TUI, or its popup when you open the session), or drop the held prompt (grove deny budget:${shortId(session.id)}, or Ctrl+C in the session), then run grove ${command.kind} again.\n`,
      );
      return EXIT.budget;
    case 'failed':
      io.stderr.write(`grove: ${outcome.error}\n`);
      return EXIT.failed;
    case 'done':
      break;
    default:
      return outcome satisfies never;
  }
  const final = outcome.session;
  if (command.json) {
    printJson(io, landJson(final, command.kind === 'merge'));
    return EXIT.ok;
  }
  io.stdout.write(
    `${final.status}${final.mergedCommit && command.kind === 'merge' ? ` ${final.mergedCommit}` : ''}${final.reviewRequest && command.kind === 'publish' ? ` ${final.reviewRequest.url}` : ''}\n`,
  );
  return EXIT.ok;
}
