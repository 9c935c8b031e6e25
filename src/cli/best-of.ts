import type { Infra } from '../compose.js';
import { checkText, parseVariants, type SessionGroup } from '../domain/best-of.js';
import type { ModelChoice } from '../domain/providers.js';
import { shortId, type Session } from '../domain/session.js';
import { INSTALLED_AGENTS_KEY } from '../domain/settings.js';
import { isAutoHost } from '../domain/placement.js';
import { hostRoomNote, sessionHost } from './session-host.js';
import { acpAgentValues } from './acp-agent-choice.js';
import type { HeadlessCommand } from './args.js';
import {
  CommandError,
  EXIT,
  choiceFor,
  headlessContext,
  type HeadlessContext,
  type HeadlessIo,
} from './headless.js';

// `grove run -n N`: best of N. The prompt runs in N sessions (one group);
// when all are over, the check command runs in each worktree and a judge
// ranks them. The ranking is printed (text, or JSON with --output json).

type RunCommand = Extract<HeadlessCommand, { kind: 'run' }>;

const POLL_MS = 250;
/** While another process evaluates the group, whether it is still alive is looked at every this many polls. */
const TAKEOVER_POLLS = 12;

export async function runBestOf(
  infra: Infra,
  io: HeadlessIo,
  command: RunCommand,
  prompt: string,
  showProgress: boolean,
): Promise<number> {
  const n = command.n ?? 2;
  const ctx = await headlessContext(infra, io, command.dir, showProgress);
  const settings = {
    ...ctx.app.state.settings,
    [INSTALLED_AGENTS_KEY]: infra.agents.installed().join(','),
    ...acpAgentValues(infra.agents.acpAgents(), command.agent ?? command.agents),
  };
  const variants = parseVariants(command.agents, n);
  const choices: ModelChoice[] = variants
    ? variants.map((v) =>
        choiceFor(settings, v.agent, v.model, v.agent === command.agent ? command.reasoning : null),
      )
    : Array.from({ length: n }, () =>
        choiceFor(settings, command.agent, command.model, command.reasoning),
      );
  // Found on PATH is enough (no --version of every CLI: seconds for Gemini CLI).
  const installed = infra.agents.installed();
  for (const choice of choices) {
    if (!installed.includes(choice.agent))
      throw new CommandError(
        `${choice.agent} is not installed (not found on PATH); nothing was started.`,
        EXIT.failed,
      );
  }
  // Every variant where a single session would run: a host named, auto (each placed by its own
  // first turn) or the default host; checked for every variant before any is made.
  const host = await sessionHost(
    infra,
    command.host,
    ctx.app.state.settings,
    choices.map((c) => c.agent),
  ).catch((error: unknown) => {
    if (error instanceof CommandError)
      throw new CommandError(`${error.message}\nNothing was started.`, error.exitCode);
    throw error;
  });
  if (host !== null)
    ctx.progress(
      isAutoHost(host)
        ? `Best of ${n}: each variant runs on this machine or a host with room, chosen when its turn starts.`
        : `Best of ${n} on ${host}: each variant runs there, as many at once as its maximum allows.`,
    );
  const full = await hostRoomNote(infra, host, choices.length);
  if (full !== null) ctx.progress(full);
  const { group, sessions } = await ctx.intents.startBestOf(
    ctx.project.id,
    prompt,
    choices,
    command.mode ?? 'auto_edit',
    host,
  );
  // Groups of this project a gone Grove process left unevaluated are checked and judged here too.
  const stranded = resumeStranded(ctx);
  for (const s of sessions)
    ctx.progress(
      `Variant ${shortId(s.id)}: ${s.agent}/${s.model} on ${s.branch}${s.host ? ` (@${s.host})` : ''}`,
    );
  for (const s of sessions) ctx.intents.runQueued(s.id);

  const deadline = command.timeoutMs === null ? null : infra.clock.now() + command.timeoutMs;
  let interrupted = false;
  const onSigint = (): void => {
    interrupted = true;
  };
  process.on('SIGINT', onSigint);
  try {
    while (!(await ctx.queries.groupSettled(group))) {
      if (interrupted || (deadline !== null && infra.clock.now() > deadline)) {
        for (const s of sessions) ctx.intents.abort(s.id);
        ctx.progress(
          interrupted
            ? 'Stopped (Ctrl+C); the variants keep what they did.'
            : 'Timed out; the variants keep what they did.',
        );
        return interrupted ? EXIT.interrupted : EXIT.timeout;
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
    ctx.progress('All variants are over: checking and judging…');
    await ctx.intents.evaluateGroup(group.id);
  } finally {
    process.off('SIGINT', onSigint);
  }
  const final = await verdict(ctx, group.id, deadline);
  if (!final) {
    ctx.progress('Timed out while another Grove process checks and judges the group.');
    return EXIT.timeout;
  }
  await stranded;
  const rows = await Promise.all(
    final.members.map(async (m) => ({
      member: m,
      session: await infra.store.sessions.get(m.sessionId),
    })),
  );
  printRanking(ctx, final, rows, command.output === 'json');
  return final.status === 'ranked' ? EXIT.ok : EXIT.failed;
}

/** Groups still evaluating (or not yet). */
const UNDECIDED: ReadonlySet<string> = new Set(['running', 'checking', 'judging']);

/** Evaluates the project's groups a gone Grove process left unevaluated; resolves when they are done. */
async function resumeStranded(ctx: HeadlessContext): Promise<void> {
  const { store, logger } = ctx.infra;
  const resumed = await ctx.intents
    .resumeStrandedGroups(ctx.project.id)
    .catch((error: unknown): string[] => {
      logger.log('warn', 'best-of: resuming stranded groups failed', error);
      return [];
    });
  for (const id of resumed) {
    const group = await store.groups.get(id);
    if (group)
      ctx.progress(
        `An earlier best-of-${group.members.length} group (${shortId(group.id)}) that a stopped Grove left unfinished was checked and judged: ${group.status}.`,
      );
  }
}

/**
 * The group once ranked or failed. Its checks and judge normally ran in this
 * process; when another process took them first, this waits for it, and
 * takes them over should that process stop.
 */
async function verdict(
  ctx: HeadlessContext,
  groupId: string,
  deadline: number | null,
): Promise<SessionGroup | null> {
  for (let polls = 0; ; polls += 1) {
    const group = await ctx.infra.store.groups.get(groupId);
    if (!group) throw new CommandError('the group disappeared', EXIT.failed);
    if (!UNDECIDED.has(group.status)) return group;
    if (deadline !== null && ctx.infra.clock.now() > deadline) return null;
    if (polls % TAKEOVER_POLLS === 0) await ctx.intents.resumeStranded(ctx.project.id);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

function printRanking(
  ctx: HeadlessContext,
  group: SessionGroup,
  rows: readonly { member: SessionGroup['members'][number]; session: Session | undefined }[],
  json: boolean,
): void {
  const out = ctx.io.stdout;
  const variant = (sessionId: string): (typeof rows)[number] | undefined =>
    rows.find((r) => r.member.sessionId === sessionId);
  if (json) {
    const body = {
      group: group.id,
      status: group.status,
      prompt: group.prompt,
      note: group.note,
      ranking: group.ranking.map((r) => {
        const v = variant(r.sessionId);
        return {
          session: r.sessionId,
          rank: r.rank,
          reason: r.reason,
          agent: v?.session?.agent ?? null,
          model: v?.session?.model ?? null,
          branch: v?.session?.branch ?? null,
          check: v?.member.check ?? null,
        };
      }),
      variants: rows.map(({ member, session }) => ({
        session: member.sessionId,
        status: session?.status ?? null,
        agent: session?.agent ?? null,
        model: session?.model ?? null,
        branch: session?.branch ?? null,
        worktree: session?.worktreePath ?? null,
        check: member.check,
      })),
    };
    out.write(`${JSON.stringify(body, null, 2)}\n`);
    return;
  }
  if (group.ranking.length === 0) {
    out.write(`Not ranked: ${group.note ?? group.status}\n`);
    return;
  }
  for (const r of group.ranking) {
    const v = variant(r.sessionId);
    out.write(
      `${r.rank}. ${shortId(r.sessionId)}  ${v?.session ? `${v.session.agent}/${v.session.model}` : ''}  check ${checkText(v?.member.check ?? null)}  ${r.reason}\n`,
    );
  }
}

/** The group a session is a variant of, as `grove show --json` prints it (null when none). */
export async function showGroupJson(
  infra: Infra,
  sessionId: string,
): Promise<{
  id: string;
  status: string;
  prompt: string;
  note: string | null;
  rank: number | null;
  chosenSession: string | null;
  ranking: {
    session: string;
    rank: number;
    reason: string;
    agent: string | null;
    model: string | null;
    check: SessionGroup['members'][number]['check'];
  }[];
} | null> {
  const group = await infra.store.groups.ofSession(sessionId);
  if (!group) return null;
  const sessions = await Promise.all(
    group.ranking.map((r) => infra.store.sessions.get(r.sessionId)),
  );
  return {
    id: group.id,
    status: group.status,
    prompt: group.prompt,
    note: group.note,
    rank: group.ranking.find((r) => r.sessionId === sessionId)?.rank ?? null,
    chosenSession: group.chosenSessionId,
    ranking: group.ranking.map((r, i) => ({
      session: r.sessionId,
      rank: r.rank,
      reason: r.reason,
      agent: sessions[i]?.agent ?? null,
      model: sessions[i]?.model ?? null,
      check: group.members.find((m) => m.sessionId === r.sessionId)?.check ?? null,
    })),
  };
}

/** `grove show`'s lines about the session's best-of-N group: its state, then the ranking (this variant marked). */
export function showGroupLines(
  group: NonNullable<Awaited<ReturnType<typeof showGroupJson>>>,
  sessionId: string,
  variants: number,
): string[] {
  const place = group.rank === null ? '' : `: this variant is #${group.rank} of ${variants}`;
  const lines = [`best of ${variants} (${group.status})${place}`];
  if (group.note) lines.push(`  ${group.note}`);
  for (const r of group.ranking)
    lines.push(
      `${r.session === sessionId ? '*' : ' '} ${r.rank}. ${shortId(r.session)}  ${r.agent ?? '?'}/${r.model ?? '?'}  check ${checkText(r.check)}  ${r.reason}${group.chosenSession === r.session ? '  (chosen)' : ''}`,
    );
  return lines;
}
