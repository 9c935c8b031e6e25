// grove merge | rebase | publish: a session's work landed, rebased or pushed, through the
// same queued operation the TUI's keys run.
import { eventPrinter } from './event-printer.js';
import type { Infra } from '../compose.js';
import { shortId } from '../domain/session.js';
import {
  CommandError,
  EXIT,
  findSession,
  headlessContext,
  waitForOperation,
  showProgress,
  type HeadlessIo,
} from './headless.js';
import { baseBranchGone, baseRewoundLines } from '../app/services/base-check.js';
import { guardRefusal } from '../app/services/agent-guard.js';
import { mergeOverlapLines } from './parallel.js';
import type { HeadlessCommand } from './args.js';
import { landJson, printJson } from './command-json.js';

export async function landCommand(
  infra: Infra,
  io: HeadlessIo,
  command: Extract<HeadlessCommand, { kind: 'merge' | 'rebase' | 'publish' }>,
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
  if (command.kind === 'merge') {
    if (session.reviewRequest?.state === 'open')
      throw new CommandError(
        `session has pull request #${session.reviewRequest.number}; merge it on GitHub.`,
        EXIT.failed,
      );
    if (!['Review', 'AgentReview', 'Question'].includes(session.status))
      throw new CommandError(`a ${session.status} session cannot be merged.`, EXIT.failed);
    // Said before the merge (while both branches exist), on standard error: standard output stays the result.
    const warning = await mergeOverlapLines(infra, session, ctx.project.path);
    if (warning.length > 0) io.stderr.write(`grove: ${warning.join('\n')}\n`);
    const rewound = await baseRewoundLines(
      infra.git,
      ctx.project.path,
      session,
      session.worktreePath,
    );
    if (rewound.length > 0) io.stderr.write(`grove: ${rewound.join('\n')}\n`);
    await ctx.intents.setStatus(session.id, 'Queued');
  }
  const payload =
    command.kind === 'publish'
      ? { remoteBranch: session.publishedBranch ?? command.branch ?? session.branch }
      : {};
  const operationId = await infra.store.operations.enqueue(
    session.id,
    command.kind,
    payload,
    infra.clock.now(),
    infra.runtime.owner,
  );
  const outcome = await waitForOperation(ctx, session.id, operationId, null);
  const final = (await infra.store.sessions.get(session.id)) ?? session;
  // A stop that came after the work was done (the merge landed) stopped nothing.
  const finished =
    outcome.outcome?.status === 'done' || (command.kind === 'merge' && final.status === 'Done');
  if (outcome.interrupted && !finished) {
    io.stderr.write(
      `grove: interrupted; the ${command.kind} was stopped and the session (${shortId(session.id)}) is in ${final.status}.\n`,
    );
    return EXIT.interrupted;
  }
  if (outcome.held && !finished) {
    // Queued behind a prompt a budget holds: it would wait for a person to raise the limit, so
    // it is taken back now (a command left queued would be failed as interrupted by the next Grove).
    await infra.store.operations.finish(
      operationId,
      'canceled',
      'held behind a prompt at its budget',
      infra.clock.now(),
    );
    if (command.kind === 'merge') await ctx.intents.setStatus(session.id, session.status);
    io.stderr.write(
      `grove: ${outcome.held} The ${command.kind} was not started: it waits behind the session's held prompt. Raise the limit (Settings in the TUI, or its popup when you open the session), or drop the held prompt (Ctrl+C in the session), then run grove ${command.kind} again.\n`,
    );
    return EXIT.budget;
  }
  if (!finished) {
    io.stderr.write(
      `grove: ${(outcome.outcome?.error ?? `the ${command.kind} did not finish`).replace(/^\[[A-Za-z ]*Error\]\s*/, '')}\n`,
    );
    return EXIT.failed;
  }
  if (command.json) {
    printJson(io, landJson(final, command.kind === 'merge'));
    return EXIT.ok;
  }
  io.stdout.write(
    `${final.status}${final.mergedCommit && command.kind === 'merge' ? ` ${final.mergedCommit}` : ''}${final.reviewRequest && command.kind === 'publish' ? ` ${final.reviewRequest.url}` : ''}\n`,
  );
  return EXIT.ok;
}
