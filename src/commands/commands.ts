import { eventPrinter } from './event-printer.js';
import { migrationsDir, type Infra } from '../compose.js';
import { grovePaths } from '../infra/paths.js';
import { storageFailure } from '../infra/db/errors.js';
import { runDoctor } from './doctor.js';
import { groupOf, orderedSessions } from '../domain/session-order.js';
import { activeWorkSeconds, formatDuration, restoreCommand, shortId } from '../domain/session.js';
import { permissionModeLabel } from '../domain/permission-mode.js';
import { INSTALLED_AGENTS_KEY } from '../domain/settings.js';
import { acpAgentValues } from './acp-agent-choice.js';
import { waitingText } from '../domain/usage-limit.js';
import type { HeadlessCommand } from './args.js';
import { COMMAND_HELP } from './args.js';
import {
  CommandError,
  EXIT,
  choiceFor,
  exitCodeFor,
  findSession,
  headlessContext,
  openProject,
  printResult,
  readPrompt,
  reportOutcome,
  stopOtherProcesses,
  submitTurn,
  waitForOperation,
  type HeadlessIo,
} from './headless.js';
import { listItem, sessionResult, usageLines } from './session-json.js';
import { sessionDiff } from './session-diff.js';
import { baseBranchGone, baseRewoundLines } from '../app/services/base-check.js';
import { cancelSession, workAtRisk } from '../app/services/review/cancel.js';
import { acknowledgeGuard, guardRefusal } from '../app/services/agent-guard.js';
import { cancelLines } from '../app/popups.js';
import { listThreads, submitThreadsTurn } from './threads.js';
import { budgetLines, mergeOverlapLines, runGc } from './parallel.js';
import { runBestOf, showGroupJson, showGroupLines } from './best-of.js';

/** A failure before the turn started: no session is left behind, and the prompt is given back. */
function notStarted(message: string, prompt: string): string {
  return `${message}\nNo session was started. Your prompt was:\n${prompt}`;
}

/** The agent's open questions, numbered, with their suggested answers (empty when there are none). */
export function questionLines(
  questions: readonly { readonly text: string; readonly options: readonly string[] }[],
): string {
  if (questions.length === 0) return '';
  const lines = ['', `Open questions (${questions.length}; answer with grove reply):`];
  questions.forEach((q, i) => {
    lines.push(`${i + 1}. ${q.text}`);
    if (q.options.length > 0) lines.push(`   options: ${q.options.join(' / ')}`);
  });
  return `${lines.join('\n')}\n`;
}

function showProgress(io: HeadlessIo, flag: boolean): boolean {
  return flag || io.stderrIsTTY;
}

/** Runs one headless command; resolves with the exit code. */
export async function runHeadless(
  command: HeadlessCommand,
  infra: Infra,
  io: HeadlessIo,
): Promise<number> {
  switch (command.kind) {
    case 'help':
      io.stdout.write(`${COMMAND_HELP[command.command as keyof typeof COMMAND_HELP]}\n`);
      return EXIT.ok;
    case 'gc':
      return runGc(infra, io, command);
    case 'doctor':
      // Needs no infra: it must work when the database does not open.
      return runDoctor({
        json: command.json,
        env: io.env,
        paths: grovePaths(io.env),
        migrationsDir: migrationsDir(),
        stdout: io.stdout,
      });
    case 'run': {
      const prompt = await readPrompt(io, command.prompt);
      if (command.n !== null)
        return runBestOf(infra, io, command, prompt, showProgress(io, command.progress));
      const ctx = await headlessContext(infra, io, command.dir, showProgress(io, command.progress));
      // An agent not set in the settings follows the installed ones.
      const choice = choiceFor(
        {
          ...ctx.app.state.settings,
          [INSTALLED_AGENTS_KEY]: infra.agents.installed().join(','),
          ...acpAgentValues(infra.agents.acpAgents(), command.agent),
        },
        command.agent,
        command.model,
        command.reasoning,
      );
      const detected = await infra.agents.detect();
      if (!detected.find((a) => a.id === choice.agent)?.path) {
        throw new CommandError(
          notStarted(
            `${choice.agent} is not installed (not found on PATH). Install it, or pick another agent with --agent.`,
            prompt,
          ),
          EXIT.failed,
        );
      }
      const startedAt = infra.clock.now();
      const session = await ctx.controller.sessions
        .create(ctx.project.id, choice, ctx.app.state.settings, command.mode ?? 'auto_edit')
        .catch((error: unknown) => {
          throw new CommandError(
            notStarted(
              storageFailure(error) ?? (error instanceof Error ? error.message : String(error)),
              prompt,
            ),
            EXIT.failed,
          );
        });
      ctx.progress(`Session ${shortId(session.id)} on ${session.branch} (${session.worktreePath})`);
      ctx.app.subscribe(eventPrinter(ctx, session.id, command.output));
      if (command.output === 'stream-json')
        io.stdout.write(
          `${JSON.stringify({ type: 'session', sessionId: session.id, branch: session.branch, worktree: session.worktreePath })}\n`,
        );
      try {
        await ctx.controller.sessions.whenReady(session.id);
      } catch (error) {
        // Nothing was asked of an agent: the session, its branch and worktree go again.
        await ctx.controller.sessions
          .discardUnstarted(session.id)
          .catch((e: unknown) =>
            infra.logger.log('warn', 'discarding the unstarted session failed', e),
          );
        throw new CommandError(
          notStarted(
            `could not create the worktree: ${error instanceof Error ? error.message : String(error)}`,
            prompt,
          ),
          EXIT.failed,
        );
      }
      const operationId = await submitTurn(ctx, session.id, prompt);
      const outcome = await waitForOperation(ctx, session.id, operationId, command.timeoutMs);
      const final = (await infra.store.sessions.get(session.id)) ?? session;
      await printResult(ctx, final, 0, prompt, command.output, startedAt);
      await reportOutcome(ctx, outcome, final, 0);
      return exitCodeFor(outcome, final);
    }
    case 'reply': {
      const session = await findSession(infra, command.id);
      let prompt = command.threads ? '' : await readPrompt(io, command.prompt);
      const project = await infra.store.projects.get(session.projectId);
      const ctx = await headlessContext(
        infra,
        io,
        project?.path ?? command.dir,
        showProgress(io, command.progress),
      );
      const startedAt = infra.clock.now();
      const since = await infra.store.transcript.count(session.id);
      ctx.app.subscribe(eventPrinter(ctx, session.id, command.output));
      if (command.mode) await ctx.controller.sessions.setPermissionMode(session.id, command.mode);
      let operationId: string;
      if (command.threads) ({ operationId, prompt } = await submitThreadsTurn(ctx, session));
      else operationId = await submitTurn(ctx, session.id, prompt);
      const outcome = await waitForOperation(ctx, session.id, operationId, command.timeoutMs);
      const final = (await infra.store.sessions.get(session.id)) ?? session;
      await printResult(ctx, final, since, prompt, command.output, startedAt);
      await reportOutcome(ctx, outcome, final, since);
      return exitCodeFor(outcome, final);
    }
    case 'ls': {
      const project = await openProject(infra, io, command.dir);
      const all = orderedSessions(
        await infra.store.sessions.listByProject(project.id),
        await infra.store.groups.listByProject(project.id),
      );
      const sessions = command.all ? all : all.filter((s) => groupOf(s.status) !== 'archive');
      const now = infra.clock.now();
      if (command.json) {
        io.stdout.write(
          `${JSON.stringify(
            sessions.map((s) => listItem(s, now)),
            null,
            2,
          )}\n`,
        );
        return EXIT.ok;
      }
      if (sessions.length === 0) {
        io.stdout.write(
          command.all
            ? 'No sessions.\n'
            : 'No active sessions (grove ls --all shows the archive).\n',
        );
        return EXIT.ok;
      }
      for (const s of sessions) {
        io.stdout.write(
          `${shortId(s.id)}  ${s.status.padEnd(11)} [${s.size}]`.padEnd(30) +
            ` ${formatDuration(activeWorkSeconds(s, now)).padStart(7)}  ${s.agent}/${s.model}  ${s.title || '(untitled)'}\n`,
        );
      }
      return EXIT.ok;
    }
    case 'show': {
      const session = await findSession(infra, command.id);
      const entries = await infra.store.transcript.list(session.id);
      const group = await showGroupJson(infra, session.id);
      const variants = (await infra.store.groups.ofSession(session.id))?.members.length ?? 0;
      // Its next prompt waits for the agent's usage limit to lift.
      const now = infra.clock.now();
      const head = (await infra.store.operations.listUnfinished(session.id)).find(
        (op) => op.status === 'queued',
      );
      const waiting =
        head?.notBefore && head.notBefore > now
          ? { agent: head.waitAgent ?? 'the agent', until: head.notBefore }
          : null;
      if (command.json) {
        const diff = await infra.git
          .diffStats(session.worktreePath, session.baseBranch)
          .catch(() => null);
        const answer = entries.filter((e) => e.kind === 'assistant_answer').at(-1)?.content ?? '';
        const result = sessionResult(
          session,
          answer,
          diff?.files ?? [],
          session.activeSeconds * 1000,
          await infra.store.usage.bySession(session.id),
        );
        io.stdout.write(
          `${JSON.stringify(
            {
              ...result,
              group,
              guard: session.guardFlag ?? null,
              waiting: waiting
                ? { agent: waiting.agent, until: new Date(waiting.until).toISOString() }
                : null,
              transcript: entries.map((e) => ({
                kind: e.kind,
                content: e.content,
                at: new Date(e.createdAt).toISOString(),
              })),
            },
            null,
            2,
          )}\n`,
        );
        return EXIT.ok;
      }
      io.stdout.write(`${session.title || '(untitled)'}\n`);
      io.stdout.write(
        `id ${session.id}  status ${session.status}  [${session.size}] +${session.addedLines}/-${session.deletedLines}\n`,
      );
      io.stdout.write(
        `branch ${session.branch} (base ${session.baseBranch})  worktree ${session.worktreePath}\n`,
      );
      io.stdout.write(
        `agent ${session.agent}/${session.model} [${session.reasoning}]  mode ${permissionModeLabel(session.permissionMode)}  tokens ${session.inputTokens} in / ${session.outputTokens} out\n`,
      );
      if (session.reviewRequest)
        io.stdout.write(
          `pull request #${session.reviewRequest.number} ${session.reviewRequest.state}: ${session.reviewRequest.url}\n`,
        );
      if (session.keptBranch)
        io.stdout.write(
          `kept branch ${session.keptBranch} (restore: ${restoreCommand(session.keptBranch)})\n`,
        );
      if (session.guardFlag)
        io.stdout.write(
          `[Guard] not merged or published until acknowledged (grove merge|publish ${shortId(session.id)} --acknowledge):\n${session.guardFlag}\n`,
        );
      for (const line of usageLines(await infra.store.usage.bySession(session.id)))
        io.stdout.write(`${line}\n`);
      for (const line of await budgetLines(infra, session)) io.stdout.write(`${line}\n`);
      if (waiting) io.stdout.write(`${waitingText(waiting, now)}: the next prompt is sent then\n`);
      if (group)
        for (const line of showGroupLines(group, session.id, variants))
          io.stdout.write(`${line}\n`);
      for (const entry of entries) {
        // A tool call is shown folded, as in the session view: its summary line.
        if (entry.kind === 'tool') {
          io.stdout.write(`  ${entry.content.split('\n')[0] ?? ''}\n`);
          continue;
        }
        const label = entry.kind === 'user_prompt' ? '› ' : '';
        io.stdout.write(`\n${label}${entry.content}\n`);
      }
      if (session.summary) io.stdout.write(`\nSummary: ${session.summary.session}\n`);
      io.stdout.write(questionLines(session.questions));
      return EXIT.ok;
    }
    case 'diff': {
      const session = await findSession(infra, command.id);
      io.stdout.write(await sessionDiff(infra, io, session));
      return EXIT.ok;
    }
    case 'merge':
    case 'rebase':
    case 'publish': {
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
        const review = ctx.controller.review.ctx;
        if (!command.acknowledge)
          throw new CommandError(guardRefusal(session, command.kind) ?? '', EXIT.failed);
        await acknowledgeGuard(
          { ...review.deps, note: (id, text) => review.note(id, text) },
          session.id,
        );
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
        await ctx.controller.review.ctx.setStatus(session.id, 'Queued');
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
        if (command.kind === 'merge')
          await ctx.controller.review.ctx.setStatus(session.id, session.status);
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
      io.stdout.write(
        `${final.status}${final.mergedCommit && command.kind === 'merge' ? ` ${final.mergedCommit}` : ''}${final.reviewRequest && command.kind === 'publish' ? ` ${final.reviewRequest.url}` : ''}\n`,
      );
      return EXIT.ok;
    }
    case 'threads': {
      const session = await findSession(infra, command.id);
      const project = await infra.store.projects.get(session.projectId);
      const ctx = await headlessContext(infra, io, project?.path ?? command.dir, false);
      return listThreads(ctx, session, command.json, command.resolve);
    }
    case 'cancel': {
      const session = await findSession(infra, command.id);
      const project = await infra.store.projects.get(session.projectId);
      const ctx = await headlessContext(infra, io, project?.path ?? command.dir, io.stderrIsTTY);
      if (['Done', 'Canceled', 'Merged', 'Merging', 'Rebasing'].includes(session.status))
        throw new CommandError(`a ${session.status} session cannot be canceled.`, EXIT.failed);
      const risk = await workAtRisk(ctx.controller.review.ctx, session);
      // Nothing can be lost without work on the branch or in the worktree (or a turn that may be making some).
      const atRisk =
        risk.uncommitted > 0 || risk.unmergedCommits > 0 || session.status === 'InProgress';
      if (!command.yes && atRisk) {
        throw new CommandError(
          `${cancelLines(session, risk).join('\n')}\nRun again with --yes to cancel.`,
          EXIT.usage,
        );
      }
      await stopOtherProcesses(ctx, session.id);
      await cancelSession(ctx.controller.review.ctx, session.id, (id) =>
        ctx.controller.workers.abort(id),
      );
      const final = (await infra.store.sessions.get(session.id)) ?? session;
      io.stdout.write(
        `${final.status}${final.keptBranch ? ` (work kept on branch ${final.keptBranch})` : ''}\n`,
      );
      return final.status === 'Canceled' ? EXIT.ok : EXIT.failed;
    }
    default:
      return EXIT.usage;
  }
}
