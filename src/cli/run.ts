// grove run: a new session on its own branch and worktree, one turn, its answer printed.
import type { Infra } from '../compose.js';
import { storageFailure } from '../infra/db/errors.js';
import { shortId } from '../domain/session.js';
import { INSTALLED_AGENTS_KEY } from '../domain/settings.js';
import { acpAgentValues } from './acp-agent-choice.js';
import {
  CommandError,
  EXIT,
  choiceFor,
  headlessContext,
  readPrompt,
  submitTurn,
  showProgress,
  type HeadlessContext,
  type HeadlessIo,
} from './headless.js';
import { issuePrompt, type SessionIssue } from '../domain/issue.js';
import { readIssue, sessionIssue } from '../app/services/issues.js';
import { finishTurn, followTurn } from './turn-result.js';
import { runBestOf } from './best-of.js';
import { hostRoomNote, sessionHost } from './session-host.js';
import type { HeadlessCommand } from './args.js';

/** A failure before the turn started: no session is left behind, and the prompt is given back. */
function notStarted(message: string, prompt: string): string {
  return `${message}\nNo session was started. Your prompt was:\n${prompt}`;
}

/**
 * `grove run --issue N`: the issue is read (and refused in words: another
 * repository, a pull request, closed, missing, no token, GitHub failing)
 * before anything is made; then the session starts with the issue quoted in
 * its prompt.
 */
async function runFromIssue(
  infra: Infra,
  io: HeadlessIo,
  command: Extract<HeadlessCommand, { kind: 'run' }> & { issue: string },
  own: string | null,
): Promise<number> {
  const ctx = await headlessContext(infra, io, command.dir, showProgress(io, command.progress));
  const issue = await readIssue(
    { git: infra.git, forge: infra.forge },
    ctx.project.path,
    command.issue,
    AbortSignal.timeout(60_000),
  ).catch((error: unknown) => {
    const message = error instanceof Error ? error.message : String(error);
    throw new CommandError(
      own === null ? `${message}\nNo session was started.` : notStarted(message, own),
      EXIT.failed,
    );
  });
  ctx.progress(`Issue #${issue.number}: ${issue.title}`);
  return startRun(infra, io, command, ctx, issuePrompt(issue, own), sessionIssue(issue));
}

export async function runCommand(
  infra: Infra,
  io: HeadlessIo,
  command: Extract<HeadlessCommand, { kind: 'run' }>,
): Promise<number> {
  // With --issue the person's own words are optional (PROMPT, or '-' for standard input).
  const own =
    command.issue !== null && command.prompt === null ? null : await readPrompt(io, command.prompt);
  if (command.issue !== null && command.n === null)
    return runFromIssue(infra, io, { ...command, issue: command.issue }, own);
  const prompt = own ?? '';
  if (command.n !== null)
    return runBestOf(infra, io, command, prompt, showProgress(io, command.progress));
  const ctx = await headlessContext(infra, io, command.dir, showProgress(io, command.progress));
  return startRun(infra, io, command, ctx, prompt, null);
}

/** A new session with `prompt` as its first turn, its result printed. */
async function startRun(
  infra: Infra,
  io: HeadlessIo,
  command: Extract<HeadlessCommand, { kind: 'run' }>,
  ctx: HeadlessContext,
  prompt: string,
  issue: SessionIssue | null,
): Promise<number> {
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
  // Found on PATH is enough: asking every agent CLI for its --version held the run for
  // seconds (Gemini CLI, a Node program, takes 1–5 s to answer).
  if (!infra.agents.installed().includes(choice.agent)) {
    throw new CommandError(
      notStarted(
        `${choice.agent} is not installed (not found on PATH). Install it, or pick another agent with --agent.`,
        prompt,
      ),
      EXIT.failed,
    );
  }
  // `auto` places only agents that run on hosts there (domain/placement.ts); the others stay here.
  const host = await sessionHost(infra, command.host, ctx.app.state.settings, [choice.agent]).catch(
    (error: unknown) => {
      if (error instanceof CommandError)
        throw new CommandError(notStarted(error.message, prompt), error.exitCode);
      throw error;
    },
  );
  const full = await hostRoomNote(infra, host, 1);
  if (full !== null) ctx.progress(full);
  const startedAt = infra.clock.now();
  const session = await ctx.intents
    .createSession(
      ctx.project.id,
      choice,
      ctx.app.state.settings,
      command.mode ?? 'auto_edit',
      host,
      issue,
      command.memoryMax === null && command.tasksMax === null
        ? null
        : { memoryMax: command.memoryMax, tasksMax: command.tasksMax },
    )
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
  followTurn(ctx, session.id, command);
  if (command.output === 'stream-json')
    io.stdout.write(
      `${JSON.stringify({ type: 'session', sessionId: session.id, branch: session.branch, worktree: session.worktreePath })}\n`,
    );
  try {
    await ctx.queries.whenReady(session.id);
  } catch (error) {
    // Nothing was asked of an agent: the session, its branch and worktree go again.
    await ctx.intents
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
  return finishTurn(ctx, session, { operationId, prompt, since: 0, startedAt }, command);
}
